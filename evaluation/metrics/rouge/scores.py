"""ROUGE (Lin 2004): ROUGE-N, -L, -Lsum, -W, -S and -SU against one or several references.

By default every score equals Google's ``rouge-score`` (same tokeniser, same optional Porter
stemming, same LCS for ROUGE-Lsum, best reference by F-measure). ROUGE-W/S/SU, the pooled
reference mode, stop words and truncation follow ROUGE-1.5.5 (Lin's Perl package), whose output
most published ROUGE figures are. Types, by name:

``rouge1`` … ``rouge9``
    clipped n-gram overlap; P = hits / candidate n-grams, R = hits / reference n-grams.
``rougeL``
    LCS of the whole texts (rouge-score's ``rougeL``, Lin 2004 §3.1, sentence level).
``rougeLsum``
    summary-level union LCS over sentences = the lines of each text (Lin 2004 §3.2; rouge-score's
    ``rougeLsum``; ROUGE-1.5.5's ROUGE-L, which always reads sentences).
``rougeW``
    weighted LCS with f(k) = k^weight (weight 1.2 by default, as ROUGE-1.5.5's ``-w 1.2``),
    Lin (2004) §4: WLCS(X, Y) by his dynamic programme over the whole texts (as ``rougeL``),
    R = f⁻¹(WLCS / f(m)), P = f⁻¹(WLCS / f(n)). ``rouge_w="rouge155"`` reproduces ROUGE-1.5.5's
    ROUGE-W instead, which differs three ways: it is summary-level over sentences (the lines, as
    ``rougeLsum``) with the union and clipping of ROUGE-L; it weighs runs of consecutive
    *reference* positions on the union path, not consecutive matches in both texts (so Lin's own
    example Y2 scores like Y1); and ``computeWLCSScore`` applies f a second time to the reference
    total, R = f⁻¹(hit / f(Σ f(|r_i|))), with P = f⁻¹(hit / f(n)) — identical texts do not score 1.
``rougeS4``, ``rougeSU4``, ``rougeS*``, ``rougeSU*``
    skip-bigrams with at most 4 (any) tokens between the two words, SU adding unigrams, exactly as
    ROUGE-1.5.5's ``-2 4 [-u]`` (see ``rouge_ngrams``).

F is F-beta, (1 + β²)·P·R / (β²·P + R); β = 1 gives rouge-score's F. (ROUGE-1.5.5's ``-p α``
is the same measure with α = 1 / (1 + β²).)

Several references, each mode named explicitly:

``max``
    the reference with the best F, per type, first on ties (rouge-score ``score_multi``, HF
    ``evaluate``).
``pooled``
    Lin (2004) eq. 1: hits summed over references divided by all reference units (recall), and by
    the candidate's units once per reference (precision) — ROUGE-1.5.5's default model-average
    mode (``-f A``), which clips hits per reference.
``jackknife``
    for M ≥ 2 references, the best (by F) over each of the M leave-one-out subsets of M − 1
    references, precision, recall and F each averaged over the subsets (Lin 2004 §2; the
    procedure of ROUGE before version 1.4). With one reference it is that reference's score.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import NamedTuple

from evaluation.metrics.rouge.lcs import (
    lcs_length,
    token_masks,
    union_lcs_hits,
    weighted_union_lcs_hits,
    wlcs,
)
from evaluation.metrics.rouge.ngrams import clipped_overlap, ngram_counts, skip_bigram_counts
from evaluation.metrics.rouge.text import (
    ALPHANUMERIC_RUN,
    Tokenizer,
    make_tokenizer,
    rouge155_stop_words,
    sentences,
    tokenize,
    truncate,
)

__all__ = [
    "MULTI_REFERENCE_MODES",
    "RougeScorer",
    "Score",
    "lcs_length",
    "parse_rouge_type",
    "score",
    "tokenize",
]

MULTI_REFERENCE_MODES = ("max", "pooled", "jackknife")
DEFAULT_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
_TYPE_PATTERN = re.compile(r"rouge(?:([1-9])|(L)|(Lsum)|(W)|S(U)?(\d+|\*))$")


class Score(NamedTuple):
    precision: float
    recall: float
    fmeasure: float


@dataclass(frozen=True)
class RougeType:
    name: str
    kind: str  # "N", "L", "Lsum", "W" or "S"
    n: int = 0
    max_skip: int | None = None
    unigrams: bool = False


def parse_rouge_type(name: str) -> RougeType:
    """A type by name: ``rouge1``…``rouge9``, ``rougeL``, ``rougeLsum``, ``rougeW``, ``rougeS<d>``,
    ``rougeSU<d>`` (d the maximum skip, or ``*``)."""
    match = _TYPE_PATTERN.match(name)
    if not match:
        raise ValueError(
            f"unknown ROUGE type {name!r}; use rouge1…rouge9, rougeL, rougeLsum, rougeW, "
            "rougeS<d>, rougeSU<d> (d = maximum skip, or * for any)"
        )
    n, lcs, lsum, weighted, unigrams, skip = match.groups()
    if n:
        return RougeType(name, "N", n=int(n))
    if lcs:
        return RougeType(name, "L")
    if lsum:
        return RougeType(name, "Lsum")
    if weighted:
        return RougeType(name, "W")
    return RougeType(name, "S", max_skip=None if skip == "*" else int(skip), unigrams=bool(unigrams))


class _Prepared(NamedTuple):
    tokens: list[str]
    sentences: list[list[str]] | None
    sentence_sets: list[frozenset[str]] | None
    unigrams: Counter
    units: dict  # per ROUGE type name: Counter of its counting units (N and S types)
    masks: dict[str, int] | None  # token positions, for the candidate's ROUGE-L


def _nltk_version() -> str:
    # From nltk's metadata: importing nltk itself takes seconds (see rouge_text).
    from importlib.metadata import version

    return version("nltk")


class RougeScorer:
    """Scores predictions against references with fixed settings; ``signature`` names them all.

    Parameters: ``rouge_types`` (see the module docstring); ``stem`` (rouge-score's Porter
    stemming); ``multi_ref`` (``max``, ``pooled`` or ``jackknife``); ``beta`` of F-beta;
    ``weight`` of ROUGE-W and its variant ``rouge_w`` (``lin2004`` or ``rouge155``);
    ``remove_stop_words`` with ``stop_words`` (default: ROUGE-1.5.5's own list, as its ``-s``; see
    ``rouge_text``); ``truncate_words`` / ``truncate_bytes`` cut the *candidate* as ROUGE-1.5.5's
    ``-l``/``-b`` (which also cuts its references); ``tokenizer`` replaces rouge-score's
    tokeniser (it receives each text, or each line for ROUGE-Lsum/W, and returns tokens).
    """

    def __init__(
        self,
        rouge_types: Sequence[str] = DEFAULT_TYPES,
        *,
        stem: bool = False,
        multi_ref: str = "max",
        beta: float = 1.0,
        weight: float = 1.2,
        rouge_w: str = "lin2004",
        remove_stop_words: bool = False,
        stop_words: Collection[str] | None = None,
        truncate_words: int | None = None,
        truncate_bytes: int | None = None,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        if not rouge_types:
            raise ValueError("at least one ROUGE type is needed")
        self.types = [parse_rouge_type(name) for name in rouge_types]
        if multi_ref not in MULTI_REFERENCE_MODES:
            modes = ", ".join(MULTI_REFERENCE_MODES)
            raise ValueError(f"multi_ref must be one of {modes}, got {multi_ref!r}")
        if not beta > 0:
            raise ValueError(f"beta must be positive, got {beta}")
        if not weight > 0:
            raise ValueError(f"the ROUGE-W weight must be positive, got {weight}")
        if rouge_w not in ("lin2004", "rouge155"):
            raise ValueError(f"rouge_w must be lin2004 or rouge155, got {rouge_w!r}")
        if truncate_words is not None and truncate_bytes is not None:
            raise ValueError("truncate to words or to bytes, not both")
        for limit in (truncate_words, truncate_bytes):
            if limit is not None and limit <= 0:
                raise ValueError(f"truncation limit must be positive, got {limit}")
        self.stem = stem
        self.multi_ref = multi_ref
        self.beta = beta
        self.weight = weight
        self.rouge_w = rouge_w
        self.truncate_words = truncate_words
        self.truncate_bytes = truncate_bytes
        self.custom_tokenizer = tokenizer is not None
        if stop_words is not None:
            remove_stop_words = True
        self.stop_words: frozenset[str] | None = None
        if remove_stop_words:
            self.stop_words = frozenset(stop_words) if stop_words is not None else rouge155_stop_words()
        self.stop_word_list = (
            "none" if not remove_stop_words else "rouge155-smart" if stop_words is None else "custom"
        )
        self._tokenize = make_tokenizer(stem, self.stop_words, tokenizer)
        self._plain_tokens = not stem and self.stop_words is None and tokenizer is None
        kinds = {rouge_type.kind for rouge_type in self.types}
        self._needs_sentences = "Lsum" in kinds or ("W" in kinds and rouge_w == "rouge155")
        self._needs_masks = "L" in kinds
        self._weights: list[float] = []
        self._inverse_weight = 1.0 / weight

    @property
    def signature(self) -> str:
        """Every setting that changes a score, sacrebleu-style, for stored results."""
        truncation = (
            f"words:{self.truncate_words}" if self.truncate_words
            else f"bytes:{self.truncate_bytes}" if self.truncate_bytes else "none"
        )  # fmt: skip
        parts = [
            "rouge",
            "types:" + ",".join(rouge_type.name for rouge_type in self.types),
            f"multi:{self.multi_ref}",
            f"beta:{self.beta:g}",
            "tok:custom" if self.custom_tokenizer else "tok:rouge-score",
            f"stem:porter-nltk{_nltk_version()}" if self.stem else "stem:no",
            f"stop:{self.stop_word_list}",
            f"trunc:{truncation}",
        ]
        if any(rouge_type.kind == "W" for rouge_type in self.types):
            parts.append(f"w:{self.weight:g},{self.rouge_w}")
        return "|".join(parts)

    # -- preparing texts -------------------------------------------------------------------

    def _prepare(self, text: str, candidate: bool = False) -> _Prepared:
        if self._needs_sentences:
            if self._plain_tokens:  # lowercasing the whole text at once is the same, and faster
                sentence_tokens = [ALPHANUMERIC_RUN.findall(line) for line in sentences(text.lower())]
            else:
                sentence_tokens = [self._tokenize(line) for line in sentences(text)]
            if self.custom_tokenizer:
                tokens = self._tokenize(text)
            else:  # the rouge-score tokens of a text are those of its lines, in order
                tokens = list(chain.from_iterable(sentence_tokens))
        else:
            sentence_tokens = None
            tokens = self._tokenize(text)
        units = {}
        for rouge_type in self.types:
            if rouge_type.kind == "N" and rouge_type.n > 1:
                units[rouge_type.name] = ngram_counts(tokens, rouge_type.n)
            elif rouge_type.kind == "S":
                units[rouge_type.name] = skip_bigram_counts(tokens, rouge_type.max_skip, rouge_type.unigrams)
        sentence_sets = None
        if sentence_tokens is not None:
            sentence_sets = [frozenset(sentence) for sentence in sentence_tokens]
        masks = token_masks(tokens) if candidate and self._needs_masks else None
        return _Prepared(tokens, sentence_tokens, sentence_sets, Counter(tokens), units, masks)

    def _wlcs_weights(self, length: int) -> list[float]:
        if len(self._weights) < length + 2:
            self._weights = [k**self.weight for k in range(length + 2)]
        return self._weights

    # -- counting against one reference ---------------------------------------------------

    def _counts(self, rouge_type: RougeType, candidate: _Prepared, reference: _Prepared) -> tuple:
        """(hits, candidate total, reference total) of one type against one reference."""
        kind = rouge_type.kind
        if kind == "N":
            n = rouge_type.n
            if n == 1:
                overlap = clipped_overlap(reference.unigrams, candidate.unigrams)
            else:
                overlap = clipped_overlap(reference.units[rouge_type.name], candidate.units[rouge_type.name])
            return overlap, max(len(candidate.tokens) - n + 1, 0), max(len(reference.tokens) - n + 1, 0)
        if kind == "L":
            # LCS length is symmetric: bit-parallel over the candidate, shared by all references.
            lcs = lcs_length(candidate.tokens, reference.tokens, candidate.masks)
            return lcs, len(candidate.tokens), len(reference.tokens)
        if kind == "S":
            candidate_units = candidate.units[rouge_type.name]
            reference_units = reference.units[rouge_type.name]
            return (
                clipped_overlap(reference_units, candidate_units),
                candidate_units.total(),
                reference_units.total(),
            )
        if kind == "Lsum":
            if not reference.sentences or not candidate.sentences:
                return 0, 0, 0
            hits = union_lcs_hits(
                reference.sentences,
                candidate.sentences,
                reference.unigrams,
                candidate.unigrams,
                candidate.sentence_sets,
            )
            return hits, len(candidate.tokens), len(reference.tokens)
        return self._weighted_counts(candidate, reference)

    def _weighted_counts(self, candidate: _Prepared, reference: _Prepared) -> tuple:
        if self.rouge_w == "lin2004":
            weights = self._wlcs_weights(max(len(candidate.tokens), len(reference.tokens)))
            hit = wlcs(reference.tokens, candidate.tokens, weights)
            return hit, weights[len(candidate.tokens)], weights[len(reference.tokens)]
        longest = max(map(len, chain(reference.sentences or [[]], candidate.sentences or [[]])))
        weights = self._wlcs_weights(longest)
        hit = 0.0
        if reference.sentences and candidate.sentences:
            hit = weighted_union_lcs_hits(
                reference.sentences, candidate.sentences, reference.unigrams, candidate.unigrams, weights
            )
        reference_base = sum(weights[len(sentence)] for sentence in reference.sentences or [])
        return hit, len(candidate.tokens) ** self.weight, reference_base**self.weight

    # -- combining references -------------------------------------------------------------

    def _from_counts(
        self, rouge_type: RougeType, hits: float, candidate_total: float, reference_total: float
    ) -> Score:
        precision = hits / candidate_total if candidate_total else 0.0
        recall = hits / reference_total if reference_total else 0.0
        if rouge_type.kind == "W":
            precision **= self._inverse_weight
            recall **= self._inverse_weight
        b2 = self.beta * self.beta
        denominator = b2 * precision + recall
        f = (1 + b2) * precision * recall / denominator if denominator > 0 else 0.0
        return Score(precision, recall, f)

    def _combine(self, rouge_type: RougeType, counts: list[tuple]) -> Score:
        if self.multi_ref == "pooled":
            hits = sum(c[0] for c in counts)
            return self._from_counts(rouge_type, hits, sum(c[1] for c in counts), sum(c[2] for c in counts))
        scores = [self._from_counts(rouge_type, *c) for c in counts]
        if self.multi_ref == "max" or len(scores) == 1:
            return _best(scores)
        subsets = [_best(scores[:k] + scores[k + 1 :]) for k in range(len(scores))]
        m = len(subsets)
        return Score(
            sum(s.precision for s in subsets) / m,
            sum(s.recall for s in subsets) / m,
            sum(s.fmeasure for s in subsets) / m,
        )

    # -- public ---------------------------------------------------------------------------

    def score(self, prediction: str, references: Sequence[str]) -> dict[str, Score]:
        """Each ROUGE type of ``prediction`` against ``references`` in this scorer's mode."""
        if isinstance(references, str) or not references:
            raise ValueError("references must be a non-empty list of texts")
        if self.truncate_words or self.truncate_bytes:
            prediction = truncate(prediction, words=self.truncate_words, bytes_=self.truncate_bytes)
        candidate = self._prepare(prediction, candidate=True)
        prepared = [self._prepare(reference) for reference in references]
        return {
            rouge_type.name: self._combine(
                rouge_type, [self._counts(rouge_type, candidate, reference) for reference in prepared]
            )
            for rouge_type in self.types
        }


def _best(scores: Sequence[Score]) -> Score:
    """The score with the highest F, the first one on ties (as numpy's argmax in rouge-score)."""
    best = scores[0]
    for candidate in scores[1:]:
        if candidate.fmeasure > best.fmeasure:
            best = candidate
    return best


def score(
    prediction: str,
    references: Sequence[str],
    rouge_types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    *,
    stem: bool = False,
    **options,
) -> dict[str, Score]:
    """One prediction against its references; ``options`` are ``RougeScorer``'s."""
    return RougeScorer(rouge_types, stem=stem, **options).score(prediction, references)
