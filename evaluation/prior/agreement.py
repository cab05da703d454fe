"""How far the crowd agrees with the prior sets on the pairs both judged (pure: no database).

The crowd's label of an item (its aggregate, or a researcher's decision) against the prior label,
as two raters of the overlap: Cohen's kappa (``annotation.crowd.agreement.cohen_kappa``, equal to
statsmodels') with its large-sample interval, a 95 % percentile bootstrap interval over the items
(``bootstrap_agreement``, 1,000 resamples, seed 0, as the snapshot's own agreement figures), the
confusion counts (rows: prior, columns: crowd), overall and per topic. Below ``ITEMS_FOR_KAPPA``
shared items no kappa, below ``ITEMS_FOR_AGREEMENT_INTERVAL`` no bootstrap interval: the reason
stands in its place (``annotation.crowd.minimums``).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from annotation.crowd.agreement.bootstrap import bootstrap_agreement
from annotation.crowd.agreement.cohen import cohen_kappa
from annotation.crowd.io.encoding import label_order
from annotation.crowd.minimums import ITEMS_FOR_AGREEMENT_INTERVAL, ITEMS_FOR_KAPPA
from evaluation.metrics.natural_order import natural_sorted

RESAMPLES = 1000
SEED = 0
CONFIDENCE = 0.95


def overlap_agreement(pairs: list[tuple[int, int]], classes: list) -> dict:
    """Agreement of (prior label, crowd label) ``pairs`` on the labels ``classes``: ``items``,
    ``agreed``, ``confusion`` (prior × crowd counts), ``kappa`` with its Fleiss–Cohen–Everitt
    interval (``kappa_low``, ``kappa_high``) and ``bootstrap`` interval, or the ``reason`` why not."""
    index = {label: position for position, label in enumerate(classes)}
    confusion = np.zeros((len(classes), len(classes)), dtype=int)
    for prior, crowd in pairs:
        confusion[index[prior], index[crowd]] += 1
    out: dict = {
        "items": len(pairs),
        "agreed": int(np.trace(confusion)),
        "confusion": confusion.tolist(),
        "kappa": None,
        "kappa_low": None,
        "kappa_high": None,
        "bootstrap": None,
        "reason": ITEMS_FOR_KAPPA.reason(len(pairs)),
        "interval_reason": ITEMS_FOR_AGREEMENT_INTERVAL.reason(len(pairs)),
    }
    if out["reason"] is not None:
        return out
    triples = as_triples(pairs)
    statistics = cohen_kappa(triples, "prior", "crowd")
    if statistics.kappa is None:
        out["reason"] = "kappa is undefined: one label throughout on both sides"
        return out
    out |= {"kappa": statistics.kappa, "kappa_low": statistics.kappa_low, "kappa_high": statistics.kappa_upp}
    if out["interval_reason"] is None:
        interval = bootstrap_agreement(
            triples,
            resamples=RESAMPLES,
            confidence=CONFIDENCE,
            seed=SEED,
            statistics=("cohen_kappa_mean",),
        )["cohen_kappa_mean"]
        out["bootstrap"] = interval.as_dict()
    return out


def as_triples(pairs: list[tuple[int, int]]) -> list[tuple[int, str, int]]:
    """(prior label, crowd label) pairs as (item, rater, label) triples of the two raters."""
    return [(item, "prior", prior) for item, (prior, _) in enumerate(pairs)] + [
        (item, "crowd", crowd) for item, (_, crowd) in enumerate(pairs)
    ]


def crowd_against_prior(
    sources: Mapping[int, tuple[str, int, int]],
    pairs: Mapping[int, tuple[int, int]],
    topics: Mapping[int, str],
) -> dict:
    """The overlap's agreement overall and per topic (topics in natural order of their ids).

    ``sources`` is ``merge.Merged.sources`` (task → (source, prior label, crowd label)), ``pairs``
    each task's (topic, document) and ``topics`` each topic's imported id."""
    by_topic: dict[str, list[tuple[int, int]]] = {}
    every: list[tuple[int, int]] = []
    for task in sorted(sources):
        _, prior, crowd = sources[task]
        every.append((prior, crowd))
        by_topic.setdefault(topics[pairs[task][0]], []).append((prior, crowd))
    classes = sorted({label for pair in every for label in pair}, key=label_order)
    return {
        "classes": classes,
        "overall": overlap_agreement(every, classes),
        "topics": [
            {"topic": topic} | overlap_agreement(by_topic[topic], classes)
            for topic in natural_sorted(by_topic)
        ],
        "kappa_minimum": ITEMS_FOR_KAPPA.count,
        "interval_minimum": ITEMS_FOR_AGREEMENT_INTERVAL.count,
    }
