"""TREC qrels and run files: trec_eval 10.0's own test files parse, and bad lines are named."""

from __future__ import annotations

import io

import pytest

from evaluation.metrics.trec.files import (
    TrecFormatError,
    read_qrels,
    read_run,
    trec_order,
    write_qrels,
    write_run,
)


def test_comment_lines_are_skipped_but_a_hash_inside_a_docno_is_kept(data_set):
    tests = data_set("trec_eval_tests")
    plain = read_qrels(tests / "qrels.test")
    commented = read_qrels(tests / "qrels.test.with-comments")
    assert "CR#93E-1860" in commented["301"]
    assert sum(map(len, plain.values())) == 3681
    assert sum(map(len, commented.values())) == 3681


def test_trailing_fields_after_the_tag_are_ignored_as_trec_eval_does(data_set):
    run, tag = read_run(data_set("trec_eval_tests") / "results.trunc")
    assert tag == "STANDARD"
    assert run["301"]["FBIS3-27619"] == pytest.approx(2.138276)


def test_msmarco_segment_ids_with_hashes_are_docnos(data_set):
    run, _ = read_run(data_set("trec_eval_tests") / "results.comment.test")
    assert "msmarco_v2.1_doc_50_2286987788#13_3087841662" in run["2024-224960"]
    assert sum(map(len, run.values())) == 30100


@pytest.mark.parametrize(
    ("text", "field", "line"),
    [
        ("1 Q0 d1 1 1.0 r\n1 Q0 d2 2 x r\n", "score", 2),
        ("1 Q0 d1 1 1.0\n", "line", 1),
        ("1 Q0 d1 1 1.0 r\n\n# note\n1 Q0 d1 2 0.5 r\n", "docno", 4),
        ("1 Q0 d1 1 nan r\n", "score", 1),
    ],
)
def test_bad_run_lines_name_source_line_and_field(text, field, line):
    with pytest.raises(TrecFormatError) as raised:
        read_run(io.StringIO(text), name="myrun.txt")
    assert (raised.value.source, raised.value.line, raised.value.field) == ("myrun.txt", line, field)
    assert f"myrun.txt, line {line}" in str(raised.value)


@pytest.mark.parametrize(
    ("text", "field", "line"),
    [("1 0 d1\n", "line", 1), ("1 0 d1 yes\n", "rel", 1), ("1 0 d1 1\n1 0 d1 0\n", "rel", 2)],
)
def test_bad_qrels_lines_name_line_and_field(text, field, line):
    with pytest.raises(TrecFormatError) as raised:
        read_qrels(io.StringIO(text))
    assert (raised.value.line, raised.value.field) == (line, field)


def test_a_repeated_identical_qrels_line_is_accepted():
    assert read_qrels(["1 0 d1 2", "1 0 d1 2"]) == {"1": {"d1": 2}}


def test_trec_order_is_score_descending_then_docno_descending():
    assert trec_order({"a": 1.0, "b": 2.0, "c": 1.0}) == ["b", "c", "a"]


def test_written_files_read_back_identically():
    qrels = {"2": {"b": 0, "a": 3}, "10": {"x": -1}}
    run = {"1": {"a": 0.5, "b": 0.25, "c": 0.5}}
    qrels_out, run_out = io.StringIO(), io.StringIO()
    write_qrels(qrels, qrels_out)
    write_run(run, run_out, "sys")
    assert read_qrels(qrels_out.getvalue().splitlines()) == qrels
    assert read_run(run_out.getvalue().splitlines()) == (run, "sys")
    assert run_out.getvalue().splitlines()[0] == "1 Q0 c 1 0.5 sys"


RUN_FILES = {
    "plain": "1 Q0 d1 1 0.5 sys\n1 Q0 d2 2 0.25 sys\n2 Q0 d1 1 3 sys\n",
    "tabs, Windows line ends, fields after the tag": "1\tQ0\td1 1 0.5 sys x\r\n1 Q0 d2 2  1e-3 sys\r\n",
    "a topic's lines apart": "1 Q0 d1 1 0.5 a\n2 Q0 d1 1 0.5 b\n1 Q0 d2 2 0.25 c\n",
    "topic ids longer than loadtxt's 32 bytes": f"{'q' * 40} Q0 d1 1 0.5 s\n{'q' * 32} Q0 d1 1 0.5 s\n",
    "a blank first line and a unit separator between fields": "\n1\x1fQ0 d1 1 0.5 tag\n",
    "scores Python reads and NumPy does not": "1 Q0 d1 1 1_000 s\n1 Q0 d2 1 0.5 s\n",
}


@pytest.mark.parametrize("name", list(RUN_FILES))
def test_a_run_file_reads_as_its_lines_do(tmp_path, name):
    """Files may be read by NumPy's C reader, lines always by the Python passes: the same result."""
    path = tmp_path / "run"
    path.write_bytes(RUN_FILES[name].encode())
    from_file, from_lines = read_run(path), read_run(RUN_FILES[name].splitlines())
    assert from_file == from_lines
    assert [list(docnos) for docnos in from_file[0].values()] == [list(d) for d in from_lines[0].values()]


@pytest.mark.parametrize(
    "text",
    ["1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n", "1\t0\td1\t+1\r\n2 0 d1 -1\r\n1 0 d2 007\r\n", f"{'q' * 33} 0 d1 1\n"],
)
def test_a_qrels_file_reads_as_its_lines_do(tmp_path, text):
    path = tmp_path / "qrels"
    path.write_bytes(text.encode())
    assert read_qrels(path) == read_qrels(text.splitlines())


def test_a_bad_line_in_a_file_is_still_named(tmp_path):
    path = tmp_path / "run"
    path.write_text("1 Q0 d1 1 0.5 r\n1 Q0 d2 2 0.25\n")
    with pytest.raises(TrecFormatError) as raised:
        read_run(path)
    assert (raised.value.line, raised.value.field) == (2, "line")
