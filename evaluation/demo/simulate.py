"""A simulated crowd for the demo: annotators of known quality judging binary relevance.

Pure Python (no Django), deterministic by seed. Each simulated annotator has a sensitivity (the
chance of saying *relevant* when the truth is relevant) and a specificity (the chance of saying
*not relevant* when it is not), the two-parameter annotator of Dawid & Skene (1979) for two
classes, and a typical time per judgement. The truth is a qrels mapping; a pair it does not
name counts as not relevant, as trec_eval counts an unjudged document.

The demo's crowd (``DEMO_CROWD``) is chosen, not measured: four annotators between 0.75 and 0.95
on either rate (one strict, one lenient) and one careless annotator near chance who is also the
fastest, so that the agreement report and the aggregation methods have something to tell apart.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

# The spread of a simulated annotator's time per judgement: log-normal around its median, so most
# judgements take between 0.5 and 2 times the median (σ = 0.35 puts 95 % inside that range).
SECONDS_LOG_SPREAD = 0.35
# Between one simulated judgement and the next task's page being read: the page loading and a glance.
PAUSE_SECONDS = 2.0


@dataclass(frozen=True)
class SimulatedAnnotator:
    name: str
    sensitivity: float  # P(says relevant | relevant)
    specificity: float  # P(says not relevant | not relevant)
    median_seconds: float  # typical time per judgement

    def __post_init__(self) -> None:
        if not (0 <= self.sensitivity <= 1 and 0 <= self.specificity <= 1):
            raise ValueError(f"{self.name}: sensitivity and specificity are probabilities")
        if self.median_seconds <= 0:
            raise ValueError(f"{self.name}: the median time per judgement must be positive")


@dataclass(frozen=True)
class SimulatedJudgement:
    task: tuple[str, str]  # (topic, document)
    annotator: str
    label: int  # 1 relevant, 0 not relevant
    seconds: float


DEMO_CROWD = (
    SimulatedAnnotator("simulated-1", sensitivity=0.95, specificity=0.95, median_seconds=28.0),
    SimulatedAnnotator("simulated-2", sensitivity=0.90, specificity=0.90, median_seconds=22.0),
    # Strict: misses some relevant documents, rarely calls a non-relevant one relevant.
    SimulatedAnnotator("simulated-3", sensitivity=0.75, specificity=0.95, median_seconds=20.0),
    # Lenient: finds nearly every relevant document, and calls some non-relevant ones relevant.
    SimulatedAnnotator("simulated-4", sensitivity=0.92, specificity=0.80, median_seconds=16.0),
    # Careless: near chance, and the fastest.
    SimulatedAnnotator("simulated-5", sensitivity=0.55, specificity=0.50, median_seconds=5.0),
)


def simulate_judgements(
    tasks: Sequence[tuple[str, str]],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    crowd: Sequence[SimulatedAnnotator] = DEMO_CROWD,
    per_task: int = 3,
    seed: int = 0,
) -> list[SimulatedJudgement]:
    """Judge every ``(topic, document)`` task by ``per_task`` different annotators of ``crowd``.

    1. For each task, in the order given, draw ``per_task`` distinct annotators uniformly from
       the crowd (so each judges about ``per_task / len(crowd)`` of the tasks, and never one twice).
    2. Each answers the truth (``qrels[topic][document] > 0``; unnamed pairs are not relevant)
       with its sensitivity or specificity, and the other label otherwise.
    3. Each judgement takes a log-normal time around the annotator's median, to a tenth of a second.

    Returns the judgements task by task, each task's in the order its annotators were drawn. The
    same arguments give the same judgements (``random.Random(seed)``, nothing else is random).
    """
    if not 1 <= per_task <= len(crowd):
        raise ValueError(f"per_task must be between 1 and the crowd's size ({len(crowd)})")
    if len({annotator.name for annotator in crowd}) != len(crowd):
        raise ValueError("the crowd's annotators need distinct names")
    rng = random.Random(seed)
    judgements = []
    for topic, document in tasks:
        relevant = qrels.get(topic, {}).get(document, 0) > 0
        for annotator in rng.sample(list(crowd), per_task):
            right = rng.random() < (annotator.sensitivity if relevant else annotator.specificity)
            seconds = annotator.median_seconds * math.exp(rng.gauss(0.0, SECONDS_LOG_SPREAD))
            judgements.append(
                SimulatedJudgement(
                    task=(topic, document),
                    annotator=annotator.name,
                    label=int(relevant == right),
                    seconds=round(seconds, 1),
                )
            )
    return judgements


class Timed(Protocol):
    """A simulated answer: who gave it and how long it took (a judgement, a rating)."""

    @property
    def annotator(self) -> str: ...

    @property
    def seconds(self) -> float: ...


def submission_times(judgements: Sequence[Timed], end: float) -> list[float]:
    """When each judgement was submitted, on the clock of ``end``, had each annotator worked
    through theirs in the order given, back to back (each judgement's seconds, then
    ``PAUSE_SECONDS``), all finishing at ``end``: the demo's crowd then worked over the past hours,
    each at its own pace, rather than submitting 1,635 judgements in the same instant."""
    times = [0.0] * len(judgements)
    clock: dict[str, float] = {}
    for index in reversed(range(len(judgements))):
        judgement = judgements[index]
        submitted = clock.get(judgement.annotator, end)
        times[index] = submitted
        clock[judgement.annotator] = submitted - judgement.seconds - PAUSE_SECONDS
    return times
