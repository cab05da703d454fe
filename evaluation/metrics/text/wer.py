"""Word error rate and its relatives (MER, WIL, CER) through jiwer: WER = (S + D + I) / N.

Several references: a hypothesis is scored against its **closest reference**, the one with the
lowest WER (the first listed on a tie), as a transcript is judged against the nearest acceptable
one; blank references are passed over while another has words. One rule for the app's text
evaluation (``text_scores``) and ``cranfield wer`` (``closest_reference``); a corpus figure sums
each item's errors against its own closest reference.
"""

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


def closest_reference(references: Sequence[str], hypothesis: str) -> tuple[int, float]:
    """``(index, WER)`` of the reference ``hypothesis`` is closest to: the lowest WER (jiwer's),
    the first listed on a tie. Blank references are candidates only when every reference is blank
    (jiwer scores a blank reference as the number of inserted words, no distance to a transcript).
    ValueError without any reference."""
    if not references:
        raise ValueError("no reference to score against")
    candidates = [i for i, text in enumerate(references) if text.strip()] or list(range(len(references)))
    best, best_rate = candidates[0], float("inf")
    for index in candidates:
        rate = float(jiwer.process_words(references[index], hypothesis).wer)
        if rate < best_rate:  # strictly lower: the first listed wins a tie
            best, best_rate = index, rate
    return best, best_rate


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
