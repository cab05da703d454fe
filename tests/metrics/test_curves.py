"""ROC/AUC and DET against scikit-learn; Q-Q points against statsmodels' ProbPlot."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import det_curve as sk_det_curve
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve
from statsmodels.graphics.gofplots import ProbPlot

from evaluation.metrics.curves import det_curve, qq_against_distribution, qq_two_samples, roc_curve

labelled_scores = st.lists(
    st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0]), st.integers(0, 1)),
    min_size=2,
    max_size=80,
).filter(lambda pairs: 0 < sum(label for _, label in pairs) < len(pairs))


@settings(max_examples=300, deadline=None)
@given(labelled_scores)
def test_roc_points_and_auc_equal_scikit_learn_with_ties(pairs):
    scores, labels = zip(*pairs, strict=True)
    ours = roc_curve(scores, labels)
    fpr, tpr, thresholds = sk_roc_curve(labels, scores, drop_intermediate=False)
    np.testing.assert_allclose(ours.false_positive_rate, fpr)
    np.testing.assert_allclose(ours.true_positive_rate, tpr)
    np.testing.assert_array_equal(ours.thresholds[1:], thresholds[1:])
    assert ours.auc == pytest.approx(roc_auc_score(labels, scores))


@settings(max_examples=200, deadline=None)
@given(labelled_scores)
def test_det_points_include_every_scikit_learn_point(pairs):
    scores, labels = zip(*pairs, strict=True)
    ours = det_curve(scores, labels)
    fpr, fnr, _ = sk_det_curve(labels, scores)
    points = set(zip(np.round(ours.false_alarm_rate, 12), np.round(ours.miss_rate, 12), strict=True))
    for point in zip(np.round(fpr, 12), np.round(fnr, 12), strict=True):
        assert point in points
    finite = np.isfinite(ours.miss_deviate)
    np.testing.assert_allclose(ours.miss_deviate[finite], stats.norm.ppf(ours.miss_rate[finite]))


def test_a_perfect_ranking_has_auc_one_and_a_reversed_one_zero():
    assert roc_curve([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]).auc == 1.0
    assert roc_curve([0.1, 0.2, 0.8, 0.9], [1, 1, 0, 0]).auc == 0.0


def test_bad_input_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="at least one positive and one negative"):
        roc_curve([0.1, 0.2], [1, 1])
    with pytest.raises(ValueError, match="0 \\(negative\\) or 1"):
        roc_curve([0.1, 0.2], [1, 2])


def test_qq_against_a_normal_equals_probplot():
    sample = np.random.default_rng(3).gamma(2.0, size=57)
    ours = qq_against_distribution(sample)
    plot = ProbPlot(sample, dist=stats.norm, fit=True)
    np.testing.assert_allclose(ours.x, plot.theoretical_quantiles)
    np.testing.assert_allclose(ours.y, plot.sample_quantiles)


@pytest.mark.parametrize(("n_sample", "n_reference"), [(40, 40), (25, 60), (60, 25)])
def test_qq_two_samples_equals_probplot_qqplot_data(n_sample, n_reference):
    rng = np.random.default_rng(n_sample * n_reference)
    sample, reference = rng.normal(size=n_sample), rng.exponential(size=n_reference)
    ours = qq_two_samples(sample, reference)
    smaller, larger = (sample, reference) if n_sample <= n_reference else (reference, sample)
    figure = ProbPlot(smaller).qqplot(other=ProbPlot(larger))
    x, y = figure.axes[0].lines[0].get_data()
    import matplotlib.pyplot as plt

    plt.close(figure)
    # statsmodels puts the larger sample on x; ours puts the reference on x.
    if n_sample <= n_reference:
        np.testing.assert_allclose(ours.x, x)
        np.testing.assert_allclose(ours.y, y)
    else:
        np.testing.assert_allclose(ours.y, x)
        np.testing.assert_allclose(ours.x, y)


def test_precision_recall_curve_equals_trec_eval_for_topic_301(data_set):
    from evaluation.metrics.curves import precision_recall_curve
    from evaluation.metrics.trec.files import read_qrels, read_run, trec_order

    directory = data_set("trec_eval_tests")
    qrels = read_qrels(directory / "qrels.test")["301"]
    run, _ = read_run(directory / "results.test")
    curve = precision_recall_curve(trec_order(run["301"]), {d for d, rel in qrels.items() if rel >= 1})
    expected = {}
    for line in (directory / "out.test.aq").read_text().splitlines():
        name, qid, value = (field.strip() for field in line.split("\t"))
        if qid == "301" and name.startswith("iprec_at_recall_"):
            expected[float(name.rsplit("_", 1)[1])] = float(value)
    assert [round(p, 4) for p in curve.interpolated_precision] == [expected[r] for r in curve.recall_points]
    assert len(curve.precision) == 71 and curve.recall[-1] == pytest.approx(71 / 474)


def test_precision_recall_curve_worked_example():
    from evaluation.metrics.curves import precision_recall_curve

    # Relevant at ranks 1, 3 and 6 of 3 relevant: precision 1, 2/3, 1/2 at recall 1/3, 2/3, 1.
    curve = precision_recall_curve(["a", "x", "b", "y", "z", "c"], {"a", "b", "c"})
    np.testing.assert_allclose(curve.precision, [1, 2 / 3, 1 / 2])
    np.testing.assert_allclose(curve.recall, [1 / 3, 2 / 3, 1])
    assert curve.interpolated_precision[0] == 1.0
    assert curve.interpolated_precision[10] == pytest.approx(0.5)


def test_roc_averaged_over_topics_is_fawcetts_vertical_average():
    from evaluation.metrics.curves import averaged_det_curve, topic_averaged_roc

    rng = np.random.default_rng(3)
    topics = []
    for _ in range(25):
        n = int(rng.integers(3, 30))
        labels = (rng.random(n) < 0.35).astype(int)
        topics.append((np.round(rng.normal(labels * 0.8, 1.0, n), 1), labels))
    averaged = topic_averaged_roc(topics)
    usable = [(scores, labels) for scores, labels in topics if 0 < labels.sum() < len(labels)]
    assert averaged.topics == len(usable)
    assert averaged.auc == pytest.approx(
        np.mean([roc_auc_score(labels, scores) for scores, labels in usable])
    )
    # The area under the averaged curve is the mean area (up to the grid's resolution).
    assert np.trapezoid(averaged.true_positive_rate, averaged.false_positive_rate) == pytest.approx(
        averaged.auc, abs=2e-3
    )
    assert (averaged.false_positive_rate[0], averaged.true_positive_rate[0]) == (0.0, 0.0)
    assert averaged.true_positive_rate[-1] == pytest.approx(1.0)
    assert np.all(np.diff(averaged.true_positive_rate) >= -1e-12)
    det = averaged_det_curve(averaged)
    np.testing.assert_allclose(det.miss_rate, 1 - averaged.true_positive_rate)


def test_scores_of_different_topics_are_never_compared():
    """Two topics each ranked perfectly, on different score scales: per topic the AUC is 1; one
    threshold over both topics' scores would call the run's ranking mediocre."""
    from evaluation.metrics.curves import topic_averaged_roc

    high = ([10.0, 9.0, 8.0], [1, 1, 0])
    low = ([3.0, 2.0, 1.0], [1, 1, 0])
    assert topic_averaged_roc([high, low]).auc == 1.0
    pooled = roc_curve([*high[0], *low[0]], [*high[1], *low[1]])
    assert pooled.auc < 1.0
    with pytest.raises(ValueError, match="no topic"):
        topic_averaged_roc([([1.0, 2.0], [1, 1])])
