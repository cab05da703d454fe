"""chrF (Popović 2015: character 6-grams, beta = 2) through sacrebleu, with its signature."""

from __future__ import annotations

from collections.abc import Sequence

import sacrebleu

from evaluation.metrics.text.sacrebleu_score import SacrebleuScore, _references_by_position


def corpus_chrf(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> SacrebleuScore:
    """Popović (2015) chrF (character 6-grams, β = 2) with sacrebleu's defaults and signature."""
    metric = sacrebleu.CHRF()
    result = metric.corpus_score(list(predictions), _references_by_position(references))
    return SacrebleuScore("chrf", result.score, str(metric.get_signature()))


def sentence_chrf(prediction: str, references: Sequence[str]) -> SacrebleuScore:
    """One output's chrF against its own references, with sacrebleu's sentence signature."""
    metric = sacrebleu.CHRF()
    score = metric.sentence_score(prediction, list(references)).score
    return SacrebleuScore("chrf", score, str(metric.get_signature()))
