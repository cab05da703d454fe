"""Corpus TER (Snover et al. 2006) with sacrebleu's signature: the score is ``ter.corpus_ter``'s,
sacrebleu's TER computed faster and equal to it."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import sacrebleu

from evaluation.metrics.text import ter
from evaluation.metrics.text.sacrebleu_score import SacrebleuScore, _references_by_position


def corpus_ter(predictions: Sequence[str], references: Sequence[Sequence[str]]) -> SacrebleuScore:
    """Snover et al. (2006) translation edit rate (0–100) with sacrebleu's defaults and signature."""
    by_position = _references_by_position(references)
    score = ter.corpus_ter(list(predictions), references)
    # Given the references, sacrebleu counts them per item as corpus_score would (nrefs:N or var).
    metric = sacrebleu.TER(references=by_position)
    return SacrebleuScore("ter", score, str(metric.get_signature()))


def sentence_ter(prediction: str, references: Sequence[str]) -> SacrebleuScore:
    """One output's TER (``ter.sentence_ter``) against its own references, with the signature
    sacrebleu gives a sentence score against that many references."""
    return SacrebleuScore(
        "ter", ter.sentence_ter(prediction, list(references)), _ter_signature(len(references))
    )


@functools.lru_cache(maxsize=64)
def _ter_signature(references: int) -> str:
    return str(sacrebleu.TER(references=[["a"]] * references).get_signature())
