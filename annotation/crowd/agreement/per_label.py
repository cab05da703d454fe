"""Agreement per label: Fleiss' kappa of each category and the proportion of specific agreement (given one
rating of an item is this label, the chance another rating of it is too)."""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np

from annotation.crowd.agreement.base import _annotators_of
from annotation.crowd.agreement.fleiss import fleiss_items
from annotation.crowd.io.encoding import Labels, as_encoded


@dataclass(frozen=True)
class LabelAgreement:
    """Agreement on one label.

    ``fleiss_kappa``: Fleiss' (1971) kappa for that category, κ_j = 1 − Σ_i x_ij (n − x_ij) /
    (N n (n − 1) p_j q_j), on the items Fleiss' overall kappa uses; it equals Fleiss' kappa of the
    table collapsed to "this label or not". None when every or no rating is this label.
    ``specific_agreement``: the proportion of specific agreement, Σ_i x_ij (x_ij − 1) /
    Σ_i x_ij (n_i − 1) over every item with at least two ratings (any n_i): given that one rating
    of an item is this label, the chance that another rating of it is too. For two raters and a
    binary label it is the positive (or negative) agreement 2a / (2a + b + c) of Cicchetti &
    Feinstein (1990); the many-rater form is Uebersax's ("Raw agreement indices"; Fleiss, Levin &
    Paik 2003, ch. 18). None when no pairable item has this label.
    ``share``: the label's share of the ratings on pairable items; ``n_ratings``: their number.
    """

    label: Hashable
    fleiss_kappa: float | None
    specific_agreement: float | None
    share: float
    n_ratings: int


@dataclass(frozen=True)
class PerLabelAgreement:
    """Agreement on every label, with what each figure rests on.

    ``n_items``/``n_annotators``: the pairable items (two or more ratings) and their annotators,
    the base of ``specific_agreement``; ``fleiss_n_items``/``fleiss_n_annotators``: the base of the
    per-label Fleiss kappas (the same items as ``fleiss_kappa``).
    """

    labels: list[LabelAgreement]
    n_items: int
    n_annotators: int
    fleiss_n_items: int
    fleiss_n_annotators: int

    def as_dict(self) -> dict:
        return {
            "labels": [
                {
                    "label": row.label,
                    "fleiss_kappa": row.fleiss_kappa,
                    "specific_agreement": row.specific_agreement,
                    "share": row.share,
                    "n_ratings": row.n_ratings,
                }
                for row in self.labels
            ],
            "n_items": self.n_items,
            "n_annotators": self.n_annotators,
            "fleiss_n_items": self.fleiss_n_items,
            "fleiss_n_annotators": self.fleiss_n_annotators,
        }


def per_label_agreement(labels: Labels) -> PerLabelAgreement:
    """Per-label Fleiss kappa and proportion of specific agreement; see ``LabelAgreement``."""
    data = as_encoded(labels)
    counts = data.counts.astype(float)
    per_item = data.ratings_per_item
    pairable = per_item >= 2
    pairable_counts = counts[pairable]
    together = (pairable_counts * (pairable_counts - 1)).sum(axis=0)
    possible = (pairable_counts * (per_item[pairable, None] - 1)).sum(axis=0)
    specific = np.divide(together, possible, out=np.full(len(data.classes), np.nan), where=possible > 0)
    ratings = pairable_counts.sum(axis=0)
    share = ratings / ratings.sum() if ratings.sum() else np.zeros(len(data.classes))

    kept, n = fleiss_items(data)
    table = counts[kept]
    if len(table):
        p = table.sum(axis=0) / (len(table) * n)
        disagreement = (table * (n - table)).sum(axis=0)
        chance = len(table) * n * (n - 1) * p * (1 - p)
        kappas = np.divide(disagreement, chance, out=np.full(len(p), np.nan), where=chance > 0)
        kappas = np.where(chance > 0, 1 - kappas, np.nan)
    else:
        kappas = np.full(len(data.classes), np.nan)
    rows = [
        LabelAgreement(
            label,
            None if math.isnan(kappa) else float(kappa),
            None if math.isnan(agree) else float(agree),
            float(label_share),
            int(count),
        )
        for label, kappa, agree, label_share, count in zip(
            data.classes, kappas.tolist(), specific.tolist(), share.tolist(), ratings.tolist(), strict=True
        )
    ]
    return PerLabelAgreement(
        rows,
        int(pairable.sum()),
        _annotators_of(data, pairable),
        int(kept.sum()),
        _annotators_of(data, kept),
    )
