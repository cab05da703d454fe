"""``cranfield meta-eval``: the numbers are meta_evaluation's on the files' rows, and bad files are named."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from cranfield.cli import main
from evaluation.metrics import meta_evaluation as meta


def write(path, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["system", "input", "value"])
        writer.writerows(rows)
    return str(path)


def generated(seed: int = 0, systems: int = 10):
    rng = np.random.default_rng(seed)
    quality = {f"s{k}": k / 2 for k in range(systems)}
    human, good, poor = [], [], []
    for system, q in quality.items():
        for i in range(20):
            h = q + rng.normal(0, 0.5)
            human.append((system, f"in{i}", h))
            good.append((system, f"in{i}", h + rng.normal(0, 0.3)))
            poor.append((system, f"in{i}", rng.normal(0, 1)))
    return human, good, poor


def test_the_report_equals_the_pure_functions(tmp_path, capsys):
    human, good, poor = generated()
    files = [
        write(tmp_path / name, rows) for name, rows in (("h.csv", human), ("g.csv", good), ("p.csv", poor))
    ]
    assert main(["meta-eval", *files, "--resamples", "50", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = meta.correlations(good, human, resamples=50)
    got = report["metrics"][files[1]]["correlations"]
    assert [(r["level"], r["method"], r["value"], r["low"], r["high"]) for r in got] == [
        pytest.approx((e.level, e.method, e.value, e.low, e.high)) for e in expected
    ]
    assert report["metrics"][files[1]]["pairwise_accuracy"] == meta.pairwise_accuracy(
        meta.system_means(good), meta.system_means(human)
    )
    (williams,) = report["williams"]
    assert williams["first"] == files[1] and williams["second"] == files[2] and williams["p_value"] < 0.05
    assert report["williams_systems"] == 10 and report["williams_reason"] is None


def test_on_six_systems_williams_test_and_on_four_the_system_level_give_the_reason(tmp_path, capsys):
    human, good, poor = generated(systems=6)
    files = [write(tmp_path / n, rows) for n, rows in (("h.csv", human), ("g.csv", good), ("p.csv", poor))]
    assert main(["meta-eval", *files, "--resamples", "50", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["williams"] == [] and report["williams_systems"] == 6
    assert report["williams_reason"] == "too few systems for Williams' test (6; needs at least 8)"
    assert main(["meta-eval", *files, "--resamples", "50"]) == 0
    assert "Williams (system level): none, too few systems for Williams' test (6" in capsys.readouterr().out
    human, good, _ = generated(systems=4)
    files = [write(tmp_path / n, rows) for n, rows in (("h.csv", human), ("g.csv", good))]
    assert main(["meta-eval", *files, "--resamples", "50", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["metrics"][files[1]]
    system_rows = [row for row in result["correlations"] if row["level"] == "system"]
    assert all(
        row["value"] is None and row["reason"] == "too few systems for a correlation (4; needs at least 5)"
        for row in system_rows
    )
    assert result["pairwise_accuracy"] is None and "too few systems" in result["pairwise_accuracy_reason"]
    # The summary level rests on the 20 inputs: a value, inside [−1, 1].
    summary = [row for row in result["correlations"] if row["level"] == "summary"]
    assert all(-1 <= row["low"] <= row["high"] <= 1 and row["reason"] is None for row in summary)


def test_a_bad_file_is_named_with_its_line(tmp_path, capsys):
    human = write(tmp_path / "h.csv", [("a", "i", "1")])
    bad = write(tmp_path / "m.csv", [("a", "i", "high")])
    assert main(["meta-eval", human, bad]) == 2
    assert "m.csv, line 2: value is not a number" in capsys.readouterr().err
    (tmp_path / "x.csv").write_text("sys,value\n")
    assert main(["meta-eval", human, str(tmp_path / "x.csv")]) == 2
    assert "header must name" in capsys.readouterr().err


def test_an_error_rate_is_negated_as_the_app_shows_it(tmp_path, capsys):
    human, good, _ = generated()
    errors = [(system, input_id, -value) for system, input_id, value in good]  # lower is better
    files = [
        write(tmp_path / "h.csv", human),
        write(tmp_path / "g.csv", good),
        write(tmp_path / "e.csv", errors),
    ]
    assert main(["meta-eval", *files, "--lower-is-better", files[2], "--resamples", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)["metrics"]
    assert report[files[2]]["negated"] and not report[files[1]]["negated"]
    for theirs, ours in zip(report[files[1]]["correlations"], report[files[2]]["correlations"], strict=True):
        assert ours["value"] == pytest.approx(theirs["value"])  # negated twice: the same as the good metric
    assert report[files[2]]["pairwise_accuracy"] == pytest.approx(report[files[1]]["pairwise_accuracy"])
    assert main(["meta-eval", *files, "--lower-is-better", "other.csv"]) != 0
    assert "--lower-is-better: other.csv is not one of the metrics" in capsys.readouterr().err


def test_with_ratings_missing_every_figure_uses_the_outputs_both_sides_score_and_says_what_was_left(
    tmp_path, capsys
):
    human, good, poor = generated()
    rated = [row for k, row in enumerate(human) if k % 4 != 0]  # a quarter of the outputs unrated
    poor = [row for row in poor if row[0] != "s9"]  # one metric never scored system s9
    files = [write(tmp_path / n, rows) for n, rows in (("h.csv", rated), ("g.csv", good), ("p.csv", poor))]
    assert main(["meta-eval", *files, "--resamples", "0", "--json"]) == 0
    text = capsys.readouterr().out
    report = json.loads(text)  # strict JSON: json.dump(allow_nan=False) refuses a bare NaN
    assert "NaN" not in text
    good_report = report["metrics"][files[1]]
    assert good_report["pairwise_accuracy"] == meta.pairwise_accuracy(*meta.paired_system_means(good, rated))
    assert good_report["left_out"] == {
        "outputs_without_rating": len(human) - len(rated),
        "outputs_without_score": 0,
        "systems_without_rating": 0,
        "systems_without_score": 0,
    }
    assert report["metrics"][files[2]]["left_out"]["systems_without_score"] == 1
    # Williams' test on the outputs the humans and both metrics score: nine systems, not ten.
    assert report["williams_systems"] == 9
    shared_human, shared = meta.shared_outputs(rated, {files[1]: good, files[2]: poor})
    expected = meta.williams_tests(
        files[1], {f: meta.system_means(rows) for f, rows in shared.items()}, meta.system_means(shared_human)
    )
    assert report["williams"] == [pytest.approx(test) for test in expected.tests]
    assert main(["meta-eval", *files, "--resamples", "0"]) == 0
    printed = capsys.readouterr().out
    assert "left out, scored on one side only: 50 outputs (0 systems) without a rating" in printed


def test_one_row_per_rater_is_averaged_and_a_metric_column_names_several_metrics(tmp_path, capsys):
    human, good, poor = generated()
    # Two raters per output, whose mean is the human score.
    raters = [(s, i, v + d) for s, i, v in human for d in (-0.5, 0.5)]
    both = [(s, i, v, "good") for s, i, v in good] + [(s, i, v, "poor") for s, i, v in poor]
    with open(tmp_path / "both.csv", "w", newline="") as handle:
        csv.writer(handle).writerows([("system", "input", "value", "metric"), *both])
    files = [
        write(tmp_path / "h.csv", human),
        write(tmp_path / "g.csv", good),
        write(tmp_path / "p.csv", poor),
    ]
    assert main(["meta-eval", *files, "--name", "good", "--name", "poor", "--resamples", "20", "--json"]) == 0
    by_files = json.loads(capsys.readouterr().out)
    rated = write(tmp_path / "raters.csv", raters)
    one_file = ["meta-eval", rated, str(tmp_path / "both.csv"), "--resamples", "20", "--json"]
    assert main(one_file) == 0
    by_column = json.loads(capsys.readouterr().out)
    assert set(by_column["metrics"]) == {"good", "poor"}
    for name in ("good", "poor"):
        for ours, theirs in zip(
            by_column["metrics"][name]["correlations"], by_files["metrics"][name]["correlations"], strict=True
        ):
            assert ours == pytest.approx(theirs)
    assert by_column["williams"] == [pytest.approx(test) for test in by_files["williams"]]
    # Any two metrics, either way round, and a direction by the metric's name.
    asked = [*one_file, "--williams", "poor", "good", "--lower-is-better", "poor"]
    assert main(asked) == 0
    found = json.loads(capsys.readouterr().out)
    assert [(t["first"], t["second"]) for t in found["williams"]] == [("poor", "good")]
    assert found["metrics"]["poor"]["negated"] and not found["metrics"]["good"]["negated"]


@pytest.mark.parametrize(
    ("files", "options", "message"),
    [
        (
            {"m.csv": "system,input,value\na,i,1\na,i,2\n"},
            [],
            "m.csv, line 3: m.csv scores system 'a' on input 'i' again (line 2)",
        ),
        ({"m.csv": b"system,input,value\na,i,\xff1\n"}, [], "m.csv: not a UTF-8 CSV file"),
        ({"m.csv": "system,input,value\na,i\n"}, [], "m.csv, line 2: fewer fields than the header names"),
        ({"m.csv": "system,input,value,metric\na,i,1,\n"}, [], "m.csv, line 2: the metric column is empty"),
        (
            {
                "m.csv": "system,input,value,metric\na,i,1,x\n",
                "n.csv": "system,input,value,metric\na,j,1,x\n",
            },
            [],
            "n.csv, line 2: metric 'x' is also in",
        ),
        (
            {"m.csv": "system,input,value\na,i,1\n"},
            ["--name", "a", "--name", "b"],
            "--name: give one name per METRIC file (1), not 2",
        ),
        ({"m.csv": "system,input,value,metric\na,i,1,x\n"}, ["--name", "a"], "--name: "),
        ({"m.csv": "system,input,value\na,i,1\n"}, ["--williams", "m.csv", "m.csv"], "--williams: "),
        (
            {"m.csv": "system,input,value\na,i,1\n"},
            ["--williams", "m.csv", "z"],
            "--williams: z is not one of",
        ),
        ({"m.csv": "system,input,value\nb,k,1\n"}, [], "no (system, input) in common"),
    ],
)
def test_bad_input_ends_in_a_message_naming_it_never_a_traceback(tmp_path, capsys, files, options, message):
    human = write(tmp_path / "h.csv", [("a", "i", "1"), ("a", "i", "3")])  # two raters: fine
    paths = []
    for name, body in files.items():
        path = tmp_path / name
        path.write_bytes(body if isinstance(body, bytes) else body.encode())
        paths.append(str(path))
    options = [str(tmp_path / o) if o.endswith(".csv") else o for o in options]
    assert main(["meta-eval", human, *paths, *options]) == 2
    error = capsys.readouterr().err
    assert message in error.replace(str(tmp_path) + "/", "") and "Traceback" not in error
