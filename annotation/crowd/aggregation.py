"""Aggregating crowd labels into one label per item, with a confidence in [0, 1]."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field

from .agreement import Triple

TIE_RULES = ("smallest", "largest", "random")


@dataclass(frozen=True)
class AggregationResult:
    """Labels per item, a confidence per item, the items that were ties, and how it was made."""

    labels: dict[Hashable, Hashable]
    confidence: dict[Hashable, float]
    ties: list[Hashable]
    method: str
    parameters: dict = field(default_factory=dict)


def majority_vote(
    labels: Iterable[Triple], *, tie_rule: str = "smallest", seed: int = 0
) -> AggregationResult:
    """The most frequent label per item; confidence is the winner's share of the votes.

    Ties are broken by a named rule and listed in ``ties``: ``smallest`` (the conservative choice
    for relevance: a 1–1 split is not relevant), ``largest``, or ``random`` (seeded, reproducible).
    """
    if tie_rule not in TIE_RULES:
        raise ValueError(f"tie_rule must be one of {', '.join(TIE_RULES)}, not {tie_rule!r}")
    rng = random.Random(seed)
    votes: dict[Hashable, Counter] = {}
    for item, _, label in labels:
        votes.setdefault(item, Counter())[label] += 1
    winners: dict[Hashable, Hashable] = {}
    confidence: dict[Hashable, float] = {}
    ties: list[Hashable] = []
    for item, counter in votes.items():
        top = max(counter.values())
        leaders = sorted((label for label, count in counter.items() if count == top), key=_order_key)
        if len(leaders) > 1:
            ties.append(item)
        if tie_rule == "smallest":
            winners[item] = leaders[0]
        elif tie_rule == "largest":
            winners[item] = leaders[-1]
        else:
            winners[item] = rng.choice(leaders)
        confidence[item] = top / sum(counter.values())
    parameters = {"tie_rule": tie_rule} | ({"seed": seed} if tie_rule == "random" else {})
    return AggregationResult(winners, confidence, ties, "majority", parameters)


def _order_key(label: Hashable) -> tuple:
    # Numbers in numeric order, anything else after them in string order.
    return (0, label, "") if isinstance(label, int | float) else (1, 0, str(label))
