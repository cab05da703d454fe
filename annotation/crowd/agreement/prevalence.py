"""Why kappa can be low while annotators mostly agree: prevalence, and the prevalence- and
bias-adjusted kappa (PABAK) to show beside kappa.

Byrt, Bishop & Carlin (1993, "Bias, prevalence and kappa", Journal of Clinical Epidemiology 46(5)):
for a 2 × 2 table of two annotators with cells a (both yes), b, c (they differ) and d (both no)
over n items,

    p_o = (a + d) / n                       observed agreement
    PABAK = 2 p_o − 1                       kappa had both labels been equally common and both
                                            annotators used them equally often
    PI = |a − d| / n                        the prevalence index: how much one label dominates
    BI = |b − c| / n                        the bias index: how differently the two use the labels
    kappa = (PABAK − PI² + BI²) / (1 − PI² + BI²)

so a high prevalence index drags kappa far below the observed agreement. For q categories PABAK is
(q p_o − 1) / (q − 1) (Byrt et al.'s generalisation; Brennan & Prediger's 1981 kappa, and
Randolph's free-marginal kappa for two raters per item).

Over many annotators every two ratings of one item are pooled (``PairwiseKappa.pooled``): p_o is
then the share of those (pair, item) entries on which the two agree, the pairs' observed
agreements weighted by their shared items (as the mean kappa is), and on items with equally many
ratings Fleiss' (1971) P̄. The pool takes every pair, not only those sharing enough items for a
kappa of their own, so it rests on every item rated twice or more. A pair's orientation is
arbitrary, so only orientation-free figures are given for the pool: the labels' shares (both sides
of every entry), the chance agreement of two annotators labelling at random with those shares
(Σ share², Scott's; Fleiss' P̄_e), and, for two categories, PI (the diagonal does not depend on
orientation).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# When kappa is explained: at most "fair" (Landis & Koch 1977: 0.21-0.40). It is put down to
# prevalence when the annotators agree on at least 70 % of what they share, one label makes most of
# the labels, and PABAK (which sets the labels' shares aside) is at least 0.2 higher than kappa.
LOW_KAPPA = 0.4
HIGH_AGREEMENT = 0.7
PREVALENCE_GAP = 0.2

SOURCE = "Byrt, Bishop & Carlin 1993"


def pabak(observed_agreement: float, categories: int) -> float:
    """The prevalence- and bias-adjusted kappa, (q · p_o − 1) / (q − 1); 2 p_o − 1 for two labels."""
    if categories < 2:
        raise ValueError("PABAK needs at least two categories")
    return (categories * observed_agreement - 1) / (categories - 1)


@dataclass(frozen=True)
class ByrtIndices:
    """Byrt et al.'s figures of one 2 × 2 table (rows: the first annotator, columns: the second)."""

    observed_agreement: float
    pabak: float
    prevalence_index: float
    bias_index: float


def byrt_indices(table: Sequence[Sequence[float]] | np.ndarray) -> ByrtIndices:
    """p_o, PABAK, the prevalence index |a − d| / n and the bias index |b − c| / n of a 2 × 2 table."""
    counts = np.asarray(table, dtype=float)
    if counts.shape != (2, 2) or counts.sum() <= 0:
        raise ValueError("a 2 × 2 table of counts with at least one item is needed")
    n = counts.sum()
    (a, b), (c, d) = counts
    observed = (a + d) / n
    return ByrtIndices(observed, pabak(observed, 2), abs(a - d) / n, abs(b - c) / n)


@dataclass(frozen=True)
class PooledAgreement:
    """What a pool of pairs' shared items says beside their mean kappa (see the module notes).

    ``entries``: (pair, shared item) entries pooled, over ``n_items`` items; ``label_shares``: each
    class's share of the labels on both sides, in the data's class order; ``prevalence_index``: None
    unless there are exactly two categories.
    """

    entries: int
    n_items: int
    observed_agreement: float
    chance_agreement: float
    pabak: float
    categories: int
    label_shares: list[float]
    prevalence_index: float | None

    def as_dict(self, classes: Sequence[Hashable]) -> dict:
        """JSON-ready, each label's share beside its label (``classes``, in the table's order)."""
        return {
            "entries": self.entries,
            "n_items": self.n_items,
            "observed_agreement": self.observed_agreement,
            "chance_agreement": self.chance_agreement,
            "pabak": self.pabak,
            "categories": self.categories,
            "prevalence_index": self.prevalence_index,
            "label_shares": [
                {"label": label, "share": share}
                for label, share in zip(classes, self.label_shares, strict=True)
            ],
        }


def pooled_agreement(
    pooled: np.ndarray, categories: int | None = None, n_items: int = 0
) -> PooledAgreement | None:
    """The figures of a pooled K × K table over ``n_items`` items; ``categories`` is q for PABAK
    (default K, the classes of the data; pass the scale's length when some category went unused).
    None for no entry."""
    counts = np.asarray(pooled, dtype=float)
    n = counts.sum()
    q = categories or counts.shape[0]
    if n <= 0 or q < 2:
        return None
    observed = float(np.trace(counts) / n)
    shares = (counts.sum(axis=0) + counts.sum(axis=1)) / (2 * n)
    prevalence = abs(counts[0, 0] - counts[1, 1]) / n if counts.shape == (2, 2) else None
    return PooledAgreement(
        entries=int(n),
        n_items=n_items,
        observed_agreement=observed,
        chance_agreement=float((shares**2).sum()),
        pabak=pabak(observed, q),
        categories=q,
        label_shares=[float(share) for share in shares],
        prevalence_index=None if prevalence is None else float(prevalence),
    )


def explain_low_kappa(summary: Mapping, names: Mapping[Any, str] | None = None) -> str | None:
    """Why the kappa of an agreement summary (``report.agreement_summary``, as a snapshot stores it)
    is low, in a sentence; None when it is not low (at least ``LOW_KAPPA``) or nothing was pooled.
    The kappa is mean Cohen's, or Fleiss' where no pair shares enough items for Cohen's. Low kappa
    beside high raw agreement is put down to prevalence (see the constants above), with the
    prevalence index and PABAK; otherwise the annotators disagree, and the sentence compares their
    agreement with chance's. ``names`` (label → name) words the labels, e.g. 0 → "Not relevant"."""
    pooled = summary.get("pooled_agreement")
    kappa, which = summary.get("cohen_kappa_mean"), "mean Cohen's kappa"
    if kappa is None:
        kappa, which = summary.get("fleiss_kappa"), "Fleiss' kappa"
    if kappa is None or not pooled or kappa >= LOW_KAPPA:
        return None
    observed, chance, adjusted = pooled["observed_agreement"], pooled["chance_agreement"], pooled["pabak"]
    top = max(pooled["label_shares"], key=lambda row: row["share"])
    prevalence = observed >= HIGH_AGREEMENT and top["share"] > 0.5 and adjusted - kappa >= PREVALENCE_GAP
    if not prevalence:
        return (
            f"Kappa is low because the annotators disagree: they give the same label to {observed:.0%} of "
            f"the items they share, where two annotators labelling at random in their proportions would "
            f"agree on {chance:.0%} ({which} {kappa:.2f}). PABAK, which sets aside how common each label "
            f"is, is {adjusted:.2f}."
        )
    name = (names or {}).get(top["label"], str(top["label"]))
    index = pooled["prevalence_index"]
    index_text = "" if index is None else f"; prevalence index {index:.2f}"
    labels = "both labels" if pooled["categories"] == 2 else f"all {pooled['categories']} labels"
    return (
        f"Kappa is low although the annotators mostly agree: they give the same label to {observed:.0%} of "
        f"the items they share, yet {which} is {kappa:.2f}. Most labels are “{name}” "
        f"({top['share']:.0%} of them{index_text}), so two annotators labelling at random in these "
        f"proportions would already agree on {chance:.0%} of items, and kappa counts only agreement beyond "
        f"that chance ({SOURCE}). PABAK, the kappa they would have were {labels} equally common, is "
        f"{adjusted:.2f}."
    )
