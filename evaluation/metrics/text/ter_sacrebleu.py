"""TER (Snover et al. 2006) through sacrebleu, with its signature."""

from __future__ import annotations

from collections.abc import Sequence

import sacrebleu

from evaluation.metrics.text.sacrebleu_score import SacrebleuScore, _references_by_position


def corpus_ter(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> SacrebleuScore:
    """Snover et al. (2006) translation edit rate (0–100) with sacrebleu's defaults and signature."""
    metric = sacrebleu.TER()
    result = metric.corpus_score(list(predictions), _references_by_position(references))
    return SacrebleuScore("ter", result.score, str(metric.get_signature()))
