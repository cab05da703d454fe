"""The demo's Pyramid campaign: the text campaign's summarisers judged by LitePyramid, content unit by
content unit, by simulated workers.

Pure Python (no Django), deterministic by seed; everything is the shipped Cranfield subset or made here:

- **Inputs**: the first ``DEMO_PYRAMID_INPUTS`` of the text campaign's abstracts; each title is the one
  reference summary.
- **Content units written by a program, not by people** (``written_by`` says so): a title cut at its
  commas and its joining words (of, for, in, on, at, with, and, by, to, from, under) into phrases, each
  phrase with a content word one SCU ("The summary mentions <phrase>"), weight 1 (one reference).
- **Systems**: the text campaign's four summarisers (``text_campaign.summarise``).
- **Simulated presence answers**: an SCU is present in a summary when the summary says at least half
  of the phrase's content words; each of three simulated workers answers that truth but errs with a
  probability of their own (``WORKERS``), so their majority is mostly right and they agree in part.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from evaluation.demo.text_campaign import STOP_WORDS, Output, TextInput, words

DEMO_PYRAMID_PROJECT_NAME = "Cranfield demo: summaries by LitePyramid"
DEMO_PYRAMID_INPUTS = 12
DEMO_PYRAMID_SEED = 2019
WRITTEN_BY = "a program (the demo's: phrases of the title), not a person"
# Simulated workers: (name, probability of a wrong answer). The names are the demo's simulated accounts.
WORKERS = (("simulated-1", 0.05), ("simulated-2", 0.12), ("simulated-3", 0.2))
# Each worker's typical seconds per answer (one short statement against a one-line summary).
WORKER_MEDIAN_SECONDS = {"simulated-1": 9.0, "simulated-2": 7.0, "simulated-3": 5.0}
JOINS = r",|;|:|\b(?:of|for|in|on|at|with|and|by|to|from|under)\b"


@dataclass(frozen=True)
class Unit:
    input: str
    id: str
    phrase: str

    @property
    def statement(self) -> str:
        return f"The summary mentions {self.phrase}"


@dataclass(frozen=True)
class Answer:
    system: str
    input: str
    unit: str
    worker: str
    label: int  # 1 present, 0 absent
    seconds: float = 0.0

    @property
    def annotator(self) -> str:  # ``simulate.submission_times`` reads who answered by this name
        return self.worker


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in STOP_WORDS]


def write_units(inputs: Sequence[TextInput]) -> list[Unit]:
    """Each title's phrases with a content word, in order, numbered from 1 per input."""
    units: list[Unit] = []
    for item in inputs:
        phrases = [p.strip(" .-") for p in re.split(JOINS, item.title.lower())]
        kept = list(dict.fromkeys(p for p in phrases if content_words(p)))
        units.extend(Unit(item.id, str(number), phrase) for number, phrase in enumerate(kept, start=1))
    return units


def present(unit: Unit, summary: str) -> bool:
    """The simulation's truth: the summary says at least half of the phrase's content words."""
    wanted = set(content_words(unit.phrase))
    said = set(words(summary))
    return len(wanted & said) * 2 >= len(wanted)


def simulate_answers(
    units: Sequence[Unit], outputs: Sequence[Output], seed: int = DEMO_PYRAMID_SEED
) -> list[Answer]:
    """Every worker's answer on every (SCU, summary) of the same input."""
    from evaluation.demo.simulate import SECONDS_LOG_SPREAD

    rng = random.Random(seed)
    answers = []
    for output in outputs:
        for unit in (u for u in units if u.input == output.input):
            truth = int(present(unit, output.text))
            for worker, error in WORKERS:
                label = 1 - truth if rng.random() < error else truth
                seconds = WORKER_MEDIAN_SECONDS[worker] * rng.lognormvariate(0.0, SECONDS_LOG_SPREAD)
                answers.append(Answer(output.system, output.input, unit.id, worker, label, round(seconds, 1)))
    return answers


def import_body(inputs: Sequence[TextInput], units: Sequence[Unit], outputs: Sequence[Output]) -> dict:
    """The Pyramid import's body (``evaluation.pyramid.importing``)."""
    return {
        "references": [{"input": i.id, "id": "title", "text": i.title} for i in inputs],
        "units": [
            {
                "input": u.input,
                "id": u.id,
                "statement": u.statement,
                "references": ["title"],
                "written_by": WRITTEN_BY,
            }
            for u in units
        ],
        "summaries": [{"input": o.input, "system": o.system, "text": o.text} for o in outputs],
    }
