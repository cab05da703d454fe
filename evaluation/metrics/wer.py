"""Word error rate and its relatives (MER, WIL, CER) through jiwer: WER = (S + D + I) / N."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import jiwer


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
