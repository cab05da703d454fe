"""trec_eval 10.0's own test suite (its Makefile's quicktest), run through ``cranfield trec-eval``.

Expected outputs come from tests/data/trec_eval_tests (NIST's files; see its PROVENANCE.md). Every command
is the Makefile's own and every line must be equal: no measure is left out. (The preference and
qrels_jg commands, -R formats we do not read, are not among them.)
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from cranfield.cli import main

# (our arguments, expected file, the smallest number of lines that must be compared)
SUITE = [
    ("qrels.test results.test", "out.test", 30),
    ("qrels.test.with-comments results.test", "out.test", 30),
    ("qrels.comment.test results.comment.test", "out.comment.test", 30),
    ("-m all_trec qrels.test results.test", "out.test.a", 79),
    ("-m all_trec -q qrels.test results.test", "out.test.aq", 300),
    ("-m all_trec -q -c qrels.test results.trunc", "out.test.aqc", 300),
    ("-m all_trec -q -c -M100 qrels.test results.trunc", "out.test.aqcM", 300),
    ("-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test", "out.test.aql", 300),
    (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 "
        "-mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -m ndcg_cut.10,20,23.4 "
        "-msuccess.2,5,20 "
        "qrels.test results.test",
        "out.test.meas_params",
        70,
    ),
]


def run_cli(arguments: str, directory: Path, capsys) -> list[str]:
    *options, qrels, run = shlex.split(arguments)
    args = [*options, str(directory / qrels), str(directory / run)]
    assert main(["trec-eval", *args]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(("arguments", "expected_file", "minimum"), SUITE)
def test_our_output_equals_trec_eval_10(arguments, expected_file, minimum, data_set, capsys):
    directory = data_set("trec_eval_tests")
    ours = run_cli(arguments, directory, capsys)
    expected = (directory / expected_file).read_text().splitlines()
    assert ours == expected
    assert len(ours) >= minimum


def test_the_default_output_is_byte_identical_to_out_test(data_set):
    directory = data_set("trec_eval_tests")
    script = Path(sys.executable).with_name("cranfield")
    result = subprocess.run(
        [str(script), "trec-eval", str(directory / "qrels.test"), str(directory / "results.test")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == (directory / "out.test").read_text()
    assert "map                   \tall\t0.1785" in result.stdout
    assert "bpref                 \tall\t0.1981" in result.stdout


def test_a_malformed_run_is_a_clear_error_with_exit_code_2(tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 d1 1\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 d1 1 0.5 sys\n1 Q0 d2 2 high sys\n")
    assert main(["trec-eval", str(qrels), str(run)]) == 2
    assert f"{run}, line 2, field 'score'" in capsys.readouterr().err


def test_an_unknown_measure_is_a_clear_error(tmp_path, capsys):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 d1 1\n")
    assert main(["trec-eval", "-m", "mapp", str(qrels), str(qrels)]) == 2
    assert "unknown measure 'mapp'" in capsys.readouterr().err


def test_json_output_carries_the_same_values(data_set, capsys):
    import json

    directory = data_set("trec_eval_tests")
    assert main(["trec-eval", "--json", str(directory / "qrels.test"), str(directory / "results.test")]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["runid"] == "STANDARD"
    assert round(document["all"]["map"], 4) == 0.1785
    assert document["all"]["num_rel_ret"] == 131
