"""``cranfield tau``: Kendall's tau is SciPy's, tau_AP is Yilmaz, Aslam & Robertson's (2008) formula
counted by hand, the pairs that flip are every discordant pair; from result tables (two columns or
trec_eval's layout) and from runs scored under two qrels (pytrec_eval's values)."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest
import pytrec_eval
from scipy import stats

from cranfield.cli import main
from evaluation.metrics.trec.files import write_qrels, write_run
from tests.metrics.test_plot_and_sets_cli import generated_case


def tau_ap_by_hand(reference: dict[str, float], other: dict[str, float]) -> float:
    """τ_AP = 2/(n−1) Σ_{i≥2} C(i)/(i−1) − 1, C(i): systems above the i-th of ``other`` in both."""
    first = sorted(reference, key=lambda s: (-reference[s], s))
    second = sorted(other, key=lambda s: (-other[s], s))
    n = len(second)
    total = sum(
        sum(1 for above in second[:i] if first.index(above) < first.index(second[i])) / i for i in range(1, n)
    )
    return 2 * total / (n - 1) - 1


def tau(capsys, *arguments: str) -> dict:
    assert main(["tau", "--json", *arguments]) == 0
    return json.loads(capsys.readouterr().out)


def test_result_tables_give_scipys_tau_and_the_papers_tau_ap(tmp_path, capsys):
    rng = np.random.default_rng(5)
    for trial in range(25):
        systems = [f"sys{i}" for i in range(int(rng.integers(2, 12)))]
        first = {s: float(rng.uniform()) for s in systems}
        second = {s: first[s] + float(rng.normal(0, 0.2)) for s in systems}
        paths = []
        for index, scores in enumerate((first, second)):
            path = tmp_path / f"table{trial}-{index}"
            path.write_text("".join(f"{s}\t{v!r}\n" for s, v in scores.items()), encoding="utf-8")
            paths.append(str(path))
        result = tau(capsys, *paths)
        names = sorted(systems)
        expected = stats.kendalltau([first[s] for s in names], [second[s] for s in names]).statistic
        assert result["kendall_tau"] == pytest.approx(expected, abs=1e-12)
        assert result["tau_ap"] == pytest.approx(tau_ap_by_hand(first, second), abs=1e-12)
        both_ways = (tau_ap_by_hand(first, second) + tau_ap_by_hand(second, first)) / 2
        assert result["symmetric_tau_ap"] == pytest.approx(both_ways, abs=1e-12)
        discordant = {
            frozenset((a, b))
            for a, b in combinations(systems, 2)
            if (first[a] - first[b]) * (second[a] - second[b]) < 0
        }
        assert {frozenset(pair) for pair in result["flipped_pairs"]} == discordant


def test_trec_evals_own_output_is_a_result_table(tmp_path, capsys):
    qrels, runs = generated_case(seed=9)
    with open(tmp_path / "qrels", "w") as handle:
        write_qrels(qrels, handle)
    tables = []
    for table in ("first", "second"):  # the same scores twice: the rankings agree entirely
        text = ""
        for name, run in runs.items():
            with open(tmp_path / name, "w") as handle:
                write_run(run, handle, f"{name}-run")
            assert (
                main(
                    [
                        "trec-eval",
                        "-m",
                        "runid",
                        "-m",
                        "map",
                        "-m",
                        "P.5",
                        str(tmp_path / "qrels"),
                        str(tmp_path / name),
                    ]
                )
                == 0
            )
            text += capsys.readouterr().out
        path = tmp_path / f"{table}.txt"
        path.write_text(text, encoding="utf-8")
        tables.append(str(path))
    result = tau(capsys, *tables, "-m", "P_5")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"P_5"})
    expected = {
        f"{name}-run": float(np.mean([v["P_5"] for v in evaluator.evaluate(run).values()]))
        for name, run in runs.items()
    }
    assert result["first"] == pytest.approx(expected, abs=1e-4)  # trec_eval prints four decimals
    assert result["kendall_tau"] == 1.0 and result["flipped_pairs"] == []


def test_runs_scored_under_two_qrels_are_ranked_as_pytrec_eval_ranks_them(tmp_path, capsys):
    qrels, runs = generated_case(seed=2, topics=12)
    rng = np.random.default_rng(0)
    other = {
        t: {d: (1 - r if rng.uniform() < 0.3 else r) for d, r in docs.items()} for t, docs in qrels.items()
    }
    for name, judged in (("a.qrels", qrels), ("b.qrels", other)):
        with open(tmp_path / name, "w") as handle:
            write_qrels(judged, handle)
    extra = {
        f"run{i}": {t: {d: s + rng.normal(0, 3) for d, s in docs.items()} for t, docs in runs["one"].items()}
        for i in range(4)
    }
    paths = []
    for name, run in {**runs, **extra}.items():
        with open(tmp_path / name, "w") as handle:
            write_run(run, handle, name)
        paths.append(str(tmp_path / name))
    result = tau(capsys, str(tmp_path / "a.qrels"), str(tmp_path / "b.qrels"), *paths, "-m", "map")
    for key, judged in (("first", qrels), ("second", other)):
        evaluator = pytrec_eval.RelevanceEvaluator(judged, {"map"})
        for name, run in {**runs, **extra}.items():
            assert result[key][name] == pytest.approx(
                np.mean([v["map"] for v in evaluator.evaluate(run).values()])
            )
    names = sorted(result["first"])
    expected = stats.kendalltau(
        [result["first"][n] for n in names], [result["second"][n] for n in names]
    ).statistic
    assert result["kendall_tau"] == pytest.approx(expected) and result["systems"] == 6


def test_bad_tables_are_refused_naming_the_line(tmp_path, capsys):
    good = tmp_path / "good"
    good.write_text("a 0.5\nb 0.4\n", encoding="utf-8")
    for content, message in [
        ("a 0.5\nb x\n", "line 2: the score 'x' is not a number"),
        ("a 0.5\na 0.4\n", "line 2: 'a' is scored twice"),
        ("a 0.5 1 2\n", "line 1: expected 'SYSTEM SCORE'"),
        ("a 0.5\nc 0.4\n", "the same systems; only one has b, c"),
        ("map all 0.5\n", "line 1: a map line before any 'runid all NAME' line"),
    ]:
        bad = tmp_path / "bad"
        bad.write_text(content, encoding="utf-8")
        assert main(["tau", str(good), str(bad)]) == 2
        assert message in capsys.readouterr().err, content
    single = tmp_path / "single"
    single.write_text("a 0.5\n", encoding="utf-8")
    assert main(["tau", str(single), str(single)]) == 2
    assert "at least two systems" in capsys.readouterr().err
