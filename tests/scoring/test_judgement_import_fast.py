"""The judgement import reads plain lines without DRF's per-field machinery
(``evaluation.collection.judgement_import.plain_judgement``): on thousands of generated lines — plain
ones and every kind of awkward one (numbers as strings, bools, floats, blanks, spaces to trim,
non-ASCII and invisible characters, lengths at and past each limit, nulls, unknown and missing keys) —
it accepts only what the serializer accepts, with the very same validated data, and a list with any
refused line gets the serializer's own errors."""

from __future__ import annotations

import random

import pytest
from rest_framework import serializers

from evaluation.collection.judgement_import import (
    MAX_JUDGEMENTS,
    JudgementInSerializer,
    JudgementRows,
    plain_judgement,
)

AWKWARD = {
    "task": [1, 7, 2**63 - 1, 2**63, 0, -3, "5", 5.0, 5.5, True, None, "", [1]],
    "topic": [
        "401",
        "t" * 100,
        "t" * 101,
        "",
        " 401",
        "4 01",
        "café",
        "cafe\u0301",
        "a\u200bb",
        None,
        401,
        True,
    ],
    "document": ["d1", "D-7_x.y", "d" * 200, "d" * 201, "", "d1 ", "d\t1", "dé", None, 12, 1.5, ["d"]],
    "document_b": ["d2", "", None, "x y", "d" * 201, 3],
    "annotator": [
        "ann",
        "a b",
        " ann",
        "ann ",
        "a" * 150,
        "a" * 151,
        "",
        "José",
        "a\x00b",
        "a\nb",
        7,
        None,
        True,
    ],
    "label": [0, 1, 3, -32768, 32767, 32768, -32769, "1", 1.0, 1.5, True, False, None, [1]],
    "answer": [{"label": 1}, {"scores": {"x": 3}}, None, [], "yes", 3, {}],
    "seconds_spent": [0, 12, 3.5, 1e9, 1e9 + 1, -1, "3", None, True, 2**70],
}


def plain_line(rng: random.Random) -> dict:
    line: dict = {"annotator": f"ann{rng.randrange(5)}"}
    if rng.random() < 0.3:
        line["task"] = rng.randrange(1, 10_000)
    else:
        line["document"] = f"d{rng.randrange(1000)}"
        if rng.random() < 0.8:
            line["topic"] = f"t{rng.randrange(50)}"
    if rng.random() < 0.5:
        line["label"] = rng.randrange(2)
    else:
        line["answer"] = {"scores": {"fluency": rng.randint(1, 5)}}
    if rng.random() < 0.4:
        line["seconds_spent"] = rng.choice([rng.uniform(0, 300), rng.randrange(300), None])
    return line


def awkward_line(rng: random.Random):
    roll = rng.random()
    if roll < 0.03:
        return rng.choice([None, [], "line", 3])
    line = plain_line(rng)
    for _ in range(rng.randint(1, 3)):
        key = rng.choice(list(AWKWARD))
        line[key] = rng.choice(AWKWARD[key])
    if rng.random() < 0.1:
        del line[rng.choice(list(line))]
    if rng.random() < 0.05:
        line["lable"] = 1
    return line


def drf(lines):
    """The serializer's own list, as it reads without this module."""
    return serializers.ListSerializer(
        child=JudgementInSerializer(), data=lines, allow_empty=False, max_length=MAX_JUDGEMENTS
    )


def ours(lines):
    serializer = JudgementInSerializer(data=lines, many=True, allow_empty=False, max_length=MAX_JUDGEMENTS)
    assert isinstance(serializer, JudgementRows)
    return serializer


def test_a_plain_line_reads_as_the_serializer_reads_it_and_no_other_line_is_read_at_all():
    rng = random.Random(28)
    read = refused_by_us = 0
    for n in range(6000):
        line = plain_line(rng) if n % 3 == 0 else awkward_line(rng)
        plain = plain_judgement(line)
        serializer = JudgementInSerializer(data=line)
        if plain is None:
            refused_by_us += 1
            continue
        read += 1
        assert serializer.is_valid(), (line, serializer.errors)
        assert plain == dict(serializer.validated_data), line
        assert [type(v) for v in plain.values()] == [type(serializer.validated_data[k]) for k in plain]
    # Both kinds were met many times.
    assert read > 2000 and refused_by_us > 1500


@pytest.mark.parametrize("seed", range(40))
def test_a_list_reads_as_the_serializer_reads_it_or_fails_with_its_errors(seed):
    rng = random.Random(seed)
    size = rng.choice([1, 2, 5, 30])
    share = rng.choice([0.0, 0.0, 0.02, 0.2, 1.0])
    lines = [awkward_line(rng) if rng.random() < share else plain_line(rng) for _ in range(size)]
    expected, got = drf(lines), ours(lines)
    assert got.is_valid() == expected.is_valid()
    if expected.is_valid():
        assert got.validated_data == [dict(row) for row in expected.validated_data]
    else:
        assert got.errors == expected.errors


@pytest.mark.parametrize("body", [[], "lines", {"a": 1}, None, 3])
def test_a_list_that_is_not_one_fails_as_the_serializer_fails(body):
    expected, got = drf(body), ours(body)
    assert not got.is_valid() and not expected.is_valid()
    assert got.errors == expected.errors
