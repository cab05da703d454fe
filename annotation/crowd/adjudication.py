"""When an item's judgements are disputed: the rules a project sets for adjudication (pure; no Django).

Adjudication settles disagreements the way the TDT evaluations' annotators did: when the first
assessors of an item disagree, one more assessor judges it, or a senior assessor (here, the
researcher) decides. A rule names which items count as disputed, from the current labels of
their judgements:

- ``off``: none (the default);
- ``not_unanimous``: the annotators did not all give the same label;
- ``majority_below``: the most frequent label's share of the labels is below a threshold, e.g.
  0.75 sends 2 against 1 (0.67) but not 4 against 1 (0.8).

A single judgement is never disputed. Rating (Likert) scores disagree by their spread per
dimension (``rating_spread``), which the item browser shows; no rule sends ratings anywhere.

A *tie* (``tied``: two or more labels share the highest count, as a 1–1 split with k = 2) is the
one disagreement a majority vote cannot settle by itself. A project whose tie rule refers ties
(to one more annotator or to the researcher) refers its tied items even when its adjudication rule
is off or would not dispute them (``referrals``): one mechanism, two reasons.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

Item = TypeVar("Item", bound=Hashable)

OFF = "off"
NOT_UNANIMOUS = "not_unanimous"
MAJORITY_BELOW = "majority_below"
RULES = (OFF, NOT_UNANIMOUS, MAJORITY_BELOW)

# Why an item was referred: the adjudication rule disputes it, or its vote is tied.
DISPUTED = "disputed"
TIE = "tie"


def majority_share(labels: Sequence[Hashable]) -> float | None:
    """The share of the labels that the most frequent label has (1.0 when unanimous); None if empty."""
    if not labels:
        return None
    return max(Counter(labels).values()) / len(labels)


def disagree(labels: Sequence[Hashable]) -> bool:
    """Do the annotators of one item disagree (at least two different labels)?"""
    return len(set(labels)) > 1


def disputed(labels: Sequence[Hashable], rule: str, threshold: float = 1.0) -> bool:
    """Is an item with these current labels disputed under ``rule`` (see the module's docstring)?

    ``threshold`` is the ``majority_below`` rule's share; the other rules ignore it.
    """
    if rule not in RULES:
        raise ValueError(f"unknown adjudication rule {rule!r}; one of {', '.join(RULES)}")
    if rule == OFF or len(labels) < 2:
        return False
    if rule == NOT_UNANIMOUS:
        return disagree(labels)
    share = majority_share(labels)
    return share is not None and share < threshold


def tied(labels: Sequence[Hashable]) -> bool:
    """Is one item's vote tied: do two or more labels share the highest count (1–1, 2–2, 1–1–1)?"""
    top_two = Counter(labels).most_common(2)
    return len(top_two) == 2 and top_two[0][1] == top_two[1][1]


def referrals(
    labels: Iterable[tuple[Item, Hashable]], rule: str, threshold: float = 1.0, *, refer_ties: bool = False
) -> dict[Item, str]:
    """The items of ``(item, label)`` pairs to refer, each with why: ``DISPUTED`` under ``rule``
    (first: the adjudication rule decides where those go), else ``TIE`` when ``refer_ties``."""
    by_item: dict[Item, list[Hashable]] = {}
    for item, label in labels:
        by_item.setdefault(item, []).append(label)
    reasons: dict[Item, str] = {}
    for item, values in by_item.items():
        if disputed(values, rule, threshold):
            reasons[item] = DISPUTED
        elif refer_ties and tied(values):
            reasons[item] = TIE
    return reasons


def disputed_items(labels: Iterable[tuple[Item, Hashable]], rule: str, threshold: float = 1.0) -> set[Item]:
    """The items of ``(item, label)`` pairs that are disputed under ``rule``."""
    by_item: dict[Item, list[Hashable]] = {}
    for item, label in labels:
        by_item.setdefault(item, []).append(label)
    return {item for item, values in by_item.items() if disputed(values, rule, threshold)}


def label_tally(labels: Iterable[Hashable]) -> list[tuple[Hashable, int]]:
    """Each label given with how many gave it, most frequent first (ties: in order of first use)."""
    counts = Counter(labels)
    return sorted(counts.items(), key=lambda pair: -pair[1])


def rating_spread(scores: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Per dimension, the highest score given minus the lowest (0 when everyone agrees)."""
    low: dict[str, int] = {}
    high: dict[str, int] = {}
    for answer in scores:
        for dimension, score in answer.items():
            low[dimension] = min(low.get(dimension, score), score)
            high[dimension] = max(high.get(dimension, score), score)
    return {dimension: high[dimension] - low[dimension] for dimension in low}
