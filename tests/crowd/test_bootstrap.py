"""Bootstrap intervals over items: each replicate equals the statistic recomputed from scratch on
the materialised resample (statsmodels, scikit-learn, the krippendorff package), and the intervals
behave: they contain the estimate, repeat for a seed, and narrow with more items."""

from __future__ import annotations

import itertools
import math
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from annotation.crowd.agreement.bootstrap import bootstrap_agreement, resampled_items
from annotation.crowd.agreement.cohen import cohen_kappa_pairs
from annotation.crowd.agreement.fleiss import fleiss_kappa
from annotation.crowd.agreement.krippendorff import krippendorff_alpha

designs = st.lists(
    st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=4, max_size=4), min_size=2, max_size=15
)


def simulate(n_items, seed=0, workers=8, per_item=4, classes=3, skill=0.7):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, n_items)
    triples = []
    for item in range(n_items):
        for worker in rng.choice(workers, per_item, replace=False).tolist():
            right = rng.random() < skill
            triples.append((item, f"w{worker}", int(truth[item] if right else rng.integers(0, classes))))
    return triples


def resample(design, drawn):
    """The resample as a design: drawn item j becomes item j, with all its labels."""
    return [design[index] for index in drawn]


def triples_of(design):
    return [
        (i, f"w{w}", label)
        for i, row in enumerate(design)
        for w, label in enumerate(row)
        if label is not None
    ]


def mean_cohen_with_sklearn(design, origin, labels, weights, min_shared=2):
    """Mean pairwise kappa of a resample, each pair weighted by its shared items (copies counted);
    a pair counts with ``min_shared`` distinct original items (``origin[j]``: the data row that
    resample row j copies)."""
    kappas, counts = [], []
    for first, second in itertools.combinations(range(4), 2):
        both = [j for j, row in enumerate(design) if row[first] is not None and row[second] is not None]
        if len({origin[j] for j in both}) < min_shared:
            continue
        shared = [(design[j][first], design[j][second]) for j in both]
        a, b = zip(*shared, strict=True)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = cohen_kappa_score(a, b, labels=labels, weights=None if weights == "none" else weights)
        if not math.isnan(value):
            kappas.append(value)
            counts.append(len(shared))
    return float(np.average(kappas, weights=counts)) if kappas else None


@settings(max_examples=40, deadline=None)
@given(designs, st.sampled_from(["none", "quadratic"]), st.sampled_from(["nominal", "ordinal", "interval"]))
def test_every_replicate_is_the_statistic_of_its_resample(design, weights, level):
    # Items in first-seen order are the design's rows, so resample r draws the same rows here.
    design = [row for row in design if any(label is not None for label in row)]
    if len(design) < 2:
        return
    n_resamples, seed = 8, 7
    scale = sorted({label for row in design for label in row if label is not None})
    intervals = bootstrap_agreement(
        triples_of(design), resamples=n_resamples, seed=seed, weights=weights, level=level
    )
    for r, drawn in enumerate(resampled_items(len(design), n_resamples, seed)):
        again = resample(design, drawn.tolist())
        triples = triples_of(again)
        fleiss = fleiss_kappa(triples).value
        # The label scale (which labels, their positions for weighted kappa) stays the data's.
        cohen = mean_cohen_with_sklearn(again, drawn.tolist(), scale, weights)
        matrix = np.array([[np.nan if row[w] is None else row[w] for row in again] for w in range(4)], float)
        pairable = np.sum(~np.isnan(matrix), axis=0) >= 2
        values = matrix[:, pairable]
        if pairable.any() and len(np.unique(values[~np.isnan(values)])) >= 2:
            alpha = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
        else:
            alpha = None
        for name, expected in (
            ("fleiss_kappa", fleiss),
            ("cohen_kappa_mean", cohen),
            ("krippendorff_alpha", alpha),
        ):
            replicate = intervals[name].replicates[r]
            if expected is None or math.isnan(expected):
                assert math.isnan(replicate), (name, r)
            else:
                assert replicate == pytest.approx(expected, abs=1e-9), (name, r)


@pytest.mark.parametrize("workers", [8, 60])
def test_the_interval_contains_the_estimate_and_repeats_for_a_seed(workers):
    # 60 annotators, 4 per item: most pairs share one or two items, the sparse crowd case.
    triples = simulate(300, workers=workers)
    intervals = bootstrap_agreement(triples, resamples=300, seed=1)
    estimates = {
        "fleiss_kappa": fleiss_kappa(triples).value,
        "cohen_kappa_mean": cohen_kappa_pairs(triples).mean,
        "krippendorff_alpha": krippendorff_alpha(triples).value,
    }
    for name, estimate in estimates.items():
        interval = intervals[name]
        assert interval.low < estimate < interval.high, name
        assert interval.defined == interval.resamples == 300
        assert interval.high - interval.low < 0.2
    again = bootstrap_agreement(triples, resamples=300, seed=1)
    assert all(np.array_equal(again[name].replicates, intervals[name].replicates) for name in estimates)
    other = bootstrap_agreement(triples, resamples=300, seed=2)
    assert other["fleiss_kappa"].low != intervals["fleiss_kappa"].low


def test_more_items_give_a_narrower_interval():
    small = bootstrap_agreement(simulate(100, seed=3), resamples=200)
    large = bootstrap_agreement(simulate(1600, seed=3), resamples=200)
    for name in small:
        # The width shrinks like 1/√items: 16 times the items, about a quarter of the width.
        ratio = (large[name].high - large[name].low) / (small[name].high - small[name].low)
        assert 0.1 < ratio < 0.5, (name, ratio)


def test_a_single_label_leaves_every_replicate_undefined():
    triples = [(item, worker, "yes") for item in range(5) for worker in "ab"]
    intervals = bootstrap_agreement(triples, resamples=20)
    assert all(interval.low is None and interval.defined == 0 for interval in intervals.values())


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match="resamples"):
        bootstrap_agreement([(1, "a", 0)], resamples=0)
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_agreement([(1, "a", 0)], confidence=95)
    with pytest.raises(ValueError, match="unknown statistics"):
        bootstrap_agreement([(1, "a", 0)], statistics=("gwet",))
