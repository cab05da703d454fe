"""The measures issue 11 adds, each pinned against a peer on generated qrels and runs (trec_eval's own test
files pin the rest in test_trec_eval_suite: relstring, unj, rbp on graded qrels, ndcg's level=gain pairs,
utility and 11pt_avg with parameters).

Peers: pytrec_eval (trec_eval 9.0.8) for set_F with its x, 11pt_avg with points and the 9.x measures
(test_trec_measures_vs_pytrec_eval covers them at their defaults); ir_measures' nDCG(gains=…) for ndcg's
``level=gain`` pairs and the exponential gain; ranx's ndcg_burges for ndcg_exp/ndcg_cut_exp and its rbp
for rbp (binary qrels: there trec_eval's gain rescaling and ranx's raw grades agree).
"""

from __future__ import annotations

import math

import ir_measures
import pytest
import pytrec_eval
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cranfield.cli import main
from evaluation.metrics.trec.measures import MeasureError, evaluate, gain_table, parse_measures

documents = st.sampled_from([f"d{i}" for i in range(20)])
topics = st.sampled_from(["1", "2", "3"])
graded_qrels = st.dictionaries(topics, st.dictionaries(documents, st.integers(-1, 3), min_size=1), min_size=1)
binary_qrels = st.dictionaries(topics, st.dictionaries(documents, st.integers(0, 1), min_size=1), min_size=1)
runs = st.dictionaries(
    topics,
    st.dictionaries(documents, st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.25]), min_size=1),
    min_size=1,
)
distinct_scores = st.dictionaries(
    topics,
    st.lists(documents, min_size=1, unique=True).map(
        lambda docs: {d: float(len(docs) - i) for i, d in enumerate(docs)}
    ),
    min_size=1,
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def usable(qrels, run) -> None:
    # trec_eval (and its wrappers) cannot answer a topic whose qrels are all negative (see the pytrec test).
    assume(all(max(judged.values()) >= 0 for judged in qrels.values()))
    assume(set(qrels) & set(run))


def pytrec(qrels, run, measure: str) -> dict:
    return pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)


def ir_measures_per_topic(measure, qrels, run) -> dict[str, float]:
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}


@SETTINGS
@given(
    qrels=graded_qrels, run=runs, x=st.sampled_from([0.25, 0.5, 2.0, 4.0]), relevance_level=st.integers(1, 2)
)
def test_set_f_with_x_equals_pytrec_eval(qrels, run, x, relevance_level):
    usable(qrels, run)
    ours = evaluate(qrels, run, [f"set_F.{x}"], relevance_level=relevance_level)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {f"set_F.{x}"}, relevance_level=relevance_level).evaluate(
        run
    )
    for qid, values in ours.items():
        assert values[f"set_F_{x}"] == pytest.approx(theirs[qid]["set_F"], abs=1e-12)


@SETTINGS
@given(
    qrels=graded_qrels,
    run=runs,
    points=st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]), min_size=1, unique=True),
)
def test_11pt_avg_with_points_equals_pytrec_eval(qrels, run, points):
    usable(qrels, run)
    text = ",".join(map(str, points))
    ours = evaluate(qrels, run, [f"11pt_avg.{text}"], version="9")
    theirs = pytrec(qrels, run, f"11pt_avg.{text}")
    for qid, values in ours.items():
        assert values[f"11pt_avg_{text}"] == pytest.approx(theirs[qid]["11pt_avg"], abs=1e-12)


@SETTINGS
@given(qrels=graded_qrels, run=runs, gains=st.lists(st.integers(0, 9), min_size=4, max_size=4))
def test_ndcg_with_level_gain_pairs_equals_ir_measures(qrels, run, gains):
    usable(qrels, run)
    spec = ",".join(f"{level}={gain}" for level, gain in enumerate(gains))
    ours = evaluate(qrels, run, [f"ndcg.{spec}"])
    theirs = ir_measures_per_topic(ir_measures.nDCG(gains=dict(enumerate(gains))), qrels, run)
    for qid, values in ours.items():
        assert values[f"ndcg_{spec}"] == pytest.approx(theirs.get(qid, 0.0), abs=1e-12), qid


@SETTINGS
@given(qrels=graded_qrels, run=runs, cutoff=st.integers(1, 12))
def test_exponential_gain_equals_ir_measures_and_ranx(qrels, run, cutoff):
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    usable(qrels, run)
    ours = evaluate(qrels, run, ["ndcg_exp", f"ndcg_cut_exp.{cutoff}"])
    exponential = {level: 2**level - 1 for level in range(4)}
    at_cutoff = ir_measures_per_topic(ir_measures.nDCG(gains=exponential) @ cutoff, qrels, run)
    for qid, values in ours.items():
        assert values[f"ndcg_cut_exp_{cutoff}"] == pytest.approx(at_cutoff.get(qid, 0.0), abs=1e-12), qid
        judged = {doc: rel for doc, rel in qrels[qid].items() if rel > 0}
        if not judged:  # ranx takes no topic without a relevant document; ours is 0 there
            assert values["ndcg_exp"] == 0.0
            continue
        if len(set(run[qid].values())) != len(run[qid]):  # ranx breaks ties its own way
            continue
        ranx_value = ranx_evaluate(Qrels({qid: judged}), Run({qid: run[qid]}), "ndcg_burges")
        assert values["ndcg_exp"] == pytest.approx(float(ranx_value), abs=1e-12), qid


@SETTINGS
@given(qrels=binary_qrels, run=distinct_scores, p=st.sampled_from([0.5, 0.8, 0.9, 0.95]))
def test_rbp_on_binary_qrels_equals_ranx(qrels, run, p):
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    usable(qrels, run)
    spec = f"rbp.p={p}" if p != 0.9 else "rbp"
    ours = evaluate(qrels, run, [spec])
    name = f"rbp_p={p}" if p != 0.9 else "rbp"
    for qid, values in ours.items():
        judged = {doc: rel for doc, rel in qrels[qid].items() if rel > 0}
        if not judged:
            assert values[name] == 0.0
            continue
        if len(set(run[qid].values())) != len(run[qid]):  # ranx breaks ties its own way
            continue
        expected = float(ranx_evaluate(Qrels({qid: judged}), Run({qid: run[qid]}), f"rbp.{int(p * 100):02d}"))
        assert values[name] == pytest.approx(expected, abs=1e-12), qid


def test_rbp_resid_is_the_most_rbp_could_rise():
    values = evaluate({"1": {"a": 1, "b": 0}}, {"1": {"a": 3.0, "x": 2.0, "b": 1.0}}, ["rbp", "rbp_resid"])[
        "1"
    ]
    assert values["rbp"] == pytest.approx(0.1)
    assert values["rbp_resid"] == pytest.approx(0.9**3 + 0.1 * 0.9)


def test_unjudged_counts_the_top_k_and_pads_past_the_end():
    values = evaluate({"1": {"a": 1, "b": 0}}, {"1": {"a": 3.0, "x": 2.0, "b": 1.0}}, ["unj.1,2,4"])["1"]
    assert (values["unj_1"], values["unj_2"], values["unj_4"]) == (0.0, 0.5, 0.25)


def test_relstring_is_per_topic_only():
    values = evaluate(
        {"1": {"a": 12, "b": 0, "c": -1}}, {"1": {"a": 3, "x": 2, "b": 1, "c": 0}}, ["relstring"]
    )
    assert values["1"]["relstring"] == ">-0."


def test_gain_table_orders_as_trec_eval_s_truncating_comparison():
    # gain_init.c: (int)(g1 - g2); 3 and 3.5 compare equal and keep the order they were given in.
    table = gain_table({0: 5, 1: 2, 2: 1, 3: 1, 4: 1}, (("1", 3.0), ("2", 9.0), ("4", 3.5)))
    assert [level for level, _, _ in table] == [0, 1, 4, 3, 2]


@pytest.mark.parametrize(
    "spec", ["ndcg.1", "ndcg.1=2,,2=3", "ndcg.1=x", "utility.1,2", "relstring.1,2", "binG.3", "P.0"]
)
def test_malformed_parameters_are_refused(spec):
    with pytest.raises(MeasureError):
        parse_measures([spec])


def test_the_set_nickname_prints_trec_eval_s_set_measures(data_set, capsys):
    directory = data_set("trec_eval_tests")
    assert (
        main(["trec-eval", "-m", "set", str(directory / "qrels.test"), str(directory / "results.test")]) == 0
    )
    names = [line.split("\t")[0].strip() for line in capsys.readouterr().out.splitlines()]
    assert names == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
                     "set_relative_P", "set_recall", "set_map", "set_F"]  # fmt: skip


def test_ndcg_gains_and_ndcg_cut_together(data_set, capsys):
    directory = data_set("trec_eval_tests")
    args = [
        "-m",
        "ndcg_cut.10",
        "-m",
        "ndcg.0=0,1=1,2=3",
        str(directory / "qrels.test"),
        str(directory / "results.test"),
    ]
    assert main(["trec-eval", *args]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[0].strip() for line in lines] == ["ndcg_0=0,1=1,2=3", "ndcg_cut_10"]
    assert all(math.isfinite(float(line.split("\t")[2])) for line in lines)


def test_compare_skips_relstring_which_has_no_all_value(data_set, capsys):
    directory = data_set("trec_eval_tests")
    files = [str(directory / "qrels.test"), str(directory / "results.test"), str(directory / "results.trunc")]
    assert main(["compare", *files, "-m", "all_trec"]) == 0
    assert "relstring" not in capsys.readouterr().out
    assert main(["compare", *files, "-m", "relstring"]) == 2
    assert "nothing to compare" in capsys.readouterr().err
