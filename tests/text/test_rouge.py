"""ROUGE-1/2/3/L/Lsum against Google's rouge-score: identical precision, recall and F to 1e-9.

Generated texts mix words that stem together, punctuation, digits, non-ASCII letters and
newlines (sentence breaks for ROUGE-Lsum); real texts are summaries from DialSummEval and
ROUGE-1.5.5's SL2003 sample. About 3,000 generated comparisons plus 2,600 real pairs in all.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rouge_score import rouge_scorer
from rouge_score.rouge_scorer import _backtrack_norec, _lcs_table

from evaluation.metrics.rouge.lcs import lcs_reference_positions, token_masks
from evaluation.metrics.rouge.scores import RougeScorer, lcs_length, score, tokenize

TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]
VOCABULARY = [
    "The", "cat", "cats", "running", "runs", "ran", "on", "a", "mat", "mats", "semi-aquatic",
    "water", "spinach", "is", "grown", "3.5", "U.S.", "don't", ",", ".", "\n", "\n\n",
    "généralement", "KELVIN", "İstanbul", "the", "the", "generously", "generous",
]  # fmt: skip
texts = st.lists(st.sampled_from(VOCABULARY), min_size=0, max_size=40).map(" ".join)
SCORERS = {stem: rouge_scorer.RougeScorer(TYPES, use_stemmer=stem) for stem in (False, True)}
OURS = {stem: RougeScorer(TYPES, stem=stem) for stem in (False, True)}


def assert_same(ours, theirs, types=TYPES):
    for rouge_type in types:
        expected, got = theirs[rouge_type], ours[rouge_type]
        assert got.precision == pytest.approx(expected.precision, abs=1e-9), rouge_type
        assert got.recall == pytest.approx(expected.recall, abs=1e-9), rouge_type
        assert got.fmeasure == pytest.approx(expected.fmeasure, abs=1e-9), rouge_type


@settings(max_examples=1500, deadline=None)
@given(prediction=texts, references=st.lists(texts, min_size=1, max_size=4), stem=st.booleans())
def test_generated_texts_score_as_rouge_score(prediction, references, stem):
    assert_same(OURS[stem].score(prediction, references), SCORERS[stem].score_multi(references, prediction))


@cache
def real_sentences(data_set) -> tuple[str, ...]:
    found = []
    for path in sorted(data_set("summ_rouge155_sl2003").rglob("*.html")):
        found += [html.unescape(s) for s in re.findall(r"id=\d+>(.*?)</a>", path.read_text())]
    for path in sorted((data_set("summ_dialsummeval") / "reported_metrics").glob("*.summs.txt")):
        for line in path.read_text().splitlines():
            found += [s for s in re.split(r"(?<=[.!?])\s+", line) if s.strip()]
    return tuple(found)


@pytest.fixture(scope="module")
def sentences(data_set):
    return real_sentences(data_set)


summaries = st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=5)


@settings(max_examples=500, deadline=None)
@given(prediction=summaries, references=st.lists(summaries, min_size=1, max_size=4), stem=st.booleans())
def test_real_sentences_recombined_score_as_rouge_score(sentences, prediction, references, stem):
    def text(picks):
        return "\n".join(sentences[i % len(sentences)] for i in picks)

    prediction_text, reference_texts = text(prediction), [text(r) for r in references]
    assert_same(
        OURS[stem].score(prediction_text, reference_texts),
        SCORERS[stem].score_multi(reference_texts, prediction_text),
    )


@pytest.mark.parametrize("stem", [False, True])
def test_every_dialsummeval_summary_scores_as_rouge_score(data_set, stem):
    folder = data_set("summ_dialsummeval") / "reported_metrics"
    references = folder.joinpath("A.summs.txt").read_text().splitlines()
    compared = 0
    for model in "BCDEFGHIJKLMN":
        for prediction, reference in zip(
            folder.joinpath(f"{model}.summs.txt").read_text().splitlines(), references, strict=True
        ):
            assert_same(OURS[stem].score(prediction, [reference]), SCORERS[stem].score(reference, prediction))
            compared += 1
    assert compared == 1300


def test_sl2003_sample_with_four_references_scores_as_rouge_score(data_set):
    rows = [json.loads(line) for line in (data_set("summ_rouge155_sl2003") / "sample.jsonl").open()]
    assert len(rows) == 200 and all(len(row["references"]) == 4 for row in rows)
    for row in rows:
        assert_same(
            OURS[False].score(row["prediction"], row["references"]),
            SCORERS[False].score_multi(row["references"], row["prediction"]),
        )


def dp_table(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = (
                table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
            )
    return table


tokens = st.lists(st.sampled_from("abcde"), max_size=40)


@settings(max_examples=500, deadline=None)
@given(tokens, tokens)
def test_bit_parallel_lcs_length_equals_dynamic_programming(a, b):
    assert lcs_length(a, b) == dp_table(a, b)[-1][-1]


@settings(max_examples=1000, deadline=None)
@given(tokens, st.lists(st.sampled_from("abcdef"), max_size=40))
def test_bit_parallel_backtracking_picks_rouge_score_s_lcs(reference, candidate):
    # Which LCS is chosen decides the union in ROUGE-Lsum, so it must be the very same one.
    expected = _backtrack_norec(_lcs_table(reference, candidate), reference, candidate)
    chosen = lcs_reference_positions(token_masks(reference), len(reference), candidate)
    assert [i for i in range(len(reference)) if chosen >> i & 1] == expected


def test_the_tokeniser_splits_on_every_non_alphanumeric():
    assert tokenize("Semi-aquatic water spinach, U.S. 3.5!") == [
        "semi", "aquatic", "water", "spinach", "u", "s", "3", "5",
    ]  # fmt: skip
    assert tokenize("running cats", stem=True) == ["run", "cat"]


def test_identical_texts_score_one_and_unknown_types_are_refused():
    result = score("the cat sat", ["the cat sat"], ["rouge1", "rouge2", "rougeL"])
    assert all(s.fmeasure == 1.0 for s in result.values())
    with pytest.raises(ValueError, match="unknown ROUGE type"):
        score("a", ["a"], ["rougeX"])
    with pytest.raises(ValueError, match="non-empty list"):
        score("a", [])
    with pytest.raises(ValueError, match="multi_ref must be one of max, pooled, jackknife"):
        RougeScorer(multi_ref="average")


def test_empty_predictions_and_references_score_zero_as_in_rouge_score():
    for prediction, references in [("", ["the cat"]), ("the cat", [""]), ("", [""]), ("...", ["!!"])]:
        ours = OURS[False].score(prediction, references)
        assert_same(ours, SCORERS[False].score_multi(references, prediction))
        assert all(value == (0.0, 0.0, 0.0) for value in ours.values())


STEM_PROBE = """
import json, sys
from evaluation.metrics.rouge.text import stem_token
words = json.loads(sys.stdin.read())
stems = [stem_token(word) for word in words]
alone = sorted(name for name in sys.modules if name.startswith("nltk"))
import nltk.stem.porter  # nltk whole, after the stemmer loaded alone
print(json.dumps({"stems": stems, "alone": alone, "whole": nltk.stem.porter.PorterStemmer().stem("running")}))
"""


def test_the_porter_stemmer_loaded_without_the_rest_of_nltk_is_nltk_s():
    """Stemming loads nltk/stem/porter.py alone (nltk's __init__ takes seconds); same stems as nltk's
    own PorterStemmer, nothing of it left in sys.modules, and a later import of nltk works."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from nltk.stem import porter

    words = sorted(set(tokenize(Path(__file__).read_text())) | {"generalization", "happily", "ponies"})
    result = subprocess.run(
        [sys.executable, "-c", STEM_PROBE],
        input=json.dumps(words),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    stemmer = porter.PorterStemmer()
    assert answer["stems"] == [stemmer.stem(word) if len(word) > 3 else word for word in words]
    assert answer["alone"] == [] and answer["whole"] == "run"
