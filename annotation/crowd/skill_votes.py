"""Votes weighted by a skill estimated from agreement with the crowd: Wawa and zero-based skill.

Neither method has a paper of its own: both are Toloka's heuristics as crowd-kit implements them
(D. Ustalov et al., "Learning from crowds with Crowd-Kit", Journal of Open Source Software 9(96),
2024, which lists them as ``Wawa`` and ``ZeroBasedSkill``). Each step below is crowd-kit's.
"""

from __future__ import annotations

import numpy as np

from annotation.crowd.aggregation import (
    AggregationResult,
    _break_ties,
    _encoded,
    agreement_with,
    probability_result,
    weighted_scores,
)
from annotation.crowd.encoding import Encoded, Labels


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


def zero_based_skill(
    labels: Labels,
    *,
    iterations: int = 100,
    learning_rate: float = 1.0,
    steps_to_reduce: int = 20,
    reduce_factor: float = 0.5,
    epsilon: float = 1e-5,
) -> AggregationResult:
    """Zero-based skill (ZBS): every annotator starts with skill 1/K + ``epsilon``; each of
    ``iterations`` rounds takes the skill-weighted vote and moves each skill towards the annotator's
    agreement with it by ``learning_rate``, which is multiplied by ``reduce_factor`` every
    ``steps_to_reduce`` rounds (a gradient step on the squared gap). The answer is the vote with
    the final skills. Ties go to the smallest label, as in crowd-kit (its weighted vote sorts labels).
    """
    data = _encoded(labels)
    skills = np.full(len(data.annotators), 1 / len(data.classes) + epsilon)
    rate = learning_rate
    for step in range(1, iterations + 1):
        if step % steps_to_reduce == 0:
            rate *= reduce_factor
        winners = weighted_scores(data, skills).argmax(axis=1)
        skills = skills + rate * (agreement_with(data, winners) - skills)
    parameters = {
        "iterations": iterations,
        "learning_rate": learning_rate,
        "steps_to_reduce": steps_to_reduce,
        "reduce_factor": reduce_factor,
        "epsilon": epsilon,
    }
    return _weighted_vote(data, skills, "zero-based-skill", parameters)


def _weighted_vote(data: Encoded, skills: np.ndarray, method: str, parameters: dict) -> AggregationResult:
    scores = weighted_scores(data, skills)
    total = scores.sum(axis=1, keepdims=True)
    shares = np.divide(scores, total, out=np.full_like(scores, 1 / scores.shape[1]), where=total > 0)
    parameters = parameters | {"annotator_skill": dict(zip(data.annotators, skills.tolist(), strict=True))}
    return probability_result(data, shares, method, parameters, {"skills": skills})
