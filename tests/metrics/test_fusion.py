"""Run fusion (evaluation.metrics.fusion): a worked example by hand, and equality with ranx.fuse
(ranx 0.3.21) on generated runs with ties, partial overlaps, single-document topics, topics all of
whose documents score the same, and topics that only some runs have."""

from __future__ import annotations

import math
import os
import random

import pytest

from evaluation.metrics.fusion import FusionError, common_topics, fuse
from evaluation.metrics.fusion.normalisation import min_max, z_score
from evaluation.metrics.trec.files import trec_order

# ranx compiles with Numba and runs its loops on a thread per core: one thread is enough here.
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
B = {"q1": {"d2": 10.0, "d3": 5.0, "d4": 0.0}}


def test_reciprocal_rank_fusion_of_the_worked_example():
    fused = fuse([A, B], "rrf")["q1"]
    assert fused == {"d2": 1 / 61 + 1 / 62, "d3": 1 / 62 + 1 / 63, "d1": 1 / 61, "d4": 1 / 63}
    assert list(fused) == ["d2", "d3", "d1", "d4"]


def test_rrf_k_is_the_constant_added_to_each_rank():
    fused = fuse([A, B], "rrf", k=0)["q1"]
    assert fused["d2"] == 1 / 1 + 1 / 2 and fused["d4"] == 1 / 3


def test_combsum_of_min_max_scores_of_the_worked_example():
    # A: d1 1, d2 0.5, d3 0; B: d2 1, d3 0.5, d4 0.
    fused = fuse([A, B], "combsum", "min-max")["q1"]
    assert fused == {"d2": 1.5, "d1": 1.0, "d3": 0.5, "d4": 0.0}
    assert list(fused) == ["d2", "d1", "d3", "d4"]


def test_combmnz_multiplies_by_the_runs_that_retrieved_the_document_and_breaks_ties_by_docno():
    fused = fuse([A, B], "combmnz", "min-max")["q1"]
    assert fused == {"d2": 3.0, "d3": 1.0, "d1": 1.0, "d4": 0.0}
    assert list(fused) == ["d2", "d3", "d1", "d4"]  # d3 and d1 tie: docno descending, as trec_eval


def test_combsum_of_z_scores_of_the_worked_example():
    # Both runs score 1, 0, -1 standard deviations (population's: sqrt(2/3) and sqrt(50/3)).
    fused = fuse([A, B], "combsum", "z-score")["q1"]
    third = math.sqrt(1.5)
    assert fused == pytest.approx({"d1": third, "d2": third, "d3": -third, "d4": -third}, abs=1e-12)


def test_unnormalised_combsum_adds_raw_scores():
    assert fuse([A, B], "combsum", "none")["q1"] == {"d2": 12.0, "d3": 6.0, "d1": 3.0, "d4": 0.0}


def test_min_max_of_equal_scores_is_zero_and_z_score_of_one_document_too():
    assert min_max({"a": 4.0, "b": 4.0}) == {"a": 0.0, "b": 0.0}
    assert z_score({"a": 4.0}) == {"a": 0.0}
    assert min_max({}) == {} and z_score({}) == {}


def test_a_topic_one_run_lacks_is_fused_from_the_others():
    fused = fuse([A, {**B, "q2": {"x": 1.0, "y": 0.0}}], "combmnz", "min-max")
    assert fused["q2"] == {"x": 1.0, "y": 0.0}


def test_depth_cuts_each_fused_topic():
    assert list(fuse([A, B], "rrf", depth=2)["q1"]) == ["d2", "d3"]


@pytest.mark.parametrize(
    ("runs", "options", "message"),
    [
        ([A], {}, "at least two runs"),
        ([A, {"q2": {"d1": 1.0}}], {}, "no topic in common"),
        ([A, B], {"method": "borda"}, "fusion method must be one of rrf, combsum, combmnz"),
        ([A, B], {"normalisation": "max"}, "normalisation must be one of min-max, z-score, none"),
        ([A, B], {"depth": 0}, "depth must be at least 1"),
        ([A, B], {"k": -1}, "k must be at least 0"),
    ],
)
def test_runs_that_cannot_be_fused_are_refused(runs, options, message):
    with pytest.raises(FusionError, match=message):
        fuse(runs, **options)


def test_common_topics():
    assert common_topics([A, {**B, "q2": {}}]) == {"q1"}


# Equality with ranx ----------------------------------------------------------------------------------

CASES = 300
RANX_METHOD = {"rrf": "rrf", "combsum": "sum", "combmnz": "mnz"}
RANX_NORM = {"min-max": "min-max", "z-score": "zmuv", "none": None}


def generated_runs(seed: int) -> list[dict[str, dict[str, float]]]:
    """2–5 runs over up to 6 topics from a shared set of documents: scores continuous or from a few
    values (ties), topics of one document, topics all scored the same, and topics missing from some
    runs (every run keeps the first topic, with at least one document)."""
    rng = random.Random(seed)
    # Docnos of one length: ranx 0.3.21 stores a run's docnos as fixed-width strings as wide as its
    # longest and cuts another run's longer ones to that width when it fuses (d10 becomes d1).
    documents = [f"d{i:02d}" for i in range(rng.randint(1, 30))]
    topics = [f"t{i}" for i in range(rng.randint(1, 6))]
    runs = []
    for _ in range(rng.randint(2, 5)):
        run = {}
        style = rng.choice(["continuous", "ties", "integers"])
        for index, topic in enumerate(topics):
            if index > 0 and rng.random() < 0.3:
                continue  # this run lacks the topic
            size = rng.choice([1, 1, rng.randint(1, len(documents))])
            chosen = rng.sample(documents, size)
            if rng.random() < 0.1:
                run[topic] = dict.fromkeys(chosen, rng.uniform(-5, 5))  # all equal
            elif style == "continuous":
                run[topic] = {d: rng.uniform(-20, 40) for d in chosen}
            elif style == "ties":
                run[topic] = {d: rng.choice([0.25, 0.5, 1.5, 2.0]) for d in chosen}
            else:
                run[topic] = {d: float(rng.randint(-3, 3)) for d in chosen}
        runs.append(run)
    return runs


def ranx_fuse(runs, method: str, normalisation: str, k: int = 60) -> dict[str, dict[str, float]]:
    """What ranx computes for the runs. ranx.fuse takes only runs of the same topics, so it is
    given the topics every run has; a topic only some runs have is fused by ranx from those runs
    alone (a run without the topic adds nothing to any of the three methods), by ranx.fuse if two
    or more have it and by ranx's own normalisation and fusion functions (what ranx.fuse calls)
    if one has it. (Padding the missing topic with an empty list instead is not sound: ranx's
    z-score then empties the run's later topics too.) For RRF each run's scores are replaced by its
    ranks in trec_eval's order (-1, -2, …), so that ranx ranks ties as we do; RRF reads only ranks."""
    from ranx import Run
    from ranx import fuse as ranx_fuse_runs
    from ranx.fusion import fusion_switch
    from ranx.normalization import norm_switch

    def as_ranx(run, topics):
        if method == "rrf":
            run = {t: {d: -float(r) for r, d in enumerate(trec_order(run[t]), start=1)} for t in topics}
        return Run({topic: run[topic] for topic in topics})

    def read(fused):
        return {topic: dict(fused.run[topic]) for topic in fused.run}

    params = {"k": k} if method == "rrf" else {}
    ranx_method, ranx_norm = RANX_METHOD[method], RANX_NORM[normalisation]
    common = sorted(common_topics(runs))
    fused = read(ranx_fuse_runs([as_ranx(run, common) for run in runs], ranx_norm, ranx_method, params))
    for topic in sorted(set().union(*runs) - set(common)):
        holding = [as_ranx(run, [topic]) for run in runs if topic in run]
        if len(holding) >= 2:
            fused |= read(ranx_fuse_runs(holding, ranx_norm, ranx_method, params))
        else:
            normalised = holding if ranx_norm is None else [norm_switch(ranx_norm)(holding[0])]
            fused |= read(fusion_switch(ranx_method)(normalised, **params))
    return fused


@pytest.fixture(scope="module")
def ranx_available():
    pytest.importorskip("ranx")


def test_generated_runs_cover_the_awkward_cases():
    runs = [generated_runs(seed) for seed in range(CASES)]
    topics = [topic for case in runs for run in case for topic in run.values()]
    assert sum(len(t) == 1 for t in topics) > 100
    assert sum(len(t) > 1 and len(set(t.values())) == 1 for t in topics) > 20
    assert sum(len(set(t.values())) < len(t) for t in topics) > 200  # ties
    assert sum(len(common_topics(case)) < len(set().union(*case)) for case in runs) > 50


@pytest.mark.parametrize("method", ["rrf", "combsum", "combmnz"])
@pytest.mark.parametrize("normalisation", ["min-max", "z-score", "none"])
def test_fusion_equals_ranx_on_generated_runs(ranx_available, method, normalisation):
    exact = 0
    for seed in range(CASES):
        runs = generated_runs(seed)
        ours = fuse(runs, method, normalisation)
        theirs = ranx_fuse(runs, method, normalisation)
        assert set(ours) == set(theirs), seed
        for topic, scores in ours.items():
            assert scores == pytest.approx(theirs[topic], abs=1e-9, rel=0), (seed, topic)
            assert list(scores) == trec_order(theirs[topic]), (seed, topic)
            exact += scores == theirs[topic]
    # Summed in ranx's order, the scores are not only within 1e-9 but the same floats.
    assert exact == sum(len(fuse(generated_runs(seed), method, normalisation)) for seed in range(CASES))


def test_rrf_with_another_k_equals_ranx(ranx_available):
    for seed in range(50):
        runs = generated_runs(seed)
        assert fuse(runs, "rrf", k=5) == ranx_fuse(runs, "rrf", "none", k=5)
