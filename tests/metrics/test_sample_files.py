"""The sample qrels ``sample_eval.pl`` reads (topic iter docno stratum rel) and the sampled pairs to judge
(topic docno stratum probability): written, read back, and bad lines refused by file, line and field."""

from __future__ import annotations

import io

import pytest

from evaluation.metrics.trec.files import TrecFormatError
from evaluation.metrics.trec.sample_files import (
    SampledPair,
    SampleJudgement,
    read_sample_pairs,
    read_sample_qrels,
    write_sample_pairs,
    write_sample_qrels,
)
from evaluation.metrics.trec.sampling import PoolMember

MEMBERS = [
    PoolMember("1", "a", 1, "1", 1.0, True),
    PoolMember("1", "b", 12, "2", 0.5, True),
    PoolMember("1", "c", 15, "2", 0.5, False),
]


def test_the_sample_qrels_round_trip_with_unsampled_documents_at_minus_one():
    written = io.StringIO()
    write_sample_qrels(MEMBERS, written, {"1": {"a": 2, "b": 0}})
    assert written.getvalue() == "1 0 a 1 2\n1 0 b 2 0\n1 0 c 2 -1\n"
    assert read_sample_qrels(written.getvalue().splitlines()) == {
        "1": {"a": SampleJudgement("1", 2), "b": SampleJudgement("2", 0), "c": SampleJudgement("2", -1)}
    }


def test_a_skeleton_marks_the_pairs_to_judge_and_cannot_be_scored_until_filled():
    written = io.StringIO()
    write_sample_qrels(MEMBERS, written)
    assert written.getvalue() == "1 0 a 1 ?\n1 0 b 2 ?\n1 0 c 2 -1\n"
    with pytest.raises(
        TrecFormatError, match=r"skeleton, line 1, field 'rel': 1 a was sampled but is not judged yet"
    ):
        read_sample_qrels(written.getvalue().splitlines(), name="skeleton")


@pytest.mark.parametrize(
    ("judgements", "message"),
    [
        ({"1": {"a": 1}}, "the sampled pair 1 b has no judgement"),
        ({"1": {"a": 1, "b": -1}}, "1 b is judged -1"),
    ],
)
def test_filling_needs_a_judgement_for_every_sampled_pair(judgements, message):
    with pytest.raises(ValueError, match=message):
        write_sample_qrels(MEMBERS, io.StringIO(), judgements)


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("1 0 a 1", "line", "expected 5 fields (topic iter docno stratum rel), found 4"),
        ("1 0 a 1 1 extra", "line", "found 6"),
        ("1 0 a 1 yes", "rel", "not an integer: 'yes'"),
        ("1 0 d 1 1", "docno", "'d' is listed twice for topic '1'"),
    ],
)
def test_a_bad_sample_qrels_line_is_named(line, field, message):
    with pytest.raises(TrecFormatError) as error:
        read_sample_qrels(["# a comment", "1 0 d 1 0", line], name="sample.qrels")
    assert (error.value.source, error.value.line, error.value.field) == ("sample.qrels", 3, field)
    assert message in error.value.message


def test_the_pairs_to_judge_are_the_sampled_members_with_their_probability():
    written = io.StringIO()
    write_sample_pairs(MEMBERS, written)
    assert written.getvalue() == "1 a 1 1.0\n1 b 2 0.5\n"
    assert read_sample_pairs(written.getvalue().splitlines()) == [
        SampledPair("1", "a", "1", 1.0), SampledPair("1", "b", "2", 0.5)
    ]  # fmt: skip


@pytest.mark.parametrize("probability", ["0", "-0.1", "1.0001", "nan", "inf"])
def test_a_probability_outside_zero_to_one_is_an_error_naming_the_line(probability):
    with pytest.raises(TrecFormatError) as error:
        read_sample_pairs(["1 a 1 1.0", f"1 b 2 {probability}"], name="pairs")
    assert (error.value.source, error.value.line, error.value.field) == ("pairs", 2, "probability")
    assert "outside (0, 1]" in error.value.message


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        ("1 b 2", "line", "expected 4 fields"),
        ("1 b 2 half", "probability", "not a number"),
        ("1 a 2 0.5", "docno", "twice"),
    ],
)
def test_a_bad_pairs_line_is_named(line, field, message):
    with pytest.raises(TrecFormatError) as error:
        read_sample_pairs(["1 a 1 1.0", line], name="pairs")
    assert (error.value.line, error.value.field) == (2, field)
    assert message in error.value.message
