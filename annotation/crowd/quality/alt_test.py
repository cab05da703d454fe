"""The alternative-annotator test: may an automatic judge stand in for a person? (pure; no Django)

Calderon, Reichart & Dror (2025), "The Alternative Annotator Test for LLM-as-a-Judge". Leave one person
out at a time. On each item that person judged, with at least one other person beside them, score how
well the machine's label and the left-out person's label align with the remaining people's labels
(``accuracy``: the share of them it equals; ``neg_rmse`` for scores: minus the root mean squared
difference). The machine's *advantage* on the item is 1 when it aligns at least as well, the person's
likewise. For each person, a one-sided one-sample t-test of (person's advantage − machine's) against ε
asks whether the person is better by less than ε, the cost-benefit margin that the machine's low cost
earns it (the authors suggest 0.2 against experts, 0.15 against skilled annotators, 0.1 against crowd
workers). The p-values of all persons are corrected by Benjamini–Yekutieli (statsmodels' ``fdr_by``) at
α; the *winning rate* is the share of persons the machine beats, and it passes at 0.5 or more. The
*advantage probability* (the mean over persons of the machine's advantage) compares machines.

As the authors' implementation: items with fewer than ``min_people_per_item`` people or no machine
label are left out, and so is a person with fewer than ``min_items_per_person`` items left (with the
reason). SciPy's t-test of differences without spread is −∞ below ε (p = 0: beaten) and undefined at
ε exactly (p NaN: counted among the tests, never beaten).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Alignment = Callable[[Any, Sequence[Any]], float]


def accuracy(label: object, others: Sequence[object]) -> float:
    """The share of ``others`` that ``label`` equals."""
    return sum(label == other for other in others) / len(others)


def neg_rmse(score: float, others: Sequence[float]) -> float:
    """Minus the root mean squared difference between ``score`` and ``others`` (higher is closer)."""
    return -math.sqrt(sum((score - other) ** 2 for other in others) / len(others))


ALIGNMENTS: dict[str, Alignment] = {"accuracy": accuracy, "neg_rmse": neg_rmse}


@dataclass(frozen=True)
class PersonComparison:
    """The machine against one left-out person."""

    annotator: Hashable
    items: int
    machine_advantage: float  # share of the items where the machine aligns at least as well
    person_advantage: float  # share of the items where the person aligns at least as well
    p_value: float  # H0: person's advantage − machine's ≥ ε; NaN when undefined
    beaten: bool  # H0 rejected after the Benjamini–Yekutieli correction


@dataclass(frozen=True)
class AltTestResult:
    epsilon: float
    alpha: float
    comparisons: list[PersonComparison]
    skipped: dict[Hashable, str] = field(default_factory=dict)  # persons left out, and why

    @property
    def winning_rate(self) -> float | None:
        """The share of persons the machine beats; None when no person could be compared."""
        if not self.comparisons:
            return None
        return sum(c.beaten for c in self.comparisons) / len(self.comparisons)

    @property
    def advantage_probability(self) -> float | None:
        if not self.comparisons:
            return None
        return float(np.mean([c.machine_advantage for c in self.comparisons]))

    @property
    def passed(self) -> bool:
        """May the machine replace the people? (a winning rate of at least 0.5)"""
        return self.winning_rate is not None and self.winning_rate >= 0.5


def alt_test(
    machine: Mapping[Any, Any],
    people: Mapping[Any, Mapping[Any, Any]],
    *,
    alignment: str | Alignment = "accuracy",
    epsilon: float = 0.2,
    alpha: float = 0.05,
    min_people_per_item: int = 2,
    min_items_per_person: int = 30,
) -> AltTestResult:
    """The test of ``machine`` ({item: label}) against ``people`` ({annotator: {item: label}})."""
    from scipy.stats import ttest_1samp
    from statsmodels.stats.multitest import multipletests

    align = ALIGNMENTS[alignment] if isinstance(alignment, str) else alignment
    judged_by: dict[Hashable, list[Hashable]] = {}
    for annotator, labels in people.items():
        for item in labels:
            judged_by.setdefault(item, []).append(annotator)
    usable = {i for i, who in judged_by.items() if len(who) >= min_people_per_item and i in machine}
    measured: list[tuple[Hashable, int, float, float, float]] = []
    skipped: dict[Hashable, str] = {}
    for annotator, labels in people.items():
        items = [item for item in labels if item in usable]
        if len(items) < min_items_per_person:
            skipped[annotator] = f"{len(items)} items judged with others (needs {min_items_per_person})"
            continue
        machine_wins, person_wins = [], []
        for item in items:
            others = [people[other][item] for other in judged_by[item] if other != annotator]
            by_machine, by_person = align(machine[item], others), align(labels[item], others)
            machine_wins.append(1.0 if by_machine >= by_person else 0.0)
            person_wins.append(1.0 if by_person >= by_machine else 0.0)
        differences = np.array(person_wins) - np.array(machine_wins)
        with np.errstate(invalid="ignore", divide="ignore"):
            p_value = float(ttest_1samp(differences, epsilon, alternative="less").pvalue)
        shares = float(np.mean(machine_wins)), float(np.mean(person_wins))
        measured.append((annotator, len(items), *shares, p_value))
    beaten = [False] * len(measured)
    if measured:
        # An undefined test is never a rejection: as a p-value of 1 it still counts among the m tests.
        p_values = [1.0 if math.isnan(m[4]) else m[4] for m in measured]
        beaten = [bool(r) for r in multipletests(p_values, alpha=alpha, method="fdr_by")[0]]
    comparisons = [PersonComparison(*m, beaten=b) for m, b in zip(measured, beaten, strict=True)]
    return AltTestResult(epsilon, alpha, comparisons, skipped)
