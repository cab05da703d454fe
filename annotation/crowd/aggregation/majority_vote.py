"""Majority vote: each item's most frequent label, ties broken by a named rule (``ties``); equal to crowd-
kit's ``MajorityVote`` on untied items."""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np

from annotation.crowd.aggregation.base import (
    _TIE_TOLERANCE,
    AggregationResult,
    _decoded,
    _encoded,
    gold_weights,
    weighted_scores,
)
from annotation.crowd.aggregation.ties import TIE_RULES, _break_ties, _check_tie_rule, _tie_parameters
from annotation.crowd.io.encoding import Labels


def majority_vote(
    labels: Labels,
    *,
    tie_rule: str = "lower",
    seed: int = 0,
    gold: Mapping[Hashable, Hashable] | None = None,
) -> AggregationResult:
    """The most frequent label per item; confidence is the winner's share of the votes.

    Ties are broken by a named rule (``TIE_RULES``) and listed in ``ties``, with how each was
    decided in ``tie_breaks``: ``lower`` (the lowest of the tied labels), ``higher``, ``random``
    (seeded, reproducible) or ``gold_weighted``: of the tied labels, the one whose voters weigh
    most in the gold-weighted vote (``gold_weighted_vote``'s weights, from each annotator's answers
    to the items of ``gold``, which ``labels`` must then hold, as for that vote; gold items are
    labelled too, like any item). Where the tied labels' weights are equal as well (no annotator
    answered gold, say), the lower label wins and ``tie_breaks`` says ``lower``. Only ties are
    weighed: every other item keeps its plain majority, so the labels equal crowd-kit's
    ``MajorityVote`` wherever the vote is not tied.
    """
    tie_rule = _check_tie_rule(tie_rule, TIE_RULES)
    if tie_rule == "gold_weighted" and gold is None:
        raise ValueError("tie_rule 'gold_weighted' needs the gold answers (gold=…)")
    data = _encoded(labels)
    votes = data.counts
    top = votes.max(axis=1)
    leaders = votes == top[:, None]
    tied = leaders.sum(axis=1) > 1
    if tie_rule == "gold_weighted":
        weighted = np.where(leaders, weighted_scores(data, gold_weights(data, gold or {})), -np.inf)
        best = weighted.max(axis=1)
        leaders &= weighted >= (best - _TIE_TOLERANCE * np.abs(best))[:, None]
        still_tied = leaders.sum(axis=1) > 1
        winners = _break_ties(leaders, "lower", seed)
    else:
        still_tied = tied
        winners = _break_ties(leaders, tie_rule, seed)
    result_labels, confidence = _decoded(data, winners, top / data.ratings_per_item)
    items = np.array(data.items, dtype=object)
    ties = items[tied].tolist()
    how = np.where(still_tied & (tie_rule == "gold_weighted"), "lower", tie_rule)[tied].tolist()
    return AggregationResult(
        result_labels,
        confidence,
        ties,
        "majority",
        _tie_parameters(tie_rule, seed),
        tie_breaks=dict(zip(ties, how, strict=True)),
    )
