"""Aggregating crowd labels into one label per item, with a confidence in [0, 1]: one module per method, as
crowd-kit lays them out (``majority_vote``, ``dawid_skene``, ``one_coin``, ``gold_weighted``, ``glad``,
``mace``, ``mmsr``, ``wawa``, ``zero_based_skill``), what they share (``base``, ``ties``), every method
by its name (``methods``) and cross-fitting (``cross_fit``).

Every function takes judgements as (item, annotator, label) triples, a DataFrame with columns item (or
task), annotator (or worker), label, or an ``Encoded`` (``annotation.crowd.io.encoding``; given one,
nothing is encoded again). The vote-based methods' public names are importable from here; GLAD, MACE and
M-MSR (which need SciPy's optimisers) from their own modules or by name through ``methods``."""

from __future__ import annotations

from annotation.crowd.aggregation.base import (
    AggregationResult,
    agreement_with,
    canonical,
    gold_clamp,
    gold_weights,
    probability_result,
    vote_counts,
    weighted_scores,
)
from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.aggregation.ties import TIE_RULE_ALIASES, TIE_RULES, tie_rule_named

__all__ = [
    "TIE_RULES",
    "TIE_RULE_ALIASES",
    "AggregationResult",
    "agreement_with",
    "canonical",
    "dawid_skene",
    "gold_clamp",
    "gold_weighted_vote",
    "gold_weights",
    "majority_vote",
    "probability_result",
    "tie_rule_named",
    "vote_counts",
    "weighted_scores",
]
