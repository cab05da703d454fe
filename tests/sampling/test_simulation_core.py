"""The sampling simulation's pure core (``evaluation.metrics.trec.sampling_simulation``): the truth is
trec_eval's MAP (pytrec_eval) on the pool judged in full; each sample's figures are the inferred
measures' (``sample_eval``, ``stat_ap``) on the very sample ``stratified_sample`` draws; judging every
document gives back the truth and its ranking; the design spends the budget as stated."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from evaluation.metrics.trec.inferred import sample_eval
from evaluation.metrics.trec.pooling import depth_k_pool
from evaluation.metrics.trec.sample_files import SampleJudgement
from evaluation.metrics.trec.sampling import Stratum, stratified_sample
from evaluation.metrics.trec.sampling_simulation import (
    SimulationError,
    design_for_share,
    simulate,
    stat_map,
    truncated,
)
from evaluation.metrics.trust import kendall_tau


def collection(seed: int, runs: int = 5, topics: int = 6, documents: int = 80, depth: int = 40):
    """Runs of varied quality: each ranks the relevant documents higher the better it is."""
    rng = random.Random(seed)
    qrels = {
        str(t): {f"d{d}": int(rng.random() < 0.15) for d in rng.sample(range(documents), 60)}
        for t in range(1, topics + 1)
    }
    produced = {}
    for r in range(runs):
        skill = r / runs
        run = {}
        for topic, judged in qrels.items():
            scores = {f"d{d}": rng.random() + skill * judged.get(f"d{d}", 0) * 2 for d in range(documents)}
            best = sorted(scores, key=scores.get, reverse=True)[:depth]
            run[topic] = {doc: scores[doc] for doc in best}
        produced[f"run{r}"] = run
    return produced, qrels


def test_the_truth_is_trec_evals_map_on_the_pool_judged_in_full():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    runs, qrels = collection(1)
    result = simulate(runs, qrels, shares=[0.5], samples=1, depth=20, top_depth=5)
    cut = {name: truncated(run, 20) for name, run in runs.items()}
    pool = depth_k_pool(cut.values(), 20)
    judged = {t: {d: qrels[t].get(d, 0) for d in docs} for t, docs in pool.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"map"})
    for name, run in cut.items():
        per_topic = evaluator.evaluate(run)
        assert result.truth[name] == pytest.approx(statistics.fmean(v["map"] for v in per_topic.values()))
    assert result.pool_size == sum(map(len, pool.values()))
    assert result.top_size == sum(rank <= 5 for docs in pool.values() for rank in docs.values())


@pytest.mark.parametrize("seed", range(3))
def test_each_samples_figures_are_the_inferred_measures_of_that_sample(seed):
    runs, qrels = collection(seed)
    result = simulate(runs, qrels, shares=[0.3], samples=3, depth=30, top_depth=10, seed=7)
    outcome = result.shares[0]
    names = sorted(runs)
    cut = {name: truncated(run, 30) for name, run in runs.items()}
    for number in range(3):
        members = stratified_sample(cut.values(), outcome.strata, 7 + number)
        sample: dict = {}
        for m in members:
            sample.setdefault(m.topic, {})[m.docno] = SampleJudgement(
                m.stratum, qrels[m.topic].get(m.docno, 0) if m.sampled else -1
            )
        inferred = {n: sample_eval(sample, cut[n]).infAP for n in names}
        statistical = {n: stat_map(sample, cut[n]) for n in names}
        errors = [inferred[n] - result.truth[n] for n in names]
        assert outcome.figures["bias"][number] == pytest.approx(statistics.fmean(errors))
        assert outcome.figures["mae"][number] == pytest.approx(statistics.fmean(map(abs, errors)))
        assert outcome.figures["rmse"][number] == pytest.approx(
            math.sqrt(statistics.fmean(e * e for e in errors))
        )
        assert outcome.figures["tau"][number] == pytest.approx(kendall_tau(result.truth, inferred))
        assert outcome.figures["stat_bias"][number] == pytest.approx(
            statistics.fmean(statistical[n] - result.truth[n] for n in names)
        )
        assert outcome.figures["judged"][number] == sum(m.sampled for m in members) / len(members)
    summary = outcome.summary()
    assert summary["tau_worst"] == min(outcome.figures["tau"])
    assert summary["mae"] == pytest.approx(statistics.fmean(outcome.figures["mae"]))


def test_judging_every_document_gives_back_the_truth_and_its_ranking():
    runs, qrels = collection(4)
    outcome = simulate(runs, qrels, shares=[1.0], samples=2, depth=25).shares[0]
    assert outcome.strata == (Stratum(1, 10, 1.0), Stratum(11, 25, 1.0))
    assert outcome.figures["judged"] == (1.0, 1.0)
    # xinfAP differs from AP only by its ε smoothing; statAP with probabilities 1 is AP itself.
    assert max(outcome.figures["mae"]) < 1e-3 and max(outcome.figures["stat_mae"]) < 1e-9
    assert outcome.figures["tau"] == (1.0, 1.0) and outcome.figures["stat_tau"] == (1.0, 1.0)


def test_a_smaller_share_judges_fewer_and_errs_more_on_average():
    runs, qrels = collection(5, topics=10)
    small, large = simulate(runs, qrels, shares=[0.1, 0.6], samples=8, depth=40).shares
    assert statistics.fmean(small.figures["judged"]) < statistics.fmean(large.figures["judged"])
    assert small.summary()["mae"] > large.summary()["mae"]


def test_the_design_spends_at_most_two_thirds_of_the_budget_on_the_top_and_the_rest_below():
    # 100 documents in the top ten, 900 below: 10 % is 100 judgements, 66.7 of them at the top.
    top, rest = design_for_share(0.1, 100, 900, 10, 100)
    assert top == Stratum(1, 10, pytest.approx(2 / 3)) and rest.first == 11 and rest.last == 100
    assert top.rate * 100 + rest.rate * 900 == pytest.approx(100)
    # 30 %: the whole top fits in two thirds of the budget, so it is judged in full.
    top, rest = design_for_share(0.3, 100, 900, 10, 100)
    assert top.rate == 1.0 and top.rate * 100 + rest.rate * 900 == pytest.approx(300)
    assert design_for_share(0.2, 50, 0, 10, 10) == (Stratum(1, 10, 0.2),)


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"shares": [0]}, "a share judged must be in (0, 1]"),
        ({"shares": [1.5]}, "a share judged must be in (0, 1]"),
        ({"samples": 0}, "at least one sample"),
    ],
)
def test_bad_settings_are_refused_saying_why(arguments, words):
    runs, qrels = collection(6)
    with pytest.raises(SimulationError, match=words.replace("(", r"\(").replace(")", r"\)")):
        simulate(runs, qrels, **{"samples": 1, **arguments})


def test_one_run_or_no_topic_in_common_is_refused():
    runs, qrels = collection(7)
    with pytest.raises(SimulationError, match="at least two runs"):
        simulate({"only": runs["run0"]}, qrels, samples=1)
    with pytest.raises(SimulationError, match="no topic in common"):
        simulate(runs, {"999": {"d1": 1}}, samples=1)
