"""``cranfield trec-eval`` on inputs trec_eval takes in its stride (issue 11): bytes that are not UTF-8,
a byte-order mark, a bad ``-M``, and a run that shares no topic with the qrels."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cranfield.cli import main
from evaluation.metrics.trec.files import read_qrels, read_run

QRELS = b"1 0 d1 1\n1 0 caf\xe9 1\n1 0 d3 0\n2 0 d1 1\n"
RUN = b"1 Q0 caf\xe9 1 3.0 sys\n1 Q0 d1 2 2.0 sys\n1 Q0 d3 3 1.0 sys\n2 Q0 d2 1 1.0 sys\n"


def write(tmp_path: Path, qrels: bytes, run: bytes) -> tuple[str, str]:
    (tmp_path / "qrels").write_bytes(qrels)
    (tmp_path / "run").write_bytes(run)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


PROJECT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess:
    """The command as a user runs it, in its own process (stdout as raw bytes), on this checkout's code."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "cranfield", "trec-eval", *args]
    return subprocess.run(command, capture_output=True, timeout=60, env=env)


def test_a_latin1_docno_is_read_as_bytes_and_matches_between_qrels_and_run(tmp_path):
    qrels, run = write(tmp_path, QRELS, RUN)
    assert read_qrels(qrels)["1"]["caf\udce9"] == 1
    assert read_run(run)[0]["1"]["caf\udce9"] == 3.0
    result = cli("-m", "map", "-m", "P.1", qrels, run)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    assert b"P_1                   \tall\t0.5000\n" in result.stdout  # café, retrieved first, is relevant


def test_a_latin1_topic_id_prints_back_as_the_same_bytes(tmp_path):
    qrels, run = write(tmp_path, b"t\xe91 0 d1 1\n", b"t\xe91 Q0 d1 1 1.0 sys\xff\n")
    result = cli("-q", "-m", "runid", "-m", "map", qrels, run)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        b"map                   \tt\xe91\t1.0000",
        b"runid                 \tall\tsys\xff",
        b"map                   \tall\t1.0000",
    ]


@pytest.mark.parametrize("value", ["-2", "0", "2.5", "ten"])
def test_a_bad_max_docs_is_refused_with_a_clear_message(tmp_path, value, capsys):
    qrels, run = write(tmp_path, QRELS, RUN)
    with pytest.raises(SystemExit) as raised:
        main(["trec-eval", "-M", value, qrels, run])
    assert raised.value.code == 2
    error = capsys.readouterr().err
    assert "argument -M" in error and ("at least 1" in error or "whole number" in error)


def test_max_docs_keeps_the_top_documents(tmp_path, capsys):
    qrels, run = write(tmp_path, QRELS, RUN)
    assert main(["trec-eval", "-q", "-M", "1", "-m", "num_ret", qrels, run]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        "num_ret               \t1\t1",
        "num_ret               \t2\t1",
    ]


@pytest.mark.parametrize("where", ["qrels", "run", "both"])
def test_a_utf8_byte_order_mark_is_ignored(tmp_path, where, capsys):
    bom = b"\xef\xbb\xbf"
    qrels, run = write(
        tmp_path, (bom if where != "run" else b"") + QRELS, (bom if where != "qrels" else b"") + RUN
    )
    assert main(["trec-eval", "-m", "num_q", "-m", "map", qrels, run]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "num_q                 \tall\t2"


def test_no_topic_in_common_says_num_q_0_and_fails_not_silence(tmp_path, capsys):
    # trec_eval.c: "No queries with both results and relevance info" and a failing exit status; we
    # also print num_q 0, so a script reading the output sees that nothing was scored.
    qrels, run = write(tmp_path, b"1 0 d1 1\n", b"2 Q0 d1 1 1.0 sys\n")
    assert main(["trec-eval", "-m", "map", qrels, run]) == 2
    captured = capsys.readouterr()
    assert captured.out == "num_q                 \tall\t0\n"
    assert "no queries with both results and relevance info" in captured.err


def test_no_topic_in_common_with_complete_scores_every_qrels_topic(tmp_path, capsys):
    qrels, run = write(tmp_path, b"1 0 d1 1\n", b"2 Q0 d1 1 1.0 sys\n")
    assert main(["trec-eval", "-c", "-m", "num_q", "-m", "map", qrels, run]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "num_q                 \tall\t1",
        "map                   \tall\t0.0000",
    ]
