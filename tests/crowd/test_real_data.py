"""Aggregation and agreement on the real crowd data sets with gold, next to crowd-kit and the papers.

Figures (see each PROVENANCE.md): RTE majority vote 0.9187 with ties to label 0 and 0.8750 with ties
to 1 (65 of 800 items are 5–5 ties); crowd-kit Dawid–Skene RTE 0.9275; D_Product MV 0.897, DS 0.940
(crowd-kit JOSS paper). Our Dawid–Skene must be at least as accurate as crowd-kit's on every set.
"""

from __future__ import annotations

import pandas as pd
import pytest
from crowdkit.aggregation import MMSR, DawidSkene, MajorityVote

from annotation.crowd.aggregation.cross_fit import cross_fitted_accuracy
from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.aggregation.gold_weighted import gold_weighted_vote
from annotation.crowd.aggregation.majority_vote import majority_vote
from annotation.crowd.aggregation.methods import GOLD_METHODS, METHODS, aggregate_by_name
from annotation.crowd.agreement.fleiss import fleiss_kappa
from annotation.crowd.agreement.krippendorff import krippendorff_alpha
from annotation.crowd.io.encoding import encode
from annotation.crowd.io.labels import read_gold, read_labels

SETS = {
    "rte": ("crowd_snow2008/rte_labels.csv", "crowd_snow2008/rte_gold.csv"),
    "temp": ("crowd_snow2008/temp_labels.csv", "crowd_snow2008/temp_gold.csv"),
    "wsd": ("crowd_snow2008/wsd_labels.csv", "crowd_snow2008/wsd_gold.csv"),
    "duck": ("crowd_zheng2017/duck_bluebirds/labels.csv", "crowd_zheng2017/duck_bluebirds/gold.csv"),
    "dog": ("crowd_zheng2017/dog/labels.csv", "crowd_zheng2017/dog/gold.csv"),
    "face": ("crowd_zheng2017/face_sentiment/labels.csv", "crowd_zheng2017/face_sentiment/gold.csv"),
    "product": ("crowd_zheng2017/product/labels.csv", "crowd_zheng2017/product/gold.csv"),
}


def load(data_set, name):
    labels_path, gold_path = SETS[name]
    root = data_set(labels_path.split("/")[0]).parent  # the shipped or the shared data folder
    return list(read_labels(root / labels_path)), read_gold(root / gold_path)


def accuracy(predicted, gold):
    scored = [item for item in gold if item in predicted]
    return sum(predicted[item] == gold[item] for item in scored) / len(scored)


@pytest.mark.parametrize("name", list(SETS))
def test_dawid_skene_is_at_least_as_accurate_as_crowd_kit(data_set, name):
    labels, gold = load(data_set, name)
    ours = accuracy(dawid_skene(labels).labels, gold)
    frame = pd.DataFrame(labels, columns=["task", "worker", "label"])
    theirs = accuracy(DawidSkene(n_iter=100).fit_predict(frame).to_dict(), gold)
    assert ours >= theirs - 1e-12, (name, ours, theirs)
    assert ours >= accuracy(majority_vote(labels).labels, gold) - 0.005


def test_published_figures_on_rte_and_product(data_set):
    rte, rte_gold = load(data_set, "rte")
    assert round(accuracy(majority_vote(rte, tie_rule="smallest").labels, rte_gold), 4) == 0.9187
    assert round(accuracy(majority_vote(rte, tie_rule="largest").labels, rte_gold), 4) == 0.8750
    assert len(majority_vote(rte).ties) == 65
    assert round(accuracy(dawid_skene(rte).labels, rte_gold), 4) == 0.9275
    product, product_gold = load(data_set, "product")
    assert round(accuracy(majority_vote(product).labels, product_gold), 3) == 0.897
    assert round(accuracy(dawid_skene(product).labels, product_gold), 3) == 0.940


def test_gold_weighted_vote_learns_from_half_the_gold(data_set):
    labels, gold = load(data_set, "duck")
    items = sorted(gold)
    known, held_out = dict.fromkeys(items[::2]), items[1::2]
    result = gold_weighted_vote(labels, {item: gold[item] for item in known})
    vote = majority_vote(labels)
    held = {item: gold[item] for item in held_out}
    assert accuracy(result.labels, held) > accuracy(vote.labels, held)
    assert all(0 <= c <= 1 for c in result.confidence.values())


def test_agreement_figures_on_real_data(data_set):
    # PROVENANCE: Fleiss' kappa product 0.1574, dog 0.5194, WSD 0.9372; face alpha (nominal) 0.4949.
    for name, expected in (("product", 0.1574), ("dog", 0.5194), ("wsd", 0.9372)):
        labels, _ = load(data_set, name)
        assert round(fleiss_kappa(labels).value, 4) == expected
    face, _ = load(data_set, "face")
    assert round(krippendorff_alpha(face).value, 4) == 0.4949
    fleiss = fleiss_kappa(face)
    assert fleiss.n_items_excluded > 0  # face has unequal ratings per item: the rule applies and says so


@pytest.mark.parametrize("name", list(SETS))
def test_crowd_kits_majority_vote_differs_from_ours_only_on_the_ties_we_list(data_set, name):
    labels, _ = load(data_set, name)
    ours = majority_vote(labels)
    theirs = MajorityVote().fit_predict(pd.DataFrame(labels, columns=["task", "worker", "label"])).to_dict()
    assert {item for item in ours.labels if ours.labels[item] != theirs[item]} <= set(ours.ties)


@pytest.mark.parametrize("name", list(SETS))
def test_gold_weighted_vote_on_held_out_gold_is_at_least_as_accurate_as_majority_vote(data_set, name):
    """Two-fold: each half of the gold items is labelled with weights learnt from the other half's
    gold only: the benchmark's scheme, with an alternating split instead of a seeded random one."""
    labels, gold = load(data_set, name)
    items = sorted(gold)
    halves = (items[::2], items[1::2])
    right = 0
    for scored, known in (halves, halves[::-1]):
        result = gold_weighted_vote(labels, {item: gold[item] for item in known})
        right += sum(result.labels[item] == gold[item] for item in scored)
    assert right / len(items) >= accuracy(majority_vote(labels).labels, gold)


# -- every aggregation method (issue 11) -----------------------------------------------------------

# crowd-kit 1.4.2's accuracy on each set, as ``benchmarks/bench_crowd.py --methods`` measured it
# (same DataFrame, rows in file order; MACE with one restart, which equals its ten: they share one
# seed; Wawa and ZBS through their weighted vote, as their predict does). Dawid–Skene is also
# checked live above.
KIT_METHODS = (
    "majority",
    "dawid-skene",
    "one-coin-dawid-skene",
    "glad",
    "mace",
    "mmsr",
    "wawa",
    "zero-based-skill",
    "gold-dawid-skene",
)  # gold-dawid-skene: crowd-kit's DS with true_labels, 10-fold
CROWD_KIT = {
    "rte": dict(
        zip(KIT_METHODS, (0.875, 0.9275, 0.925, 0.925, 0.925, 0.8575, 0.9187, 0.9213, 0.9225), strict=True)
    ),
    "temp": dict(
        zip(
            KIT_METHODS, (0.9394, 0.9416, 0.9394, 0.9351, 0.9394, 0.9242, 0.9437, 0.9437, 0.9394), strict=True
        )
    ),
    "wsd": dict(
        zip(
            KIT_METHODS, (0.9944, 0.9944, 0.9944, 0.9944, 0.9944, 0.9944, 0.9944, 0.9944, 0.9944), strict=True
        )
    ),
    "duck": dict(
        zip(KIT_METHODS, (0.7593, 0.8889, 0.5833, 0.7222, 0.8056, 0.713, 0.7593, 0.7593, 0.8889), strict=True)
    ),
    "dog": dict(
        zip(KIT_METHODS, (0.8116, 0.8426, 0.8302, 0.834, 0.8302, 0.8278, 0.829, 0.8302, 0.8476), strict=True)
    ),
    "face": dict(
        zip(
            KIT_METHODS, (0.6336, 0.6404, 0.6113, 0.6301, 0.6353, 0.6301, 0.6301, 0.6301, 0.6815), strict=True
        )
    ),
    # M-MSR fails on product in crowd-kit too ("Skill value is missing"), so it has no figure there.
    "product": dict(
        zip(
            [m for m in KIT_METHODS if m != "mmsr"],
            (0.8966, 0.9397, 0.9084, 0.9282, 0.929, 0.8966, 0.8966, 0.9405),
            strict=True,
        )
    ),
}
FOLDS_PRIMARY = 10
# Our accuracy per method (rounded to 4 places; gold-dawid-skene: 10-fold cross-fitted, seed 0).
OURS = {
    "rte": {
        "majority": 0.9187,
        "dawid-skene": 0.9275,
        "one-coin-dawid-skene": 0.925,
        "glad": 0.925,
        "mace": 0.9263,
        "mmsr": 0.8575,
        "wawa": 0.9213,
        "zero-based-skill": 0.9213,
        "gold-dawid-skene": 0.9225,
    },
    "temp": {
        "majority": 0.9394,
        "dawid-skene": 0.9416,
        "one-coin-dawid-skene": 0.9394,
        "glad": 0.9351,
        "mace": 0.9416,
        "mmsr": 0.9242,
        "wawa": 0.9437,
        "zero-based-skill": 0.9437,
        "gold-dawid-skene": 0.9394,
    },
    "wsd": {
        "majority": 0.9944,
        "dawid-skene": 0.9944,
        "one-coin-dawid-skene": 0.9944,
        "glad": 0.9944,
        "mace": 0.9944,
        "mmsr": 0.9944,
        "wawa": 0.9944,
        "zero-based-skill": 0.9944,
        "gold-dawid-skene": 0.9944,
    },
    "duck": {
        "majority": 0.7593,
        "dawid-skene": 0.8889,
        "one-coin-dawid-skene": 0.5833,
        "glad": 0.7222,
        "mace": 0.8611,
        "mmsr": 0.713,
        "wawa": 0.7593,
        "zero-based-skill": 0.7593,
        "gold-dawid-skene": 0.8889,
    },
    "dog": {
        "majority": 0.8178,
        "dawid-skene": 0.8426,
        "one-coin-dawid-skene": 0.8302,
        "glad": 0.834,
        "mace": 0.8302,
        "mmsr": 0.8278,
        "wawa": 0.829,
        "zero-based-skill": 0.8302,
        "gold-dawid-skene": 0.8476,
    },
    "face": {
        "majority": 0.6301,
        "dawid-skene": 0.6404,
        "one-coin-dawid-skene": 0.6113,
        "glad": 0.6301,
        "mace": 0.6438,
        "mmsr": 0.6301,
        "wawa": 0.6301,
        "zero-based-skill": 0.6301,
        "gold-dawid-skene": 0.6815,
    },
    "product": {
        "majority": 0.8966,
        "dawid-skene": 0.9397,
        "one-coin-dawid-skene": 0.9084,
        "glad": 0.9282,
        "mace": 0.828,
        "wawa": 0.8966,
        "zero-based-skill": 0.8966,
        "gold-dawid-skene": 0.9405,
    },
}


def cross_fitted_gold_dawid_skene(labels, gold, folds):
    return cross_fitted_accuracy(
        labels, gold, lambda data, known: dawid_skene(data, gold=known), folds=folds
    ).accuracy


def every_method(labels):
    """Every method without gold; M-MSR diverges on D_Product (as crowd-kit's does): left out there."""
    results = {}
    for name in METHODS:
        if name in GOLD_METHODS:
            continue
        try:
            results[name] = aggregate_by_name(labels, name)
        except ValueError:
            assert name == "mmsr"
    return results


@pytest.mark.parametrize("name", list(SETS))
def test_our_best_method_is_at_least_as_accurate_as_crowd_kits_best(data_set, name):
    labels, gold = load(data_set, name)
    data = encode(labels)
    results = every_method(data)
    ours = {method: accuracy(result.labels, gold) for method, result in results.items()}
    ours["gold-dawid-skene"] = cross_fitted_gold_dawid_skene(data, gold, FOLDS_PRIMARY)
    # crowd-kit's figures are recorded to 4 places: compare at 4 places.
    assert round(max(ours.values()), 4) >= max(CROWD_KIT[name].values()), (name, ours, CROWD_KIT[name])
    assert set(ours) == set(OURS[name])
    known_items = set(data.items)
    scored = [item for item in gold if item in known_items]
    for method, expected in OURS[name].items():
        # An item the method calls within 0.01 of an even split goes either way with the order of
        # floating-point sums (GLAD's item 1623 on RTE, 0.503, flips with the CPU or the row order):
        # each such item may move the accuracy by one item, no more. Exact ties (0.5) follow a fixed
        # rule and are not excused.
        confidence = results[method].confidence if method in results else {}
        near = [item for item in scored if 0.5 < confidence.get(item, 0.5) < 0.51]
        slack = len(near) / len(scored) + 5e-5
        assert abs(ours[method] - expected) <= slack, (name, method, ours[method], near)


@pytest.mark.parametrize("folds", [2, 10])
def test_gold_dawid_skene_with_cross_fitted_gold_beats_plain_dawid_skene_on_three_sets(data_set, folds):
    """Every gold item is scored by a run that clamped only the other folds' gold (seed 0)."""
    wins = []
    for name in SETS:
        labels, gold = load(data_set, name)
        data = encode(labels)
        plain = accuracy(dawid_skene(data).labels, gold)
        if cross_fitted_gold_dawid_skene(data, gold, folds) > plain:
            wins.append(name)
    assert len(wins) >= 3, wins


@pytest.mark.parametrize("name", ["temp", "rte"])
def test_mmsr_skills_equal_crowd_kits_on_real_data(data_set, name):
    """TEMP has annotators whose estimate reaches 0, so crowd-kit divides 0 by 0 and keeps the NaN
    in its trimmed columns; ours must trim exactly as it does (skills equal to 1e-9)."""
    labels, _ = load(data_set, name)
    frame = pd.DataFrame(labels, columns=["task", "worker", "label"])
    ours = aggregate_by_name(frame, "mmsr")
    kit = MMSR().fit(frame)
    skills = kit.skills_.loc[ours.model["annotators"]].to_numpy()
    assert abs(skills - ours.model["skills"]).max() < 1e-9
    assert ours.labels == kit.predict(frame).to_dict()


def test_mmsr_fails_on_d_product_as_crowd_kits_does(data_set):
    """176 annotators, most pairs sharing no item: F = 0, nothing is trimmed, a 0/0 spreads NaN."""
    labels, _ = load(data_set, "product")
    with pytest.raises(ValueError, match="M-MSR diverged"):
        aggregate_by_name(labels, "mmsr")
    # crowd-kit's MMSR fails there too ("Skill value is missing in 24945 assignments"), after its
    # 10,000 Python-loop iterations (minutes): measured by benchmarks/bench_crowd.py --methods.
