"""The agreement summary: every agreement figure with what it rests on, as one JSON-friendly dict.

``cranfield agreement`` prints it; the ground-truth job stores it with a snapshot.
"""

from __future__ import annotations

from typing import Any

from .agreement import (
    Labels,
    Weights,
    cohen_kappa_pairs,
    fleiss_items,
    fleiss_kappa,
    fleiss_kappa_test,
    krippendorff_alpha,
    per_label_agreement,
    randolph_kappa,
    weights_description,
)
from .bootstrap import STATISTICS, bootstrap_agreement
from .encoding import as_encoded


def agreement_summary(
    labels: Labels,
    *,
    weights: Weights = "none",
    level: str = "nominal",
    min_shared: int = 2,
    intervals: bool = False,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    interval_statistics: tuple[str, ...] = STATISTICS,
    pair_statistics: bool = False,
) -> dict:
    """Fleiss' kappa, mean pairwise Cohen's kappa, Krippendorff's alpha and per-label agreement.

    Top-level keys: ``n_labels``, ``n_items``, ``n_annotators`` (the whole data); per figure its
    value and base: ``fleiss_kappa`` with ``fleiss_kappa_n_items``, ``fleiss_kappa_n_annotators``,
    ``fleiss_kappa_items_excluded`` (items whose number of ratings is not the most common one)
    and ``fleiss_kappa_ratings_per_item``; ``cohen_kappa_mean`` with ``cohen_kappa_pairs``,
    ``cohen_kappa_n_items``, ``cohen_kappa_n_annotators``, ``cohen_kappa_weights``,
    ``cohen_kappa_min_shared``; ``krippendorff_alpha`` with ``krippendorff_alpha_n_items`` (items
    with two or more ratings), ``krippendorff_alpha_n_annotators``, ``krippendorff_level``;
    ``per_label`` (``PerLabelAgreement.as_dict``); ``duplicates``, the rule that settled repeated
    (item, annotator) rows (``encoding``), with ``duplicates_dropped``.

    Kappa statistics: ``fleiss_kappa_test``, the z test of Fleiss' kappa = 0 (standard error under
    H0 of Fleiss, Nee & Landis 1979; ``agreement.fleiss_kappa_test``); ``randolph_kappa``
    (free-marginal, Randolph 2005) on Fleiss' items, with ``randolph_kappa_categories`` (its k);
    ``cohen_kappa_statistics``, when exactly one pair of annotators is counted (the two-annotator
    design), that pair's ``KappaStatistics.as_dict`` (standard errors, z, p, interval at
    ``confidence``), else None; with ``pair_statistics``, ``cohen_kappa_pair_statistics`` lists
    every counted pair's (``first``, ``second``, ``shared_items`` and the same fields).
    ``weights`` may be a K × K disagreement matrix (``agreement.disagreement_weights``);
    ``cohen_kappa_weights`` then holds it as nested lists.

    With ``intervals``, ``<figure>_ci`` holds a
    percentile bootstrap interval over items (``BootstrapInterval.as_dict``) for each of
    ``interval_statistics``, and ``bootstrap`` its settings; without, those keys are absent.

    The labels are encoded once (not at all if ``labels`` is an ``Encoded``), and every figure and
    interval is computed from that one encoding.
    """
    data = as_encoded(labels)
    fleiss = fleiss_kappa(data)
    randolph = randolph_kappa(data)
    cohen = cohen_kappa_pairs(data, weights=weights, min_shared=min_shared)
    if pair_statistics or len(cohen.kappa) == 1:
        # Again with a table per pair (opt-in, or cheap: a single pair).
        cohen = cohen_kappa_pairs(
            data,
            weights=weights,
            min_shared=min_shared,
            statistics=True,
            alpha=round((1 - confidence) / 2, 12),
        )
    alpha = krippendorff_alpha(data, level=level)
    _, ratings_per_item = fleiss_items(data)
    report: dict[str, Any] = {
        "n_labels": len(data),
        "n_items": len(data.items),
        "n_annotators": len(data.annotators),
        "fleiss_kappa": fleiss.value,
        "fleiss_kappa_n_items": fleiss.n_items,
        "fleiss_kappa_n_annotators": fleiss.n_annotators,
        "fleiss_kappa_items_excluded": fleiss.n_items_excluded,
        "fleiss_kappa_ratings_per_item": ratings_per_item or None,
        "cohen_kappa_mean": cohen.mean,
        "cohen_kappa_pairs": len(cohen.kappa),
        "cohen_kappa_n_items": cohen.n_items,
        "cohen_kappa_n_annotators": cohen.n_annotators,
        "cohen_kappa_weights": weights_description(weights),
        "cohen_kappa_min_shared": min_shared,
        "cohen_kappa_statistics": (
            next(iter(cohen.pair_statistics.values())).as_dict() if len(cohen.kappa) == 1 else None
        ),
        "fleiss_kappa_test": fleiss_kappa_test(data),
        "randolph_kappa": randolph.value,
        "randolph_kappa_categories": len(data.classes),
        "krippendorff_alpha": alpha.value,
        "krippendorff_alpha_n_items": alpha.n_items,
        "krippendorff_alpha_n_annotators": alpha.n_annotators,
        "krippendorff_level": level,
        "per_label": per_label_agreement(data).as_dict(),
        "duplicates": data.duplicates,
        "duplicates_dropped": data.duplicates_dropped,
    }
    if pair_statistics:
        report["cohen_kappa_pair_statistics"] = [
            {"first": first, "second": second, "shared_items": int(statistics.n_items)} | statistics.as_dict()
            for (first, second), statistics in cohen.pair_statistics.items()
        ]
    if intervals:
        found = bootstrap_agreement(
            data,
            resamples=resamples,
            confidence=confidence,
            seed=seed,
            weights=weights,
            level=level,
            min_shared=min_shared,
            statistics=interval_statistics,
        )
        for name, interval in found.items():
            report[f"{name}_ci"] = interval.as_dict()
        report["bootstrap"] = {
            "unit": "item",
            "method": "percentile",
            "resamples": resamples,
            "confidence": confidence,
            "seed": seed,
        }
    return report
