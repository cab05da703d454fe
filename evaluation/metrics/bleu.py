"""BLEU, chrF and TER through sacrebleu: thin, named wrappers.

Every result keeps sacrebleu's signature string (Post 2018, "A Call for Clarity in Reporting BLEU
Scores"), so a stored score says exactly how it was computed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

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
    """sacrebleu wants one list per reference *position*; we take one list of references per item.

    Items with fewer references than the most are padded with None, which sacrebleu reads as "no
    reference here" (``Metric._cache_references`` drops them per segment; its signature then says
    ``nrefs:var``): each item is scored against its own references, and the corpus statistics are
    the sums of the items' (a blank string would instead be a reference of no words)."""
    if not references or any(len(refs) == 0 for refs in references):
        raise ValueError("every item needs at least one reference for corpus scores")
    most = max(len(refs) for refs in references)
    padded = [[*refs, *([None] * (most - len(refs)))] for refs in references]
    # sacrebleu's type hints leave out the None its docstring and code accept.
    return cast("list[list[str]]", [list(position) for position in zip(*padded, strict=True)])


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
