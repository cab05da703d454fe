"""``cranfield compare``: values equal trec-eval's, p-values equal SciPy's test after Holm's
correction, and on fewer topics than a test needs, no p and no verdict but the reason."""

from __future__ import annotations

import json
import random

import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from cranfield.cli import main
from evaluation.metrics.trec.files import read_qrels, read_run, write_run
from evaluation.metrics.trec.measures import aggregate, evaluate


@pytest.fixture
def runs(data_set, tmp_path):
    directory = data_set("trec_eval_tests")
    base, _ = read_run(directory / "results.test")
    rng = random.Random(4)
    paths = [directory / "results.test"]
    for name, noise in (("noisy", 0.3), ("random", 100.0)):
        run = {q: {d: s + rng.gauss(0, noise) for d, s in docs.items()} for q, docs in base.items()}
        path = tmp_path / f"{name}.run"
        with path.open("w") as handle:
            write_run(run, handle, name)
        paths.append(path)
    return directory / "qrels.test", paths


@pytest.fixture
def twelve_topics(tmp_path):
    """A generated collection of 12 topics (above the minimum for a test) and three runs of it."""
    rng = random.Random(12)
    qrels = {str(t): {f"d{d}": int(rng.random() < 0.3) for d in range(30)} for t in range(1, 13)}
    qrels_path = tmp_path / "qrels"
    qrels_path.write_text(
        "".join(f"{t} 0 {d} {r}\n" for t, docs in qrels.items() for d, r in docs.items()), encoding="utf-8"
    )
    paths = []
    for name, noise in (("STANDARD", 0.2), ("noisy", 0.8), ("random", 100.0)):
        run = {t: {d: r + rng.gauss(0, noise) for d, r in docs.items()} for t, docs in qrels.items()}
        path = tmp_path / f"{name}.run"
        with path.open("w") as handle:
            write_run(run, handle, name)
        paths.append(path)
    return qrels_path, paths


def test_the_table_and_p_values_agree_with_the_library_and_scipy(twelve_topics, capsys):
    qrels_path, run_paths = twelve_topics
    assert main(["compare", "--json", "-m", "map", "-m", "P.10", str(qrels_path), *map(str, run_paths)]) == 0
    report = json.loads(capsys.readouterr().out)
    qrels = read_qrels(qrels_path)
    scores = {}
    for path in run_paths:
        run, tag = read_run(path)
        scores[tag] = evaluate(qrels, run, ["map"], complete=True)
    rows = {row["run"]: row for row in report["rows"]}
    for tag, per_topic in scores.items():
        assert rows[tag]["map"] == pytest.approx(aggregate(per_topic)["map"])
    best = max(rows, key=lambda tag: rows[tag]["map"])
    assert rows[best]["best"] and best == "STANDARD"
    others = [tag for tag in rows if tag != best]
    topics = sorted(qrels)

    def per_topic_map(tag):
        return [scores[tag][t]["map"] for t in topics]

    raw = [stats.ttest_rel(per_topic_map(best), per_topic_map(other)).pvalue for other in others]
    holm = multipletests(raw, method="holm")[1]
    for tag, expected in zip(others, holm, strict=True):
        assert rows[tag]["p_value"] == pytest.approx(expected)
    assert report["topics"] == 12 and report["reason"] is None


def test_on_three_topics_there_is_no_p_and_no_verdict_but_the_reason(runs, capsys):
    """trec_eval's own test collection has 3 topics: too few for a significance test."""
    qrels_path, run_paths = runs
    assert main(["compare", "--json", str(qrels_path), *map(str, run_paths)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["topics"] == 3
    assert report["reason"] == "too few topics for a significance test (3; needs at least 10)"
    assert all(row["p_value"] is None and row["significant"] is None for row in report["rows"])
    assert main(["compare", str(qrels_path), *map(str, run_paths)]) == 0
    out = capsys.readouterr().out
    assert "too few topics for a significance test (3; needs at least 10)" in out and "*" not in out


def test_the_text_table_names_every_run(runs, capsys):
    qrels_path, run_paths = runs
    assert main(["compare", str(qrels_path), *map(str, run_paths)]) == 0
    out = capsys.readouterr().out
    assert "STANDARD" in out and "noisy" in out and "random" in out and "best" in out


def test_a_bad_run_file_is_reported(runs, tmp_path, capsys):
    qrels_path, _ = runs
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d 1 x tag\n")
    assert main(["compare", str(qrels_path), str(bad)]) == 2
    assert "line 1, field 'score'" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["latex", "markdown"])
def test_the_paper_table_holds_trec_evals_means_and_the_pairs_every_measure_separates(
    twelve_topics, capsys, fmt
):
    from evaluation.metrics.leaderboard import all_pairs

    qrels_path, run_paths = twelve_topics
    arguments = ["compare", "--format", fmt, "--digits", "4", "-m", "map", "-m", "P.10"]
    assert main([*arguments, str(qrels_path), *map(str, run_paths)]) == 0
    table = capsys.readouterr().out
    qrels = read_qrels(qrels_path)
    per_topic = {}
    for path in run_paths:
        run, tag = read_run(path)
        per_topic[tag] = evaluate(qrels, run, ["map", "P.10"], complete=True)
    means = {tag: aggregate(values) for tag, values in per_topic.items()}
    order = sorted(means, key=lambda tag: (-means[tag]["map"], tag))
    separator = " & " if fmt == "latex" else " | "
    rows = [
        line for line in table.splitlines() if any(f"{separator}{tag}{separator}" in line for tag in order)
    ]
    assert [next(tag for tag in order if f"{separator}{tag}{separator}" in row) for row in rows] == order
    for measure in ("map", "P_10"):
        topics = sorted(qrels)
        columns = {tag: [per_topic[tag][t][measure] for t in topics] for tag in order}
        beaten = {(p.first, p.second) for p in all_pairs(columns, correction="holm") if p.significant}
        for row, tag in zip(rows, order, strict=True):
            assert f"{means[tag][measure]:.4f}" in row
            letters = "".join("abc"[order.index(other)] for other in order if (tag, other) in beaten)
            column = 2 + ["map", "P_10"].index(measure)
            cell = row.strip("| \\").split(separator)[column]
            assert (letters in cell) if letters else ("^" not in cell and "<sup>" not in cell)


def test_a_bad_number_of_digits_is_refused(twelve_topics, capsys):
    qrels_path, run_paths = twelve_topics
    assert main(["compare", "--format", "latex", "--digits", "-1", str(qrels_path), str(run_paths[0])]) == 2
    assert "--digits must be between 0 and 10" in capsys.readouterr().err
