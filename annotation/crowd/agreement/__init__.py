"""Inter-annotator agreement, one module per family: Fleiss' and Randolph's kappas (``fleiss``), Cohen's kappa
for every pair of annotators with its standard errors (``cohen``), Krippendorff's alpha (``krippendorff``),
agreement per label (``per_label``), the disagreement weights they share (``weights``), bootstrap intervals
(``bootstrap``), prevalence and PABAK (``prevalence``), and the summary a snapshot stores (``report``).

Every function takes judgements as (item, annotator, label) triples, a DataFrame, or an ``Encoded``
(``annotation.crowd.io.encoding``; given one, nothing is encoded again), and every result says how many
items and annotators it rests on. The public names of the families are importable from here."""

from __future__ import annotations

from annotation.crowd.agreement.base import LEVELS, WEIGHTS, AgreementResult, group_by_item
from annotation.crowd.agreement.cohen import (
    STATISTIC_FIELDS,
    KappaStatistics,
    PairEntries,
    PairwiseKappa,
    cohen_kappa,
    cohen_kappa_matrix,
    cohen_kappa_pairs,
    kappa_statistics,
    pair_entries,
    pair_tables,
    pairwise_kappas,
    table_statistics,
)
from annotation.crowd.agreement.fleiss import fleiss_items, fleiss_kappa, fleiss_kappa_test, randolph_kappa
from annotation.crowd.agreement.krippendorff import alpha_value_domain, krippendorff_alpha
from annotation.crowd.agreement.per_label import LabelAgreement, PerLabelAgreement, per_label_agreement
from annotation.crowd.agreement.weights import (
    Weights,
    disagreement_weights,
    expected_disagreement,
    kappa_weights,
    weights_description,
)

__all__ = [
    "LEVELS",
    "STATISTIC_FIELDS",
    "WEIGHTS",
    "AgreementResult",
    "KappaStatistics",
    "LabelAgreement",
    "PairEntries",
    "PairwiseKappa",
    "PerLabelAgreement",
    "Weights",
    "alpha_value_domain",
    "cohen_kappa",
    "cohen_kappa_matrix",
    "cohen_kappa_pairs",
    "disagreement_weights",
    "expected_disagreement",
    "fleiss_items",
    "fleiss_kappa",
    "fleiss_kappa_test",
    "group_by_item",
    "kappa_statistics",
    "kappa_weights",
    "krippendorff_alpha",
    "pair_entries",
    "pair_tables",
    "pairwise_kappas",
    "per_label_agreement",
    "randolph_kappa",
    "table_statistics",
    "weights_description",
]
