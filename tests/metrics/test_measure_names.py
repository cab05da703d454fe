"""Measure names: trec_eval's printed names everywhere, and ir_measures' names accepted wherever a
measure is chosen, each meaning exactly what ir_measures' own pytrec_eval provider makes of it (the
same trec_eval measure) and giving ir_measures' values on trec_eval's own test files."""

from __future__ import annotations

import ir_measures
import pytest
from ir_measures.providers.pytrec_eval_provider import PytrecEvalProvider

from cranfield.cli import main
from evaluation.metrics.trec.files import read_qrels, read_run
from evaluation.metrics.trec.measures import MeasureError, aggregate, evaluate, parse_measures
from evaluation.metrics.trec.names import split_measures, trec_eval_name, trec_eval_specs
from tests.conftest import PROJECT_DIR

TREC_EVAL_TESTS = PROJECT_DIR / "tests" / "data" / "trec_eval_tests"
# Every ir_measures name the pytrec_eval provider maps to a trec_eval measure, with its aliases.
IR_MEASURES_NAMES = [
    "P@5", "P@10", "Precision@20", "P(rel=1)@10", "R@100", "Recall@1000", "AP", "MAP", "AP@10",
    "nDCG", "NDCG", "nDCG@10", "nDCG@20", "RR", "MRR", "Rprec", "RPrec", "Bpref", "BPref", "infAP",
    "NumRet", "NumRet(rel=1)", "NumRelRet", "NumRel", "NumQ", "SetP", "SetP(relative=True)", "SetRelP",
    "SetR", "SetF", "SetAP", "Success@1", "Success@10", "IPrec@0.1", "IPrec@0.5", "IPrec@1.0",
]  # fmt: skip


def provider_name(name: str) -> str:
    """The trec_eval measure ir_measures' pytrec_eval provider runs for ``name``."""
    measure = ir_measures.parse_measure(name)
    provider = PytrecEvalProvider()
    provider.initialize()
    (invoker,) = provider._build_invokers([measure], {"1": {"d": 1}})
    ((measure_out, trec_name),) = invoker.measure_map.values()
    assert measure_out == measure
    return trec_name


@pytest.mark.parametrize("name", IR_MEASURES_NAMES)
def test_an_ir_measures_name_means_what_ir_measures_runs_through_trec_eval(name):
    assert trec_eval_name(name) == provider_name(name)


def test_ir_measures_names_give_ir_measures_values_on_trec_eval_test_files():
    qrels = read_qrels(str(TREC_EVAL_TESTS / "qrels.test"))
    run, _ = read_run(str(TREC_EVAL_TESTS / "results.test"))
    names = [name for name in IR_MEASURES_NAMES if name != "NumQ"]
    theirs = {
        str(measure): value
        for measure, value in ir_measures.calc_aggregate(
            [ir_measures.parse_measure(n) for n in names], qrels, run
        ).items()
    }
    # trec_eval 9 (pytrec_eval's) rounding of recall points, as ir_measures computes them.
    ours = aggregate(evaluate(qrels, run, parse_measures(trec_eval_specs(names)), version="9"))
    for name in names:
        expected = theirs[str(ir_measures.parse_measure(name))]
        assert ours[trec_eval_name(name)] == pytest.approx(expected, abs=1e-9), name


def test_the_exponential_gain_ndcg_is_ir_measures_exp_log2():
    """nDCG(dcg='exp-log2') is ndcg_exp (ndcg_cut_exp_k with a cut-off): 2^rel − 1 gains, as
    ir_measures computes it through trec_eval with those gains (its ranx provider, which computes
    exp-log2 directly, is compared in test_more_measures)."""
    qrels = {"1": {"a": 2, "b": 0, "c": 1, "d": 3}, "2": {"a": 1, "e": 2}}
    run = {"1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}, "2": {"e": 2.0, "f": 1.0, "a": 0.5}}
    exponential = {level: 2**level - 1 for level in range(4)}
    for name, same in [
        ("nDCG(dcg='exp-log2')", ir_measures.nDCG(gains=exponential)),
        ("nDCG(dcg='exp-log2')@2", ir_measures.nDCG(gains=exponential) @ 2),
    ]:
        (theirs,) = ir_measures.calc_aggregate([same], qrels, run).values()
        ours = aggregate(evaluate(qrels, run, parse_measures(trec_eval_specs([name]))))
        assert ours[trec_eval_name(name)] == pytest.approx(theirs, abs=1e-12)


def test_every_printed_name_is_its_own_name_and_its_own_argument():
    names = [name for measure in parse_measures(["all_trec"]) for name in measure.names()]
    names += ["ndcg_cut_exp_10", "set_F_0.5", "utility_2,-1,0,0", "ndcg_0=0,1=1,2=3", "Rprec_mult_0.20"]
    for name in names:
        assert trec_eval_name(name) == name
        (measure,) = parse_measures(trec_eval_specs([name]))
        assert measure.names() == (name,), name
    assert trec_eval_name("ndcg_cut.10") == "ndcg_cut_10"


def test_names_of_one_family_join_and_trec_eval_arguments_pass_unchanged():
    assert trec_eval_specs(["P@5", "P_10", "nDCG@10", "map", "P.20,30", "official"]) == [
        "P.5,10",
        "ndcg_cut.10",
        "map",
        "P.20,30",
        "official",
    ]
    assert split_measures("map,nDCG(dcg='exp-log2', judged_only=False)@10, P@10") == [
        "map",
        "nDCG(dcg='exp-log2', judged_only=False)@10",
        "P@10",
    ]


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("P(rel=2)@10", "trec_eval's -l"),
        ("AP(judged_only=True)", "trec_eval's -J"),
        ("P", "names 9 measures"),
        ("R", "needs a cut-off"),
        ("RR@10", "takes no cut-off"),
        ("P@0", "at least 1"),
        ("P@2.5", "whole number"),
        ("IPrec@2", "from 0 to 1"),
        ("nDCG(dcg='exp')@10", "'exp-log2'"),
        ("ERR@10", "unknown measure"),
        ("nDCG(gains={0: 0})@10", "parameter gains"),
        ("__import__('os').system('x')", "unknown measure"),
        ("P" * 200, "longer than any"),
    ],
)
def test_a_name_that_is_no_trec_eval_measure_is_refused_saying_why(name, reason):
    with pytest.raises(MeasureError, match=reason.replace("(", r"\(")):
        trec_eval_name(name)


def test_the_cli_takes_every_spelling_and_prints_trec_eval_names(capsys):
    qrels, results = str(TREC_EVAL_TESTS / "qrels.test"), str(TREC_EVAL_TESTS / "results.test")
    assert main(["trec-eval", "-m", "ndcg_cut.10", "-m", "P.5,10", "-m", "map", qrels, results]) == 0
    expected = capsys.readouterr().out
    assert "ndcg_cut_10" in expected and "P_5" in expected
    assert main(["trec-eval", "-m", "nDCG@10", "-m", "P@5", "-m", "P_10", "-m", "AP", qrels, results]) == 0
    assert capsys.readouterr().out == expected
    assert main(["compare", qrels, results, "-m", "nDCG@10", "--json"]) == 0
    assert '"measure": "ndcg_cut_10"' in capsys.readouterr().out
    assert main(["trec-eval", "-m", "ERR@10", qrels, results]) != 0
    assert "unknown measure 'ERR@10'" in capsys.readouterr().err
