"""A vote weighted by each annotator's accuracy on gold items: log-odds weights (Nitzan & Paroush 1982),
the accuracy Laplace-smoothed."""

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
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.aggregation.ties import _break_ties, _check_tie_rule, _tie_parameters
from annotation.crowd.io.encoding import Labels


def gold_weighted_vote(
    labels: Labels, gold: Mapping[Hashable, Hashable], *, tie_rule: str = "lower", seed: int = 0
) -> AggregationResult:
    """A vote weighted by each annotator's accuracy on gold questions (``gold_weights``).

    Confidence is the winner's share of the positive weight. Ties — labels whose weighted scores
    are equal, to a relative 1e-9 so that the order of a float sum does not decide — are broken by
    ``tie_rule`` (``lower``, ``higher`` or ``random``) as in ``majority_vote`` and listed in
    ``ties``. Items where no label has a positive score (every weight 0, say) fall back to
    ``majority_vote`` with the same rule; its ties are listed too.
    """
    tie_rule = _check_tie_rule(tie_rule, ("lower", "higher", "random"))
    data = _encoded(labels)
    weights = gold_weights(data, gold)
    scores = weighted_scores(data, weights)
    positive = np.where(scores > 0, scores, 0.0)
    weighted = positive.sum(axis=1) > 0
    top = scores.max(axis=1)
    leaders = scores >= (top - _TIE_TOLERANCE * np.abs(top))[:, None]
    winners = _break_ties(leaders, tie_rule, seed)
    share = np.divide(
        positive[np.arange(len(data.items)), winners],
        positive.sum(axis=1),
        out=np.zeros(len(data.items)),
        where=weighted,
    )
    result_labels, confidence = _decoded(data, winners, share)
    items = np.array(data.items, dtype=object)
    fallback = majority_vote(data, tie_rule=tie_rule, seed=seed)
    for item in items[~weighted].tolist():
        result_labels[item] = fallback.labels[item]
        confidence[item] = fallback.confidence[item]
    fallback_ties = set(fallback.ties)
    ties = [
        item
        for item, tied, by_weight in zip(items.tolist(), leaders.sum(axis=1) > 1, weighted, strict=True)
        if (tied if by_weight else item in fallback_ties)
    ]
    annotator_weights = dict(zip(data.annotators, weights.tolist(), strict=True))
    return AggregationResult(
        result_labels,
        confidence,
        ties,
        "gold-weighted",
        _tie_parameters(tie_rule, seed) | {"annotator_weights": annotator_weights},
        tie_breaks=dict.fromkeys(ties, tie_rule),
    )
