"""Agreement figures explained: PABAK and Byrt et al.'s indices by hand and against statsmodels,
mean Cohen's kappa weighted by shared items by hand, the product's minimum overlap and interval
minimum in the summary, and the sentence that explains a low kappa."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from annotation.crowd.agreement.cohen import cohen_kappa_pairs
from annotation.crowd.agreement.prevalence import byrt_indices, explain_low_kappa, pabak, pooled_agreement
from annotation.crowd.agreement.report import agreement_summary
from annotation.crowd.minimums import ITEMS_FOR_AGREEMENT_INTERVAL, ITEMS_FOR_KAPPA


def test_pabak_and_byrts_indices_by_hand():
    """a = 80 both yes, b = 5, c = 10, d = 5 both no (n = 100): p_o = 0.85, PABAK = 2 · 0.85 − 1 =
    0.70, PI = |80 − 5| / 100 = 0.75, BI = |5 − 10| / 100 = 0.05; margins (0.85, 0.15) and (0.90,
    0.10) give p_e = 0.78 and kappa = 0.07 / 0.22 = 0.3182, which Byrt et al.'s identity
    (PABAK − PI² + BI²) / (1 − PI² + BI²) = 0.14 / 0.44 also gives."""
    table = [[80, 5], [10, 5]]
    found = byrt_indices(table)
    assert found.observed_agreement == pytest.approx(0.85)
    assert found.pabak == pytest.approx(0.70)
    assert found.prevalence_index == pytest.approx(0.75)
    assert found.bias_index == pytest.approx(0.05)
    assert cohens_kappa(np.array(table)).kappa == pytest.approx(0.07 / 0.22)
    assert (found.pabak - 0.75**2 + 0.05**2) / (1 - 0.75**2 + 0.05**2) == pytest.approx(0.07 / 0.22)
    # q categories: (q · p_o − 1) / (q − 1); three labels and 60 % agreement give 0.8 / 2.
    assert pabak(0.6, 3) == pytest.approx(0.4)
    with pytest.raises(ValueError, match="two categories"):
        pabak(0.6, 1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=4, max_size=4).filter(lambda cells: sum(cells) > 0))
def test_byrts_identity_gives_statsmodels_kappa_on_every_two_by_two_table(cells):
    table = np.array(cells, dtype=float).reshape(2, 2)
    with np.errstate(all="ignore"):
        expected = cohens_kappa(table).kappa
    found = byrt_indices(table)
    denominator = 1 - found.prevalence_index**2 + found.bias_index**2
    if np.isnan(expected):  # one label throughout: chance agreement 1
        assert denominator == pytest.approx(0)
    else:
        identity = (found.pabak - found.prevalence_index**2 + found.bias_index**2) / denominator
        assert identity == pytest.approx(expected, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 5), st.data())
def test_pabak_of_two_annotators_is_randolphs_free_marginal_kappa(q, data):
    """Two ratings per item: Randolph's P̄ is the share of items agreed on, its chance 1/q."""
    pairs = data.draw(
        st.lists(st.tuples(st.integers(0, q - 1), st.integers(0, q - 1)), min_size=1, max_size=40)
    )
    table = np.zeros((q, q))
    counts = np.zeros((len(pairs), q))
    for item, (x, y) in enumerate(pairs):
        table[x, y] += 1
        counts[item, x] += 1
        counts[item, y] += 1
    pooled = pooled_agreement(table, q)
    assert pooled is not None
    assert pooled.pabak == pytest.approx(sm_fleiss(counts, method="randolph"), abs=1e-12)


def test_the_pool_of_pairs_is_their_shared_items_together():
    """Three annotators: a-b share items 1-3 (agree on 2), a-c and b-c items 1-2 (agree on both).
    Pooled: 6 of 7 entries agree, the same as the pairs' p_o weighted by shared items,
    (3 · 2/3 + 2 + 2) / 7. Labels on both sides of the 7 entries: 0 seven times, 1 seven times."""
    triples = [
        (1, "a", 0),
        (1, "b", 0),
        (2, "a", 1),
        (2, "b", 1),
        (3, "a", 1),
        (3, "b", 0),
        (1, "c", 0),
        (2, "c", 1),
    ]
    pairs = cohen_kappa_pairs(triples)
    pooled = pooled_agreement(pairs.pooled)
    assert pooled.entries == 7 and pooled.observed_agreement == pytest.approx(6 / 7)
    assert pooled.label_shares == pytest.approx([0.5, 0.5]) and pooled.chance_agreement == pytest.approx(0.5)
    assert pooled.pabak == pytest.approx(2 * 6 / 7 - 1) and pooled.prevalence_index == pytest.approx(0)


def newcomer(items: int = 60, relevant: float = 0.08, careful: float = 0.85, seed: int = 0) -> list:
    """One annotator who is always right and two careless ones, few relevant documents."""
    rng = random.Random(seed)
    triples = []
    for item in range(items):
        truth = int(rng.random() < relevant)
        for annotator in ("perfect", "careless1", "careless2"):
            right = annotator == "perfect" or rng.random() < careful
            triples.append((item, annotator, truth if right else 1 - truth))
    return triples


def test_the_summary_weighs_pairs_by_shared_items_and_leaves_out_pairs_below_the_minimum():
    rng = random.Random(5)
    truth = [rng.randint(0, 1) for _ in range(40)]
    # a labels items 0-39, b items 0-33, c items 28-39: a-b share 34, a-c 12, b-c 6 (left out).
    triples = [(i, "a", truth[i]) for i in range(40)]
    triples += [(i, "b", truth[i] if rng.random() < 0.8 else 1 - truth[i]) for i in range(34)]
    triples += [(i, "c", truth[i] if rng.random() < 0.6 else 1 - truth[i]) for i in range(28, 40)]
    labels = {(i, x): label for i, x, label in triples}
    by_hand = {}
    for first, second in (("a", "b"), ("a", "c"), ("b", "c")):
        shared = sorted({i for i, x in labels if x == first} & {i for i, x in labels if x == second})
        table = np.zeros((2, 2))
        for i in shared:
            table[labels[(i, first)], labels[(i, second)]] += 1
        by_hand[(first, second)] = (cohens_kappa(table).kappa, len(shared))
    assert {pair: shared for pair, (_, shared) in by_hand.items()} == {
        ("a", "b"): 34,
        ("a", "c"): 12,
        ("b", "c"): 6,
    }
    report = agreement_summary(triples)
    (ab, _), (ac, _) = by_hand[("a", "b")], by_hand[("a", "c")]
    assert report["cohen_kappa_mean"] == pytest.approx((34 * ab + 12 * ac) / 46)
    assert report["cohen_kappa_mean"] != pytest.approx((ab + ac) / 2)
    assert report["cohen_kappa_pairs"] == 2 and report["cohen_kappa_min_shared"] == ITEMS_FOR_KAPPA.count
    assert report["cohen_kappa_mean_weighting"] == "shared items"


def test_the_newcomers_low_kappa_is_explained_by_prevalence_with_pabak_beside_it():
    report = agreement_summary(newcomer(), intervals=True, resamples=200)
    pooled = report["pooled_agreement"]
    assert report["cohen_kappa_mean"] < 0.4 and pooled["observed_agreement"] >= 0.7
    assert report["pabak"] == pytest.approx(2 * pooled["observed_agreement"] - 1)
    shares = {row["label"]: row["share"] for row in pooled["label_shares"]}
    assert pooled["prevalence_index"] == pytest.approx(abs(shares[0] - shares[1]), abs=1e-12)
    sentence = report["kappa_explanation"]
    assert sentence.startswith("Kappa is low although the annotators mostly agree")
    assert f"mean Cohen's kappa is {report['cohen_kappa_mean']:.2f}" in sentence
    assert (
        f"PABAK, the kappa they would have were both labels equally common, is {report['pabak']:.2f}"
        in sentence
    )
    assert "Byrt, Bishop & Carlin 1993" in sentence and "“0”" in sentence
    # The page gives the labels their names.
    named = explain_low_kappa(report, {0: "Not relevant", 1: "Relevant"})
    assert "Most labels are “Not relevant”" in named


def test_with_no_pair_sharing_ten_items_the_pool_and_the_sentence_rest_on_fleiss_kappa():
    """18 items, each judged by 2 of 3 annotators: every pair shares about 6, too few for a kappa of
    its own; the pool takes every two ratings of an item all the same, and Fleiss' kappa is low."""
    rng = random.Random(3)
    triples = []
    for item in range(18):
        truth = int(rng.random() < 0.1)
        pair = [("a", "b"), ("b", "c"), ("a", "c")][item % 3]
        for annotator in pair:
            label = truth if annotator == "a" or rng.random() < 0.8 else 1 - truth
            triples.append((item, annotator, label))
    report = agreement_summary(triples)
    assert report["cohen_kappa_mean"] is None and report["cohen_kappa_pairs"] == 0
    pooled = report["pooled_agreement"]
    assert pooled["entries"] == 18 and pooled["n_items"] == 18
    agree = sum(len({label for i, _, label in triples if i == item}) == 1 for item in range(18)) / 18
    assert pooled["observed_agreement"] == pytest.approx(agree) and report["pabak"] == pytest.approx(
        2 * agree - 1
    )
    # On items with two ratings each, the pool's kappa is Fleiss': P̄ and P̄_e are its figures.
    chance = pooled["chance_agreement"]
    assert (agree - chance) / (1 - chance) == pytest.approx(report["fleiss_kappa"])
    sentence = report["kappa_explanation"]
    assert sentence.startswith(
        "Kappa is low because the annotators disagree: they give the same label to 72%"
    )
    assert f"(Fleiss' kappa {report['fleiss_kappa']:.2f})" in sentence


def test_a_low_kappa_from_disagreement_is_said_to_be_disagreement_and_a_good_one_gets_no_sentence():
    rng = random.Random(2)
    noise = [(i, a, rng.randint(0, 1)) for i in range(80) for a in "abc"]
    sentence = agreement_summary(noise)["kappa_explanation"]
    assert sentence.startswith("Kappa is low because the annotators disagree")
    good = newcomer(relevant=0.5, careful=0.97)
    assert agreement_summary(good)["kappa_explanation"] is None
    weighted = agreement_summary(newcomer(), weights="linear")
    assert weighted["pooled_agreement"] is None and weighted["pabak"] is None
    assert weighted["kappa_explanation"] is None
    assert explain_low_kappa({"cohen_kappa_mean": 0.1, "pooled_agreement": None}) is None


def test_an_interval_needs_thirty_items_else_the_reason():
    few = agreement_summary(newcomer(items=20), intervals=True, resamples=100)
    for name in ("fleiss_kappa", "cohen_kappa_mean", "krippendorff_alpha"):
        interval = few[f"{name}_ci"]
        assert interval["low"] is None and interval["high"] is None and interval["n_items"] == 20
        assert interval["reason"] == "too few items for an interval (20; needs at least 30)"
    assert few["bootstrap"]["minimum_items"] == ITEMS_FOR_AGREEMENT_INTERVAL.count
    enough = agreement_summary(newcomer(items=40), intervals=True, resamples=100)
    for name in ("fleiss_kappa", "cohen_kappa_mean", "krippendorff_alpha"):
        interval = enough[f"{name}_ci"]
        assert -1 <= interval["low"] <= interval["high"] <= 1 and interval["reason"] is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 29), st.sampled_from("abcd"), st.integers(0, 2)), min_size=2, max_size=90
    ),
)
def test_every_kappa_interval_lies_in_minus_one_one(rows):
    triples = list({(item, annotator): (item, annotator, label) for item, annotator, label in rows}.values())
    report = agreement_summary(triples, intervals=True, resamples=60, interval_minimum=ITEMS_FOR_KAPPA)
    for name in ("fleiss_kappa", "cohen_kappa_mean"):
        interval = report[f"{name}_ci"]
        if interval["low"] is not None:
            assert -1 <= interval["low"] <= interval["high"] <= 1
    pairs = cohen_kappa_pairs(triples, statistics=True)
    for statistics in pairs.pair_statistics.values():
        if statistics.kappa_low is not None:
            assert -1 <= statistics.kappa_low <= statistics.kappa_upp <= 1
