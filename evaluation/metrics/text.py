"""BLEU, chrF and TER through sacrebleu, WER and its relatives through jiwer: thin, named wrappers.

Every sacrebleu result keeps sacrebleu's signature string (Post 2018, "A Call for Clarity in
Reporting BLEU Scores"), so a stored score says exactly how it was computed. WER = (S + D + I) / N.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import jiwer
import sacrebleu


@dataclass(frozen=True)
class SacrebleuScore:
    """A sacrebleu score (0–100) with its n-gram precisions where it has them, and its signature."""

    metric: str
    score: float
    signature: str
    precisions: tuple[float, ...] = ()
    brevity_penalty: float | None = None


def _references_by_position(references: Sequence[Sequence[str]]) -> list[list[str]]:
    """sacrebleu wants one list per reference *position*; we take one list of references per item."""
    counts = {len(refs) for refs in references}
    if len(counts) != 1 or 0 in counts:
        raise ValueError("every item needs the same, non-zero number of references for corpus scores")
    return [list(position) for position in zip(*references, strict=True)]


def corpus_bleu(
    predictions: Sequence[str], references: Sequence[Sequence[str]], *, tokenize: str = "13a",
    smooth_method: str = "exp", lowercase: bool = False,
) -> SacrebleuScore:  # fmt: skip
    """Papineni et al. (2002) corpus BLEU: brevity-penalised geometric mean of clipped n-gram precisions."""
    metric = sacrebleu.BLEU(tokenize=tokenize, smooth_method=smooth_method, lowercase=lowercase)
    result = metric.corpus_score(list(predictions), _references_by_position(references))
    return SacrebleuScore(
        "bleu", result.score, str(metric.get_signature()), tuple(result.precisions), result.bp
    )


def sentence_bleu(
    prediction: str, references: Sequence[str], *, tokenize: str = "13a", smooth_method: str = "exp"
) -> SacrebleuScore:
    """Sentence BLEU with effective order (sacrebleu's recommended setting for single sentences)."""
    metric = sacrebleu.BLEU(tokenize=tokenize, smooth_method=smooth_method, effective_order=True)
    result = metric.sentence_score(prediction, list(references))
    return SacrebleuScore(
        "bleu", result.score, str(metric.get_signature()), tuple(result.precisions), result.bp
    )


def corpus_chrf(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> SacrebleuScore:
    metric = sacrebleu.CHRF()
    result = metric.corpus_score(list(predictions), _references_by_position(references))
    return SacrebleuScore("chrf", result.score, str(metric.get_signature()))


def corpus_ter(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> SacrebleuScore:
    metric = sacrebleu.TER()
    result = metric.corpus_score(list(predictions), _references_by_position(references))
    return SacrebleuScore("ter", result.score, str(metric.get_signature()))


@dataclass(frozen=True)
class WordErrors:
    """Word error rate and its parts over one or more (reference, hypothesis) pairs."""

    wer: float
    mer: float
    wil: float
    word_accuracy: float
    substitutions: int
    deletions: int
    insertions: int
    hits: int
    cer: float
    alignment: str


def word_errors(references: Sequence[str], hypotheses: Sequence[str]) -> WordErrors:
    """WER = (S + D + I) / N over all pairs, MER, WIL, word accuracy = 1 − WER, and CER (jiwer).

    An empty reference has no words to err on: jiwer refuses it, and so do we, with the index.
    """
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references but {len(hypotheses)} hypotheses")
    for index, reference in enumerate(references):
        if not reference.strip():
            raise ValueError(f"reference {index} is empty: WER is undefined without reference words")
    words = jiwer.process_words(list(references), list(hypotheses))
    characters = jiwer.process_characters(list(references), list(hypotheses))
    return WordErrors(
        words.wer,
        words.mer,
        words.wil,
        1.0 - words.wer,
        words.substitutions,
        words.deletions,
        words.insertions,
        words.hits,
        characters.cer,
        jiwer.visualize_alignment(words, show_measures=False),
    )
