"""Zero-based skill: skills grown from zero by agreement with the current weighted vote, repeated until
stable (Toloka's heuristic as crowd-kit implements it; D. Ustalov et al., "Learning from crowds with
Crowd-Kit", JOSS 9(96), 2024). Each step is crowd-kit's."""

from __future__ import annotations

import numpy as np

from annotation.crowd.aggregation.base import (
    AggregationResult,
    _encoded,
    agreement_with,
    weighted_scores,
)
from annotation.crowd.aggregation.wawa import _weighted_vote
from annotation.crowd.io.encoding import Labels


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
