"""Wawa: a vote weighted by each annotator's agreement with the majority vote (Toloka's heuristic as crowd-
kit implements it; D. Ustalov et al., "Learning from crowds with Crowd-Kit", JOSS 9(96), 2024). Each
step is crowd-kit's."""

from __future__ import annotations

import numpy as np

from annotation.crowd.aggregation.base import (
    AggregationResult,
    _encoded,
    agreement_with,
    probability_result,
    weighted_scores,
)
from annotation.crowd.aggregation.ties import _break_ties
from annotation.crowd.io.encoding import Encoded, Labels


def wawa(labels: Labels, *, tie_rule: str = "lower") -> AggregationResult:
    """Worker Agreement with Aggregate: (1) majority vote, ties to the lower label; (2) each
    annotator's skill is the share of their labels equal to it; (3) a vote weighted by those
    skills. Confidence is the winner's share of the weight (ties to the lower label, listed).

    ``tie_rule`` breaks ties of the first vote: ``lower`` (the default, as ``majority_vote``; its
    old name ``smallest`` is accepted), or
    ``first-seen``, crowd-kit's rule (pandas' ``idxmax`` over labels in the order its rows met them),
    which reproduces crowd-kit's skills exactly but depends on the row order.
    """
    data = _encoded(labels)
    votes = data.counts
    leaders = votes == votes.max(axis=1)[:, None]
    if tie_rule == "first-seen":
        first_row = np.full(len(data.classes), len(data), dtype=np.int64)
        np.minimum.at(first_row, data.label_index, np.arange(len(data)))
        winners = np.where(leaders, first_row[None, :], len(data) + 1).argmin(axis=1)
    elif tie_rule in ("lower", "smallest"):
        tie_rule = "lower"
        winners = _break_ties(leaders, "lower", 0)
    else:
        raise ValueError(f"tie_rule must be 'lower' or 'first-seen', not {tie_rule!r}")
    skills = agreement_with(data, winners)
    return _weighted_vote(data, skills, "wawa", {"tie_rule": tie_rule})


def _weighted_vote(data: Encoded, skills: np.ndarray, method: str, parameters: dict) -> AggregationResult:
    scores = weighted_scores(data, skills)
    total = scores.sum(axis=1, keepdims=True)
    shares = np.divide(scores, total, out=np.full_like(scores, 1 / scores.shape[1]), where=total > 0)
    parameters = parameters | {"annotator_skill": dict(zip(data.annotators, skills.tolist(), strict=True))}
    return probability_result(data, shares, method, parameters, {"skills": skills})
