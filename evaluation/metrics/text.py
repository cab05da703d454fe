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
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    tokenize: str = "13a",
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    lowercase: bool = False,
) -> SacrebleuScore:
    """Papineni et al. (2002) corpus BLEU: brevity-penalised geometric mean of clipped n-gram precisions.

    ``tokenize`` is one of sacrebleu's tokenisers (``BLEU.TOKENIZERS``: 13a, intl, char, none, zh, …);
    ``smooth_method`` one of ``none``, ``floor``, ``add-k``, ``exp`` (Chen & Cherry 2014), with
    ``smooth_value`` for floor (default 0.1) and add-k (default 1). Returns the score (0–100), the
    four precisions, the brevity penalty and sacrebleu's signature.
    """
    metric = sacrebleu.BLEU(
        tokenize=tokenize, smooth_method=smooth_method, smooth_value=smooth_value, lowercase=lowercase
    )
    result = metric.corpus_score(list(predictions), _references_by_position(references))
    return SacrebleuScore(
        "bleu", result.score, str(metric.get_signature()), tuple(result.precisions), result.bp
    )


def sentence_bleu(
    prediction: str,
    references: Sequence[str],
    *,
    tokenize: str = "13a",
    smooth_method: str = "exp",
    smooth_value: float | None = None,
) -> SacrebleuScore:
    """Sentence BLEU with effective order (sacrebleu's recommended setting for single sentences).

    Parameters as ``corpus_bleu``; the signature says ``eff:yes``.
    """
    metric = sacrebleu.BLEU(
        tokenize=tokenize, smooth_method=smooth_method, smooth_value=smooth_value, effective_order=True
    )
    result = metric.sentence_score(prediction, list(references))
    return SacrebleuScore(
        "bleu", result.score, str(metric.get_signature()), tuple(result.precisions), result.bp
    )


def corpus_chrf(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> SacrebleuScore:
    """Popović (2015) chrF (character 6-grams, β = 2) with sacrebleu's defaults and signature."""
    metric = sacrebleu.CHRF()
    result = metric.corpus_score(list(predictions), _references_by_position(references))
    return SacrebleuScore("chrf", result.score, str(metric.get_signature()))


def corpus_ter(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> SacrebleuScore:
    """Snover et al. (2006) translation edit rate (0–100) with sacrebleu's defaults and signature."""
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

    An empty (or all-blank) reference is scored as the installed jiwer (4.x) scores it: with no
    reference words anywhere, WER is the number of inserted words (0 when the hypothesis is empty
    too), so word accuracy can be negative; CER likewise counts inserted characters. Alongside other
    pairs an empty reference simply adds its insertions to S + D + I. ``alignment`` is jiwer's
    ``visualize_alignment`` text (REF/HYP lines with S, D, I marks).
    """
    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references but {len(hypotheses)} hypotheses")
    words = jiwer.process_words(list(references), list(hypotheses))
    characters = jiwer.process_characters(list(references), list(hypotheses))
    return WordErrors(
        float(words.wer),
        float(words.mer),
        float(words.wil),
        1.0 - words.wer,
        words.substitutions,
        words.deletions,
        words.insertions,
        words.hits,
        float(characters.cer),
        jiwer.visualize_alignment(words, show_measures=False),
    )
