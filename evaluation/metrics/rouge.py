"""ROUGE-N, ROUGE-L and ROUGE-Lsum (Lin 2004), scoring exactly as Google's ``rouge-score`` does.

Tokenisation is rouge-score's: lowercase, every run of characters outside ``[a-z0-9]`` is a
separator, and with stemming nltk's Porter stemmer is applied to tokens longer than 3 characters.
With several references the score is the reference with the best F-measure (``max``, as
rouge-score and HF evaluate do). ROUGE-L's LCS length uses the bit-parallel algorithm of
Allison & Dix (1986) / Hyyrö (2004) on Python integers; ROUGE-Lsum keeps rouge-score's own
union-LCS with its backtracking order, since which LCS is chosen changes the hits.
Not yet here (issue 4): ROUGE-W/S/SU, pooled and jackknife references, truncation, stop words,
bootstrap confidence intervals.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from nltk.stem import porter

NON_ALPHANUMERIC = re.compile(r"[^a-z0-9]+")
ROUGE_N = re.compile(r"rouge([1-9])$")
_stemmer = porter.PorterStemmer()


@lru_cache(maxsize=200_000)
def _stem(token: str) -> str:
    return _stemmer.stem(token) if len(token) > 3 else token


def tokenize(text: str, stem: bool = False) -> list[str]:
    """rouge-score's tokeniser (``rouge_score.tokenize.tokenize``)."""
    tokens = NON_ALPHANUMERIC.sub(" ", text.lower()).split()
    if stem:
        tokens = [_stem(token) for token in tokens]
    return [token for token in tokens if token]


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    fmeasure: float


def _score(hits: int, prediction_total: int, reference_total: int) -> Score:
    precision = hits / prediction_total if prediction_total else 0.0
    recall = hits / reference_total if reference_total else 0.0
    f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return Score(precision, recall, f)


def ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def rouge_n(reference: Sequence[str], prediction: Sequence[str], n: int) -> Score:
    """Clipped n-gram overlap: hits / prediction n-grams (P), hits / reference n-grams (R)."""
    reference_ngrams, prediction_ngrams = ngrams(reference, n), ngrams(prediction, n)
    hits = sum(min(count, prediction_ngrams[gram]) for gram, count in reference_ngrams.items())
    return _score(hits, max(sum(prediction_ngrams.values()), 1), max(sum(reference_ngrams.values()), 1))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of a longest common subsequence, bit-parallel: O(len(b)) big-integer operations."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for position, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << position)
    full = (1 << len(a)) - 1
    v = full
    for token in b:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def rouge_l(reference: Sequence[str], prediction: Sequence[str]) -> Score:
    if not reference or not prediction:
        return Score(0.0, 0.0, 0.0)
    return _score(lcs_length(reference, prediction), len(prediction), len(reference))


def _lcs_indices(ref: Sequence[str], can: Sequence[str]) -> list[int]:
    """One LCS as indices into ``ref``, chosen exactly as rouge-score's ``_backtrack_norec``."""
    rows, cols = len(ref), len(can)
    table = [[0] * (cols + 1) for _ in range(rows + 1)]
    for i in range(1, rows + 1):
        row, previous, token = table[i], table[i - 1], ref[i - 1]
        for j in range(1, cols + 1):
            row[j] = previous[j - 1] + 1 if token == can[j - 1] else max(previous[j], row[j - 1])
    indices, i, j = [], rows, cols
    while i > 0 and j > 0:
        if ref[i - 1] == can[j - 1]:
            indices.append(i - 1)
            i -= 1
            j -= 1
        elif table[i][j - 1] > table[i - 1][j]:
            j -= 1
        else:
            i -= 1
    return indices


def rouge_lsum(
    reference_sentences: Sequence[Sequence[str]], prediction_sentences: Sequence[Sequence[str]]
) -> Score:
    """Summary-level LCS (Lin 2004 §3.2): union LCS of each reference sentence with every candidate
    sentence, each token counted at most as often as it occurs on both sides (as ROUGE-1.5.5)."""
    m = sum(map(len, reference_sentences))
    n = sum(map(len, prediction_sentences))
    if not reference_sentences or not prediction_sentences or not m or not n:
        return Score(0.0, 0.0, 0.0)
    reference_left = Counter(token for sentence in reference_sentences for token in sentence)
    prediction_left = Counter(token for sentence in prediction_sentences for token in sentence)
    hits = 0
    for sentence in reference_sentences:
        union = sorted(
            set().union(*(_lcs_indices(sentence, candidate) for candidate in prediction_sentences))
        )
        for token in (sentence[i] for i in union):
            if prediction_left[token] > 0 and reference_left[token] > 0:
                hits += 1
                prediction_left[token] -= 1
                reference_left[token] -= 1
    return _score(hits, n, m)


def _sentences(text: str, stem: bool) -> list[list[str]]:
    return [tokenize(line, stem) for line in text.split("\n") if line]


def score(
    prediction: str, references: Sequence[str], rouge_types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    *, stem: bool = False,
) -> dict[str, Score]:  # fmt: skip
    """Each requested ROUGE type against the best reference by F-measure (first on ties)."""
    if not references:
        raise ValueError("at least one reference is needed")
    for rouge_type in rouge_types:
        if rouge_type not in {"rougeL", "rougeLsum"} and not ROUGE_N.match(rouge_type):
            raise ValueError(f"unknown ROUGE type {rouge_type!r}; use rouge1…rouge9, rougeL, rougeLsum")
    prediction_tokens = tokenize(prediction, stem)
    prediction_sentences = _sentences(prediction, stem) if "rougeLsum" in rouge_types else []
    best: dict[str, Score] = {}
    for reference in references:
        reference_tokens = tokenize(reference, stem)
        for rouge_type in rouge_types:
            if rouge_type == "rougeL":
                result = rouge_l(reference_tokens, prediction_tokens)
            elif rouge_type == "rougeLsum":
                result = rouge_lsum(_sentences(reference, stem), prediction_sentences)
            else:
                result = rouge_n(reference_tokens, prediction_tokens, int(rouge_type[5:]))
            if rouge_type not in best or result.fmeasure > best[rouge_type].fmeasure:
                best[rouge_type] = result
    return best
