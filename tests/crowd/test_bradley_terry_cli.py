"""``cranfield bradley-terry``: the strengths of a comparisons file are statsmodels' maximum likelihood
fit, the intervals hold the estimate, and a bad row is refused naming its line."""

from __future__ import annotations

import csv
import json

import pytest

from cranfield.cli import main
from tests.crowd.test_bradley_terry import generated, statsmodels_strengths


def written(path, comparisons, header=("worker", "left", "right", "label")) -> str:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for index, (left, right, winner) in enumerate(comparisons):
            writer.writerow([f"w{index % 7}", left, right, winner])
    return str(path)


@pytest.mark.parametrize("seed", range(4))
def test_the_strengths_are_statsmodels_fit_strongest_first(tmp_path, capsys, seed):
    comparisons = generated(seed)
    assert (
        main(["bradley-terry", "--json", "--resamples", "50", written(tmp_path / "pairs.csv", comparisons)])
        == 0
    )
    result = json.loads(capsys.readouterr().out)
    strengths = {row["item"]: row["strength"] for row in result["items"]}
    assert strengths == pytest.approx(statsmodels_strengths(comparisons), rel=1e-6)
    values = [row["strength"] for row in result["items"]]
    assert values == sorted(values, reverse=True) and result["comparisons"] == len(comparisons)
    assert all(row["low"] <= row["strength"] <= row["high"] for row in result["items"])


def test_the_table_says_what_it_holds(tmp_path, capsys):
    assert main(["bradley-terry", written(tmp_path / "pairs.csv", generated(1))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["item", "strength"] and len(lines) == 1 + 6 + 1
    assert lines[-1] == "# 400 comparisons of 6 items; strengths sum to 1"


def test_bad_rows_are_refused_naming_the_line(tmp_path, capsys):
    cases = [
        ([("a", "b", "c")], "line 2: label 'c' is neither 'a' nor 'b'"),
        ([("a", "b", "a"), ("a", "a", "a")], "line 3: an item compared with itself ('a')"),
        ([("a", "", "a")], "line 2: left and right must both name an item"),
        ([("a", "b", "a"), ("a", "b", "a")], "not strongly connected"),
    ]
    for comparisons, message in cases:
        assert main(["bradley-terry", written(tmp_path / "bad.csv", comparisons)]) == 2
        assert message in capsys.readouterr().err, message
    assert main(["bradley-terry", written(tmp_path / "bad.csv", [], header=("left", "right"))]) == 2
    assert "the header must name left, right, label; missing label" in capsys.readouterr().err
    assert main(["bradley-terry", written(tmp_path / "empty.csv", [])]) == 2
    assert "no comparisons" in capsys.readouterr().err
