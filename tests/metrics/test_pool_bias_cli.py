"""``cranfield pool-bias``: each run's score with its unique pooled documents left out equals
pytrec_eval's on qrels from which those documents were removed by hand, groups leave their runs out
together, and bad input is refused naming the file and line."""

from __future__ import annotations

import json

import numpy as np
import pytest
import pytrec_eval

from cranfield.cli import main
from evaluation.metrics.trec.files import trec_order, write_qrels, write_run
from tests.metrics.test_plot_and_sets_cli import generated_case


@pytest.fixture
def case(tmp_path):
    qrels, runs = generated_case(seed=3, topics=10, documents=30)
    runs["three"] = {t: {d: s + 0.25 for d, s in docs.items()} for t, docs in runs["one"].items()}
    with open(tmp_path / "qrels", "w") as handle:
        write_qrels(qrels, handle)
    for name, run in runs.items():
        with open(tmp_path / name, "w") as handle:
            write_run(run, handle, name)
    return tmp_path, qrels, runs


def pooled(run: dict, depth: int) -> dict[str, set[str]]:
    return {topic: set(trec_order(docs)[:depth]) for topic, docs in run.items()}


def left_out_by_hand(qrels, runs, members: list[str], depth: int, measure: str) -> dict[str, float]:
    """Each member's mean ``measure`` on the qrels without the documents only the members pooled."""
    others = [name for name in runs if name not in members]
    own = {t: set().union(*(pooled(runs[m], depth).get(t, set()) for m in members)) for t in qrels}
    theirs = {t: set().union(*(pooled(runs[o], depth).get(t, set()) for o in others)) for t in qrels}
    reduced = {t: {d: r for d, r in docs.items() if d not in own[t] - theirs[t]} for t, docs in qrels.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(reduced, {measure})
    return {m: float(np.mean([v[measure] for v in evaluator.evaluate(runs[m]).values()])) for m in members}


@pytest.mark.parametrize(("depth", "measure", "key"), [(5, "map", "map"), (10, "P_5", "P_5")])
def test_each_run_left_out_scores_as_pytrec_eval_on_the_qrels_without_its_unique_documents(
    case, capsys, depth, measure, key
):
    directory, qrels, runs = case
    files = [str(directory / name) for name in runs]
    assert (
        main(["pool-bias", "--json", "--depth", str(depth), "-m", measure, str(directory / "qrels"), *files])
        == 0
    )
    results = {row["run"]: row for row in json.loads(capsys.readouterr().out)}
    full = pytrec_eval.RelevanceEvaluator(qrels, {key})
    for name in runs:
        expected = left_out_by_hand(qrels, runs, [name], depth, key)[name]
        assert results[name]["score_left_out"] == pytest.approx(expected, abs=1e-12)
        assert results[name]["score"] == pytest.approx(
            float(np.mean([v[key] for v in full.evaluate(runs[name]).values()])), abs=1e-12
        )
    # "three" ranks exactly as "one" does: neither has a document the other lacks, so neither loses any.
    assert results["one"]["unique_documents"] == results["three"]["unique_documents"] == 0
    assert any(row["unique_documents"] for row in results.values())


def test_a_group_is_left_out_together(case, capsys, tmp_path):
    directory, qrels, runs = case
    groups = tmp_path / "groups"
    groups.write_text("# run group\none team\nthree team\n", encoding="utf-8")
    files = [str(directory / name) for name in runs]
    arguments = [
        "pool-bias",
        "--json",
        "--depth",
        "5",
        "--groups",
        str(groups),
        str(directory / "qrels"),
        *files,
    ]
    assert main(arguments) == 0
    results = {row["run"]: row for row in json.loads(capsys.readouterr().out)}
    expected = left_out_by_hand(qrels, runs, ["one", "three"], 5, "map")
    assert results["one"]["group"] == results["three"]["group"] == "team"
    assert results["one"]["score_left_out"] == pytest.approx(expected["one"], abs=1e-12)
    assert results["three"]["score_left_out"] == pytest.approx(expected["three"], abs=1e-12)
    assert results["one"]["unique_documents"] > 0  # together, one and three pool what two never does


def test_bad_input_is_refused_naming_where(case, capsys, tmp_path):
    directory, _, runs = case
    files = [str(directory / name) for name in runs]
    groups = tmp_path / "groups"
    groups.write_text("one team extra\n", encoding="utf-8")
    assert main(["pool-bias", "--groups", str(groups), str(directory / "qrels"), *files]) == 2
    assert f"{groups}, line 1: expected 'RUN GROUP'" in capsys.readouterr().err
    groups.write_text("nobody team\n", encoding="utf-8")
    assert main(["pool-bias", "--groups", str(groups), str(directory / "qrels"), *files]) == 2
    assert "no run is tagged 'nobody'" in capsys.readouterr().err
    assert main(["pool-bias", str(directory / "qrels"), files[0]]) == 2
    assert "at least two runs" in capsys.readouterr().err
    assert main(["pool-bias", "-m", "P.5,10", str(directory / "qrels"), *files]) == 2
    assert "-m names one measure" in capsys.readouterr().err
