"""The agreement summary: every agreement figure with what it rests on, as one JSON-friendly dict.

``cranfield agreement`` prints it; the ground-truth job stores it with a snapshot. Its minimums
(a pair's shared items for a kappa, items for an interval) are ``minimums``', the product's.
"""

from __future__ import annotations

from typing import Any

from annotation.crowd.agreement.bootstrap import STATISTICS, bootstrap_agreement
from annotation.crowd.agreement.cohen import cohen_kappa_pairs
from annotation.crowd.agreement.fleiss import fleiss_items, fleiss_kappa, fleiss_kappa_test, randolph_kappa
from annotation.crowd.agreement.krippendorff import krippendorff_alpha
from annotation.crowd.agreement.per_label import per_label_agreement
from annotation.crowd.agreement.prevalence import explain_low_kappa, pooled_agreement
from annotation.crowd.agreement.weights import Weights, weights_description
from annotation.crowd.io.encoding import Encoded, Labels, as_encoded
from annotation.crowd.minimums import ITEMS_FOR_AGREEMENT_INTERVAL, ITEMS_FOR_KAPPA, Minimum


def agreement_summary(
    labels: Labels,
    *,
    weights: Weights = "none",
    level: str = "nominal",
    min_shared: int = ITEMS_FOR_KAPPA.count,
    intervals: bool = False,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    interval_statistics: tuple[str, ...] = STATISTICS,
    pair_statistics: bool = False,
    interval_minimum: Minimum = ITEMS_FOR_AGREEMENT_INTERVAL,
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

    ``cohen_kappa_mean`` weighs each pair of annotators by the items it shares
    (``cohen_kappa_mean_weighting``), over the pairs sharing at least ``min_shared`` items
    (``cohen_kappa_min_shared``; by default ``minimums.ITEMS_FOR_KAPPA``). Unweighted kappa has
    beside it the pooled figures of ``prevalence`` (``pooled_agreement``: observed and chance
    agreement over every two ratings of an item, each label's share, PABAK and, for two labels, the
    prevalence index; ``pabak`` repeats PABAK) and ``kappa_explanation``, a sentence saying why
    kappa (mean Cohen's, else Fleiss') is low, by prevalence or by disagreement
    (``prevalence.explain_low_kappa``), else None; weighted kappa has neither (None).

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
    ``interval_statistics``, with ``n_items`` and ``reason`` (None); a figure resting on fewer items
    than ``interval_minimum`` gets null bounds and the reason instead. ``bootstrap`` holds the
    settings; without ``intervals``, those keys are absent.

    The labels are encoded once (not at all if ``labels`` is an ``Encoded``), and every figure and
    interval is computed from that one encoding.
    """
    data = as_encoded(labels)
    fleiss = fleiss_kappa(data)
    cohen = _cohen_pairs(data, weights, min_shared, pair_statistics, confidence)
    alpha = krippendorff_alpha(data, level=level)
    report: dict[str, Any] = {
        "n_labels": len(data),
        "n_items": len(data.items),
        "n_annotators": len(data.annotators),
    }
    report |= _fleiss_figures(data, fleiss)
    report |= _cohen_figures(cohen, weights, min_shared)
    report |= {
        "fleiss_kappa_test": fleiss_kappa_test(data),
        "randolph_kappa": randolph_kappa(data).value,
        "randolph_kappa_categories": len(data.classes),
        "krippendorff_alpha": alpha.value,
        "krippendorff_alpha_n_items": alpha.n_items,
        "krippendorff_alpha_n_annotators": alpha.n_annotators,
        "krippendorff_level": level,
        "per_label": per_label_agreement(data).as_dict(),
        "duplicates": data.duplicates,
        "duplicates_dropped": data.duplicates_dropped,
    }
    report |= _pooled_figures(data, cohen, weights)
    report["kappa_explanation"] = explain_low_kappa(report)
    if pair_statistics:
        report["cohen_kappa_pair_statistics"] = [
            {"first": first, "second": second, "shared_items": int(statistics.n_items)} | statistics.as_dict()
            for (first, second), statistics in cohen.pair_statistics.items()
        ]
    if intervals:
        bases = {
            "fleiss_kappa": fleiss.n_items,
            "cohen_kappa_mean": cohen.n_items,
            "krippendorff_alpha": alpha.n_items,
        }
        settings = {"resamples": resamples, "confidence": confidence, "seed": seed, "weights": weights}
        report |= _interval_figures(
            data, bases, settings, level, min_shared, interval_statistics, interval_minimum
        )
    return report


def _cohen_pairs(data: Encoded, weights: Weights, min_shared: int, pair_statistics: bool, confidence: float):
    """Every counted pair's kappa; again with a contingency table per pair when asked (or cheap: a
    single pair, the two-annotator design, whose statistics the report shows)."""
    cohen = cohen_kappa_pairs(data, weights=weights, min_shared=min_shared)
    if pair_statistics or len(cohen.kappa) == 1:
        alpha = round((1 - confidence) / 2, 12)
        cohen = cohen_kappa_pairs(data, weights=weights, min_shared=min_shared, statistics=True, alpha=alpha)
    return cohen


def _fleiss_figures(data: Encoded, fleiss) -> dict[str, Any]:
    _, ratings_per_item = fleiss_items(data)
    return {
        "fleiss_kappa": fleiss.value,
        "fleiss_kappa_n_items": fleiss.n_items,
        "fleiss_kappa_n_annotators": fleiss.n_annotators,
        "fleiss_kappa_items_excluded": fleiss.n_items_excluded,
        "fleiss_kappa_ratings_per_item": ratings_per_item or None,
    }


def _cohen_figures(cohen, weights: Weights, min_shared: int) -> dict[str, Any]:
    return {
        "cohen_kappa_mean": cohen.mean,
        "cohen_kappa_pairs": len(cohen.kappa),
        "cohen_kappa_n_items": cohen.n_items,
        "cohen_kappa_n_annotators": cohen.n_annotators,
        "cohen_kappa_weights": weights_description(weights),
        "cohen_kappa_min_shared": min_shared,
        "cohen_kappa_mean_weighting": "shared items",
        "cohen_kappa_statistics": (
            next(iter(cohen.pair_statistics.values())).as_dict() if len(cohen.kappa) == 1 else None
        ),
    }


def _pooled_figures(data: Encoded, cohen, weights: Weights) -> dict[str, Any]:
    """Unweighted kappa's pooled agreement and PABAK (``prevalence``); weighted kappa has neither."""
    pooled = None
    if isinstance(weights, str) and weights == "none" and cohen.pooled is not None:
        pool = pooled_agreement(cohen.pooled, len(data.classes), cohen.pooled_items)
        pooled = None if pool is None else pool.as_dict(data.classes)
    return {"pooled_agreement": pooled, "pabak": None if pooled is None else pooled["pabak"]}


def _interval_figures(
    data: Encoded,
    bases: dict[str, int],
    settings: dict[str, Any],
    level: str,
    min_shared: int,
    interval_statistics: tuple[str, ...],
    interval_minimum: Minimum,
) -> dict[str, Any]:
    """Each figure's percentile bootstrap interval over items, or null bounds and the reason below
    ``interval_minimum``; and the bootstrap's settings."""
    enough = tuple(name for name in interval_statistics if interval_minimum.met(bases[name]))
    found = (
        bootstrap_agreement(data, level=level, min_shared=min_shared, statistics=enough, **settings)
        if enough
        else {}
    )
    confidence = settings["confidence"]
    figures: dict[str, Any] = {}
    for name in interval_statistics:
        if name in found:
            figures[f"{name}_ci"] = found[name].as_dict() | {"n_items": bases[name], "reason": None}
        else:
            figures[f"{name}_ci"] = {
                "low": None,
                "high": None,
                "confidence": confidence,
                "n_items": bases[name],
                "reason": interval_minimum.reason(bases[name]),
            }
    figures["bootstrap"] = {
        "unit": "item",
        "method": "percentile",
        "resamples": settings["resamples"],
        "confidence": confidence,
        "seed": settings["seed"],
        "minimum_items": interval_minimum.count,
    }
    return figures
