"""The demo's paid crowd: Prolific participants and Mechanical Turk workers who come in by study links,
consent, say who they are, judge a session each and are paid, simulated by a program (no person, no
platform: their ids are made here from a seed and look like the platforms' own).

Pure Python (no Django), deterministic by seed. The items are a run's top documents for a few topics,
with Cranfield's own judgements (``reference.qrels``) as the truth: the simulated workers answer it,
each erring with a probability of their own, taking a time on task of their own.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from evaluation.demo.simulate import SECONDS_LOG_SPREAD

DEMO_PAID_PROJECT_NAME = "Cranfield demo: a paid crowd from Prolific and MTurk"
DEMO_PAID_SEED = 2024
DEMO_PAID_TOPICS = 6  # the first topics' top documents are the items
DEMO_PAID_DEPTH = 7
DEMO_PAID_GOLD_TOPICS = 2  # the next topics' top documents are gold items
DEMO_PAID_GOLD_DEPTH = 3
PROLIFIC_WORKERS = 8
MTURK_WORKERS = 4
PROLIFIC_SESSION = 8  # judgements per Prolific session
MTURK_SESSION = 5  # judgements per HIT

CONSENT = """**A research study on judging relevance (a demo).** You will read questions engineers asked and
abstracts of reports, and say whether each abstract helps answer its question. A session takes about
five minutes. You may stop at any time; your answers are kept under a pseudonym and used only to build
a test collection. Your platform id is kept only to pay you, and is erased on request.

*About this demo:* the workers here were simulated by a program, not people."""

QUESTIONS = [
    {"name": "age", "question": "How old are you?", "kind": "number", "min": 18, "max": 100},
    {
        "name": "english",
        "question": "Is English your first language?",
        "kind": "choice",
        "choices": ["yes", "no"],
    },
    {
        "name": "engineering",
        "question": "Have you studied or worked in engineering?",
        "kind": "choice",
        "choices": ["yes", "no"],
    },
]


@dataclass(frozen=True)
class PaidWorker:
    platform: str  # prolific or mturk
    platform_id: str
    error: float  # probability of a wrong answer
    median_seconds: float
    answers: dict  # to the questions about themselves

    def label(self, truth: int, rng: random.Random) -> int:
        return 1 - truth if rng.random() < self.error else truth

    def seconds(self, rng: random.Random) -> float:
        return round(self.median_seconds * rng.lognormvariate(0.0, SECONDS_LOG_SPREAD), 1)


def simulated_workers(seed: int = DEMO_PAID_SEED) -> list[PaidWorker]:
    """Eight Prolific participants (24 hexadecimal digits, as Prolific's ids) and four MTurk workers
    ("A" and 13 capitals or digits, as MTurk's), each with an error rate and a pace of their own."""
    rng = random.Random(seed)
    workers = []
    for index in range(PROLIFIC_WORKERS + MTURK_WORKERS):
        prolific = index < PROLIFIC_WORKERS
        platform_id = (
            "".join(rng.choice("0123456789abcdef") for _ in range(24))
            if prolific
            else "A" + "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(13))
        )
        workers.append(
            PaidWorker(
                platform="prolific" if prolific else "mturk",
                platform_id=platform_id,
                error=rng.choice((0.05, 0.1, 0.15, 0.3)),
                median_seconds=rng.choice((20.0, 30.0, 45.0)),
                answers={
                    "age": rng.randint(19, 64),
                    "english": rng.choice(("yes", "yes", "no")),
                    "engineering": rng.choice(("yes", "no", "no", "prefer not to say")),
                },
            )
        )
    return workers


def ranked_pairs(
    run: str, qrels: dict[str, dict[str, int]], topics: list[str], depth: int
) -> list[tuple[str, str, int]]:
    """The top ``depth`` documents of each topic in a TREC run, with Cranfield's judgement of each as
    the truth (a pair its assessors left unjudged counts as not relevant: the collection was judged
    close to completely)."""
    ranked: dict[str, list[tuple[int, str]]] = {}
    for line in run.splitlines():
        if line.strip():
            topic, _, document, rank, *_ = line.split()
            ranked.setdefault(topic, []).append((int(rank), document))
    return [
        (topic, document, qrels.get(topic, {}).get(document, 0))
        for topic in topics
        for _, document in sorted(ranked.get(topic, []))[:depth]
    ]
