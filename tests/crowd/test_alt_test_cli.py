"""``cranfield alt-test``: the report is alt_test's on the files' rows, and bad files are named by line."""

from __future__ import annotations

import csv
import json
import random

import pytest

from annotation.crowd.quality.alt_test import alt_test
from cranfield.cli import main


def write(path, header, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


def crowd(seed: int = 0, people: int = 4, items: int = 80):
    rng = random.Random(seed)
    truth = {f"i{i}": rng.choice("abc") for i in range(items)}
    labels = {
        f"p{j}": {i: (rng.choice("abc") if rng.random() < 0.2 else t) for i, t in truth.items()}
        for j in range(people)
    }
    return truth, labels


def test_the_report_is_alt_tests_on_the_files(tmp_path, capsys):
    truth, labels = crowd()
    people = write(
        tmp_path / "people.csv",
        ["annotator", "item", "label"],
        [(p, i, label) for p, mine in labels.items() for i, label in mine.items()],
    )
    machine = write(tmp_path / "machine.csv", ["item", "label"], list(truth.items()))
    assert main(["alt-test", people, machine, "--epsilon", "0.1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = alt_test(truth, labels, epsilon=0.1)
    assert report["passed"] is expected.passed is True
    assert report["winning_rate"] == expected.winning_rate
    assert report["advantage_probability"] == pytest.approx(expected.advantage_probability)
    assert [p["beaten"] for p in report["persons"]] == [c.beaten for c in expected.comparisons]
    assert main(["alt-test", people, machine, "--epsilon", "0.1"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("PASSED: the machine may replace the people (winning rate 1.00 of 4 persons")


def test_scores_are_compared_by_neg_rmse_and_must_be_numbers(tmp_path, capsys):
    rng = random.Random(2)
    truth = {f"i{i}": rng.randint(1, 5) for i in range(60)}
    labels = {
        f"p{j}": {i: min(5, max(1, t + rng.choice((-1, 0, 0, 1)))) for i, t in truth.items()}
        for j in range(3)
    }
    people = write(
        tmp_path / "p.csv",
        ["annotator", "item", "label"],
        [(p, i, v) for p, mine in labels.items() for i, v in mine.items()],
    )
    machine = write(tmp_path / "m.csv", ["item", "label"], list(truth.items()))
    assert main(["alt-test", people, machine, "--alignment", "neg_rmse", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = alt_test(
        {i: float(v) for i, v in truth.items()},
        {p: {i: float(v) for i, v in mine.items()} for p, mine in labels.items()},
        alignment="neg_rmse",
    )
    assert report["winning_rate"] == expected.winning_rate and report["alignment"] == "neg_rmse"
    bad = write(tmp_path / "bad.csv", ["item", "label"], [("i0", "good")])
    assert main(["alt-test", people, bad, "--alignment", "neg_rmse"]) == 2
    assert "bad.csv, line 2: label is not a number (neg_rmse): 'good'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("people", "machine", "options", "message"),
    [
        (
            "annotator,item,label\na,i,x\na,i,y\n",
            "item,label\ni,x\n",
            [],
            "people.csv, line 3: a labels item 'i' twice",
        ),
        (
            "annotator,item,label\na,i,x\n",
            "item,label\ni,x\ni,y\n",
            [],
            "machine.csv, line 3: item 'i' twice",
        ),
        (
            "annotator,item\na,i\n",
            "item,label\ni,x\n",
            [],
            "the header must name annotator, item, label; missing label",
        ),
        (
            "annotator,item,label\na,,x\n",
            "item,label\ni,x\n",
            [],
            "people.csv, line 2: a field is empty",
        ),
        ("annotator,item,label\na,i,x\n", "item,label\ni,x\n", ["--epsilon", "1.5"], "--epsilon must be"),
        (
            "annotator,item,label\na,i,x\n",
            "item,label\ni,x\n",
            ["--min-items", "1"],
            "--min-items and --min-people",
        ),
    ],
)
def test_bad_input_is_named_never_a_traceback(tmp_path, capsys, people, machine, options, message):
    (tmp_path / "people.csv").write_text(people)
    (tmp_path / "machine.csv").write_text(machine)
    assert main(["alt-test", str(tmp_path / "people.csv"), str(tmp_path / "machine.csv"), *options]) == 2
    error = capsys.readouterr().err
    assert message in error.replace(str(tmp_path) + "/", "") and "Traceback" not in error


def test_with_too_few_items_no_person_is_tested_and_each_is_listed(tmp_path, capsys):
    people = write(tmp_path / "p.csv", ["annotator", "item", "label"], [("a", "i", "x"), ("b", "i", "x")])
    machine = write(tmp_path / "m.csv", ["item", "label"], [("i", "x")])
    assert main(["alt-test", people, machine]) == 0
    printed = capsys.readouterr().out
    assert (
        printed.startswith("no person could be tested")
        and "a                    left out: 1 items" in printed
    )
