"""The demo's text campaign: simple summarisers of Cranfield abstracts, rated by simulated raters.

Pure Python (no Django), deterministic by seed. It ships with the product because everything in it
is the shipped Cranfield subset (``documents.jsonl``) or made here:

- **Inputs**: the first ``DEMO_TEXT_INPUTS`` abstracts (in file order) with a title and at least
  three sentences.
- **References**: each abstract's own title, the summary its authors wrote.
- **Systems**, four simple summarisers (so that Williams' test, which needs more than three
  systems, has something to compare): ``lead-words`` (the first 15 words, cut mid-sentence),
  ``lead-sentence`` (the first sentence), ``random-sentence`` (one sentence drawn at random) and
  ``keywords`` (the abstract's eight highest tf-idf words over the inputs, in the order they first
  appear: informative, not fluent).
- **Simulated ratings** on two dimensions, 1–5, by raters who are a program, not people: each
  output has a latent *informativeness* (half the share of its title's content words it says, half
  how many of its abstract's ten highest tf-idf words it keeps) and *fluency* (a property of the
  system: whole sentences read well, a keyword list does not, a cut sentence is in between); each
  rater adds a bias of their own and noise, rounds and clips to the scale. So the raters agree
  with each other only in part, and with ROUGE against the titles only in part, as people and
  metrics do.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from evaluation.demo.simulate import SECONDS_LOG_SPREAD

DEMO_TEXT_PROJECT_NAME = "Cranfield demo: summaries rated"
DEMO_TEXT_INPUTS = 40
DEMO_TEXT_DIMENSIONS = ("informativeness", "fluency")
DEMO_TEXT_SCALE = (1, 5)
# What the ends and the middle of the scale mean, shown on the scale (the instructions say the same).
DEMO_TEXT_ANCHORS = {"1": "very poor", "3": "fair", "5": "excellent"}
DEMO_TEXT_SEED = 1400
SYSTEMS = ("lead-words", "lead-sentence", "random-sentence", "keywords")
LEAD_WORDS = 15
KEYWORDS = 8
# How well each system's outputs read, on the 1–5 scale, before a rater's bias and noise.
FLUENCY = {"lead-words": 2.8, "lead-sentence": 4.4, "random-sentence": 4.2, "keywords": 1.6}
# Raters: (name, bias added to every score, spread of their noise). The names are the demo's
# simulated accounts, which cannot log in.
RATERS = (("simulated-1", 0.0, 0.5), ("simulated-2", 0.4, 0.7), ("simulated-3", -0.4, 0.9))
# Each rater's typical time per output (two dimensions of a one-line summary, its abstract read).
RATER_MEDIAN_SECONDS = {"simulated-1": 45.0, "simulated-2": 30.0, "simulated-3": 25.0}
# Words too common to say what an abstract is about (written here; not any toolkit's list).
_STOP_WORDS_TEXT = """
a about above after again all also an and any are as at be been before being below between both but
by can could did do does each few for from further had has have having here how if in into is it
its itself may more most much must no nor not of on once only or other our out over own same shall
should so some such than that the their them then there these they this those through to too under
until up upon very was we were what when where which while who whom why will with would
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


@dataclass(frozen=True)
class TextInput:
    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Output:
    system: str
    input: str
    text: str


@dataclass(frozen=True)
class Rating:
    system: str
    input: str
    rater: str
    scores: dict[str, int]
    seconds: float = 0.0  # the time the rater took (log-normal around their median)

    @property
    def annotator(self) -> str:  # ``simulate.submission_times`` reads who answered by this name
        return self.rater


def sentences(text: str) -> list[str]:
    """The abstract's sentences (the collection writes a full stop as `` .``)."""
    parts = [part.strip() for part in re.split(r"\s\.(?:\s|$)", text)]
    return [f"{part} ." for part in parts if len(part.split()) >= 3]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z-]+", text.lower())


def choose_inputs(documents: Sequence[dict], count: int = DEMO_TEXT_INPUTS) -> list[TextInput]:
    chosen = []
    for document in documents:
        if document.get("title", "").strip() and len(sentences(document["text"])) >= 3:
            chosen.append(TextInput(document["id"], document["title"].strip(), document["text"]))
        if len(chosen) == count:
            break
    return chosen


def top_words(inputs: Sequence[TextInput], count: int) -> dict[str, list[str]]:
    """Each input's ``count`` highest tf-idf content words (ties by first appearance)."""
    content = {i.id: [w for w in words(i.text) if w not in STOP_WORDS] for i in inputs}
    document_frequency = Counter(w for ws in content.values() for w in set(ws))
    best = {}
    for input_id, ws in content.items():
        tf = Counter(ws)
        first = {w: ws.index(w) for w in tf}
        score = {w: tf[w] * math.log(len(inputs) / document_frequency[w]) for w in tf}
        best[input_id] = sorted(tf, key=lambda w: (-score[w], first[w]))[:count]
    return best


def summarise(inputs: Sequence[TextInput], seed: int = DEMO_TEXT_SEED) -> list[Output]:
    """Every system's output for every input."""
    rng = random.Random(seed)
    keywords = top_words(inputs, KEYWORDS)
    outputs: list[Output] = []
    for item in inputs:
        split = sentences(item.text)
        in_order = [w for w in dict.fromkeys(words(item.text)) if w in keywords[item.id]]
        texts = {
            "lead-words": " ".join(item.text.split()[:LEAD_WORDS]),
            "lead-sentence": split[0],
            "random-sentence": rng.choice(split),
            "keywords": " ".join(in_order),
        }
        outputs.extend(Output(system, item.id, texts[system]) for system in SYSTEMS)
    return outputs


def simulate_ratings(
    inputs: Sequence[TextInput], outputs: Sequence[Output], seed: int = DEMO_TEXT_SEED
) -> list[Rating]:
    """Every rater's scores of every output (see the module docstring)."""
    rng = random.Random(seed)
    pace = random.Random(seed + 1)  # apart from the scores' draws, which stay as they were
    key_words = top_words(inputs, 10)
    low, high = DEMO_TEXT_SCALE
    ratings = []
    titles = {item.id: {w for w in words(item.title) if w not in STOP_WORDS} for item in inputs}
    for output in outputs:
        said = set(words(output.text))
        # Half the gist (the title's content words it says), half the abstract's key words it keeps.
        gist = len(said & titles[output.input]) / max(len(titles[output.input]), 1)
        kept = min(1.0, len(said & set(key_words[output.input])) / 6)
        latent = {
            "informativeness": low + (high - low) * (gist + kept) / 2,
            "fluency": FLUENCY[output.system],
        }
        for rater, bias, spread in RATERS:
            scores = {
                dimension: max(low, min(high, round(value + bias + rng.gauss(0.0, spread))))
                for dimension, value in latent.items()
            }
            seconds = RATER_MEDIAN_SECONDS[rater] * math.exp(pace.gauss(0.0, SECONDS_LOG_SPREAD))
            ratings.append(Rating(output.system, output.input, rater, scores, round(seconds, 1)))
    return ratings
