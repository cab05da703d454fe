"""Attention checks for rating tasks (pure; no Django).

Two kinds, after the practice of crowd direct assessment (Graham et al., 2013; 2017, "Can
machine translation systems be evaluated by the crowd alone?"): an item shown again to the
same annotator, whose two ratings should be close, and a deliberately degraded output, which an
attentive annotator rates lower than the original.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

# A repeat passes when every dimension's two scores differ by at most this many scale points.
REPEAT_TOLERANCE = 1


def degrade_text(text: str, rng: random.Random) -> str:
    """A spoiled copy of an output: half of its words dropped and the rest shuffled.

    Short texts keep at least two words, so there is always something to read.
    """
    words = text.split()
    if len(words) <= 2:
        return " ".join(reversed(words)) or text
    kept = rng.sample(words, max(2, len(words) // 2))
    rng.shuffle(kept)
    return " ".join(kept)


def mean_score(scores: Mapping[str, int]) -> float:
    return sum(scores.values()) / len(scores) if scores else 0.0


@dataclass(frozen=True)
class CheckResult:
    """How an annotator did on attention checks: passes out of checks, per kind."""

    repeats_passed: int = 0
    repeats: int = 0
    degraded_passed: int = 0
    degraded: int = 0

    @property
    def passed(self) -> int:
        return self.repeats_passed + self.degraded_passed

    @property
    def total(self) -> int:
        return self.repeats + self.degraded

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.total if self.total else None


def repeat_passes(first: Mapping[str, int], second: Mapping[str, int]) -> bool:
    """Two ratings of the same item agree when no dimension moved by more than REPEAT_TOLERANCE."""
    return all(
        abs(second.get(dimension, score) - score) <= REPEAT_TOLERANCE for dimension, score in first.items()
    )


def degraded_passes(original: Mapping[str, int], degraded: Mapping[str, int]) -> bool:
    """A degraded output must be rated lower than the original on average over the dimensions."""
    return mean_score(degraded) < mean_score(original)


def score_checks(
    repeats: list[tuple[Mapping[str, int], Mapping[str, int]]],
    degraded: list[tuple[Mapping[str, int], Mapping[str, int]]],
) -> CheckResult:
    """Score an annotator's checks: pairs of (rating of the original, rating of the check)."""
    return CheckResult(
        repeats_passed=sum(repeat_passes(a, b) for a, b in repeats),
        repeats=len(repeats),
        degraded_passed=sum(degraded_passes(a, b) for a, b in degraded),
        degraded=len(degraded),
    )
