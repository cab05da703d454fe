"""ROUGE against Google's rouge-score: identical precision, recall and F to 1e-9."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer

from evaluation.metrics.rouge import lcs_length, score, tokenize

TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]
vocabulary = [
    "The",
    "cat",
    "cats",
    "running",
    "runs",
    "ran",
    "on",
    "a",
    "mat",
    "mats",
    "semi-aquatic",
    "water",
    "spinach",
    "is",
    "grown",
    "3.5",
    "U.S.",
    "don't",
    ",",
    ".",
    "\n",
    "généralement",
]
texts = st.lists(st.sampled_from(vocabulary), min_size=0, max_size=30).map(" ".join)


def assert_same(ours, theirs):
    for rouge_type, expected in theirs.items():
        got = ours[rouge_type]
        assert got.precision == pytest.approx(expected.precision, abs=1e-9), rouge_type
        assert got.recall == pytest.approx(expected.recall, abs=1e-9), rouge_type
        assert got.fmeasure == pytest.approx(expected.fmeasure, abs=1e-9), rouge_type


@settings(max_examples=400, deadline=None)
@given(prediction=texts, references=st.lists(texts, min_size=1, max_size=4), stem=st.booleans())
def test_equal_to_rouge_score(prediction, references, stem):
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=stem)
    theirs = scorer.score_multi(references, prediction)
    assert_same(score(prediction, references, TYPES, stem=stem), theirs)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=40), st.lists(st.sampled_from("abcde"), max_size=40))
def test_bit_parallel_lcs_equals_dynamic_programming(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = (
                table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
            )
    assert lcs_length(a, b) == table[-1][-1]


def test_the_tokeniser_splits_on_every_non_alphanumeric():
    assert tokenize("Semi-aquatic water spinach, U.S. 3.5!") == [
        "semi",
        "aquatic",
        "water",
        "spinach",
        "u",
        "s",
        "3",
        "5",
    ]
    assert tokenize("running cats", stem=True) == ["run", "cat"]


def test_identical_texts_score_one_and_unknown_types_are_refused():
    result = score("the cat sat", ["the cat sat"], ["rouge1", "rouge2", "rougeL"])
    assert all(s.fmeasure == 1.0 for s in result.values())
    with pytest.raises(ValueError, match="unknown ROUGE type"):
        score("a", ["a"], ["rougeX"])
