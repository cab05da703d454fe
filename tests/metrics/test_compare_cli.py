"""``cranfield compare``: values equal trec-eval's, p-values equal SciPy's test after Holm's correction."""

from __future__ import annotations

import json
import random

import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from cranfield.cli import main
from evaluation.metrics.trec_io import read_qrels, read_run, write_run
from evaluation.metrics.trec_measures import aggregate, evaluate


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


def test_the_table_and_p_values_agree_with_the_library_and_scipy(runs, capsys):
    qrels_path, run_paths = runs
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
