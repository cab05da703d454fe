"""BLEU (Papineni et al. 2002) through sacrebleu, corpus and sentence level, with its n-gram precisions,
brevity penalty and signature."""

from __future__ import annotations

from collections.abc import Sequence

import sacrebleu

from evaluation.metrics.text.sacrebleu_score import SacrebleuScore, _references_by_position


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
