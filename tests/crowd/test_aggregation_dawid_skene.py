"""Dawid–Skene: order independence, gold clamping and initial confusion matrices.

Cases ported from crowd-kit's tests/aggregation/test_ds_aggregation.py (the toy YSDA set of its
conftest.py and ``test_dawid_skene_overlap``), with its expected values.
"""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from crowdkit.aggregation import DawidSkene

from annotation.crowd.aggregation.cross_fit import cross_fitted_accuracy
from annotation.crowd.aggregation.dawid_skene import dawid_skene

TOY = [
    ("t1", "w1", "no"), ("t2", "w1", "yes"), ("t3", "w1", "yes"), ("t4", "w1", "yes"), ("t5", "w1", "yes"),
    ("t1", "w2", "yes"), ("t2", "w2", "yes"), ("t3", "w2", "no"), ("t4", "w2", "yes"), ("t5", "w2", "no"),
    ("t2", "w3", "yes"), ("t3", "w3", "no"), ("t4", "w3", "yes"), ("t5", "w3", "no"),
    ("t1", "w4", "yes"), ("t2", "w4", "no"), ("t3", "w4", "yes"), ("t4", "w4", "yes"), ("t5", "w4", "no"),
    ("t1", "w5", "no"), ("t2", "w5", "no"), ("t3", "w5", "no"), ("t4", "w5", "yes"), ("t5", "w5", "no"),
]  # fmt: skip
TOY_TRUTH = {"t1": "yes", "t2": "yes", "t3": "no", "t4": "yes", "t5": "no"}
TOY_GOLD = {"t1": "yes", "t2": "yes"}
SETTINGS = [(10, 0.0), (100500, 1e-5)]  # crowd-kit's (n_iter, tol) pairs


def overlap_design(overlap):
    return [
        (task, annotator, "yes" if (annotator - task) % 3 else "no")
        for annotator in range(overlap)
        for task in range(3)
    ]


@pytest.mark.parametrize("overlap", [3, 300, 30_000])
def test_symmetric_data_give_the_symmetric_answer(overlap):
    """crowd-kit's test_dawid_skene_overlap: every task "yes" with P(no) = 1/3, priors (1/3, 2/3)."""
    result = dawid_skene(overlap_design(overlap), max_iterations=20)
    assert result.labels == {0: "yes", 1: "yes", 2: "yes"}
    assert result.model["classes"] == ["no", "yes"]
    np.testing.assert_allclose(result.model["posterior"], [[1 / 3, 2 / 3]] * 3, atol=0.005)
    np.testing.assert_allclose(result.model["priors"], [1 / 3, 2 / 3], atol=0.005)


@pytest.mark.parametrize("overlap", [3, 300, 30_000])
def test_shuffled_rows_give_identical_results(overlap):
    rows = overlap_design(overlap)
    reference = dawid_skene(rows)
    for seed in range(5):
        shuffled = rows[:]
        random.Random(seed).shuffle(shuffled)
        result = dawid_skene(shuffled)
        assert result.labels == reference.labels
        assert result.confidence == reference.confidence
        np.testing.assert_array_equal(result.model["posterior"], reference.model["posterior"])


def test_shuffled_rows_of_random_data_give_bit_identical_posteriors():
    rng = np.random.default_rng(3)
    rows = [
        (f"i{i}", f"a{a}", int(rng.integers(0, 3)))
        for i in range(200)
        for a in rng.choice(20, 4, replace=False)
    ]
    reference = dawid_skene(rows)
    for seed in range(3):
        shuffled = rows[:]
        random.Random(seed).shuffle(shuffled)
        result = dawid_skene(shuffled)
        np.testing.assert_array_equal(result.model["posterior"], reference.model["posterior"])
        assert result.parameters["iterations"] == reference.parameters["iterations"]


def test_smoothing_no_longer_creates_confidence_the_data_do_not_carry():
    # Before: smoothing 0.01 labelled one task "no" with confidence 1.0 at 300 annotators.
    result = dawid_skene(overlap_design(300))
    assert max(result.confidence.values()) < 0.67


@pytest.mark.parametrize(("max_iterations", "tolerance"), SETTINGS)
def test_toy_ysda(max_iterations, tolerance):
    assert dawid_skene(TOY, max_iterations=max_iterations, tolerance=tolerance).labels == TOY_TRUTH


@pytest.mark.parametrize(("max_iterations", "tolerance"), SETTINGS)
def test_toy_ysda_with_gold(max_iterations, tolerance):
    assert (
        dawid_skene(TOY, max_iterations=max_iterations, tolerance=tolerance, gold=TOY_GOLD).labels
        == TOY_TRUTH
    )


@pytest.mark.parametrize("max_iterations", [0, 1, 2])
def test_gold_items_keep_their_gold_label_with_probability_one(max_iterations):
    """crowd-kit's test_ds_gold_probas_correction_with_iters."""
    result = dawid_skene(TOY, max_iterations=max_iterations, gold=TOY_GOLD)
    for item, label in TOY_GOLD.items():
        assert result.labels[item] == label
        assert result.confidence[item] == pytest.approx(1.0, abs=1e-8)
    np.testing.assert_allclose(result.model["posterior"].sum(axis=1), 1.0, atol=1e-8)
    assert result.parameters["gold_items_clamped"] == 2


def zero_matrices(annotators=("w1", "w2", "w3", "w4", "w5")):
    return {a: {true: {given: 0.0 for given in ("no", "yes")} for true in ("no", "yes")} for a in annotators}


@pytest.mark.parametrize(("max_iterations", "tolerance"), SETTINGS)
def test_zero_initial_counts_added_change_nothing(max_iterations, tolerance):
    for matrices in (zero_matrices(), zero_matrices(("w1", "w2", "w3"))):  # full and partial
        result = dawid_skene(
            TOY, max_iterations=max_iterations, tolerance=tolerance, initial_confusion=matrices
        )
        assert result.labels == TOY_TRUTH


def test_assigning_zero_or_partial_matrices_is_refused():
    with pytest.raises(ValueError, match="must sum to 1"):
        dawid_skene(TOY, initial_confusion=zero_matrices(), initial_strategy="assign")
    with pytest.raises(ValueError, match="every annotator"):
        dawid_skene(TOY, initial_confusion=zero_matrices(("w1", "w2")), initial_strategy="assign")


@pytest.mark.parametrize(("max_iterations", "tolerance"), SETTINGS)
def test_an_almost_right_history_keeps_the_answer(max_iterations, tolerance):
    matrices = zero_matrices()
    matrices["w2"] = {"no": {"no": 99, "yes": 1}, "yes": {"no": 1, "yes": 99}}
    assert (
        dawid_skene(
            TOY, max_iterations=max_iterations, tolerance=tolerance, initial_confusion=matrices
        ).labels
        == TOY_TRUTH
    )


@pytest.mark.parametrize(("max_iterations", "tolerance"), SETTINGS)
def test_assigning_the_fitted_matrices_keeps_the_answer(max_iterations, tolerance):
    fitted = dawid_skene(TOY, max_iterations=max_iterations, tolerance=tolerance)
    classes = fitted.model["classes"]
    matrices = {
        annotator: {
            true: dict(zip(classes, row.tolist(), strict=True))
            for true, row in zip(classes, matrix, strict=True)
        }
        for annotator, matrix in zip(fitted.model["annotators"], fitted.model["confusion"], strict=True)
    }
    result = dawid_skene(
        TOY,
        max_iterations=max_iterations,
        tolerance=tolerance,
        initial_confusion=matrices,
        initial_strategy="assign",
    )
    assert result.labels == TOY_TRUTH


@pytest.mark.parametrize(("max_iterations", "tolerance"), SETTINGS)
def test_added_history_can_turn_a_label(max_iterations, tolerance):
    """crowd-kit's test_addition_desired_label_on_toy_ysda: t2 becomes "no"."""
    matrices = zero_matrices()
    for annotator, given in (("w1", "yes"), ("w2", "yes"), ("w3", "yes"), ("w4", "no"), ("w5", "no")):
        matrices[annotator]["no"][given] = 99
    result = dawid_skene(TOY, max_iterations=max_iterations, tolerance=tolerance, initial_confusion=matrices)
    assert result.labels["t2"] == "no"


@pytest.mark.parametrize(("max_iterations", "tolerance"), SETTINGS)
def test_assigned_matrices_can_turn_a_label(max_iterations, tolerance):
    """crowd-kit's test_assign_desired_label_on_toy_ysda: t2 becomes "no"."""
    matrices = {
        a: {"no": {"no": 0.5, "yes": 0.5}, "yes": {"no": 0.5, "yes": 0.5}}
        for a in ("w1", "w2", "w3", "w4", "w5")
    }
    for annotator, given in (("w1", "yes"), ("w2", "yes"), ("w3", "yes"), ("w4", "no"), ("w5", "no")):
        other = "no" if given == "yes" else "yes"
        matrices[annotator]["no"] = {given: 0.99, other: 0.01}
    result = dawid_skene(
        TOY,
        max_iterations=max_iterations,
        tolerance=tolerance,
        initial_confusion=matrices,
        initial_strategy="assign",
    )
    assert result.labels["t2"] == "no"


def generated(seed, n_items=400, pool=25, classes=3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, n_items)
    skill = rng.uniform(0.3, 0.95, pool)
    rows = []
    for item in range(n_items):
        for annotator in rng.choice(pool, 5, replace=False):
            right = rng.random() < skill[annotator]
            rows.append((item, int(annotator), int(truth[item]) if right else int(rng.integers(0, classes))))
    return rows, dict(enumerate(truth.tolist()))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equal_to_crowd_kit_with_and_without_gold(seed):
    """Labels equal, posteriors within 1e-6: crowd-kit clips posteriors at 1e-10 in place and
    sums in another order, nothing else differs."""
    rows, truth = generated(seed)
    frame = pd.DataFrame(rows, columns=["task", "worker", "label"])
    gold = {item: truth[item] for item in list(truth)[::4]}
    for known in (None, gold):
        kit = DawidSkene(n_iter=100)
        kit.fit(frame, true_labels=None if known is None else pd.Series(known))
        ours = dawid_skene(frame, gold=known)
        assert ours.labels == kit.labels_.to_dict()
        expected = kit.probas_.loc[ours.model["items"], ours.model["classes"]].to_numpy()
        np.testing.assert_allclose(ours.model["posterior"], expected, atol=1e-6)
        assert ours.parameters["iterations"] == len(kit.loss_history_)


def test_initial_matrices_equal_crowd_kit():
    rows, _ = generated(7)
    frame = pd.DataFrame(rows, columns=["task", "worker", "label"])
    history = {
        a: {t: {g: float((t == g) * 8 + 1) for g in range(3)} for t in range(3)} for a in range(0, 25, 2)
    }
    index = pd.MultiIndex.from_tuples([(a, g) for a in history for g in range(3)], names=["worker", "label"])
    table = pd.DataFrame(
        [[history[a][t][g] for t in range(3)] for a, g in index], index=index, columns=[0, 1, 2]
    )
    kit = DawidSkene(n_iter=100, initial_error_strategy="addition").fit(frame, initial_error=table)
    ours = dawid_skene(frame, initial_confusion=history)
    assert ours.labels == kit.labels_.to_dict()
    expected = kit.probas_.loc[ours.model["items"], ours.model["classes"]].to_numpy()
    np.testing.assert_allclose(ours.model["posterior"], expected, atol=1e-6)


def test_cross_fitting_scores_each_gold_item_with_its_own_gold_held_out():
    rows, truth = generated(11)
    seen = []

    def spy(data, known):
        seen.append(set(known))
        return dawid_skene(data, gold=known)

    result = cross_fitted_accuracy(rows, truth, spy, folds=4, seed=0)
    assert len(seen) == 4 and all(len(known) == 300 for known in seen)
    assert set(result.labels) == set(truth)
    held_out = [set(truth) - known for known in seen]
    assert set().union(*held_out) == set(truth) and sum(map(len, held_out)) == len(truth)
    plain = dawid_skene(rows)
    assert result.accuracy >= sum(plain.labels[i] == truth[i] for i in truth) / len(truth) - 0.02
