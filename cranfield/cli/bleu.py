"""``cranfield bleu``: BLEU per item, and corpus BLEU, chrF and TER, via sacrebleu, over prediction/reference
JSONL."""

from __future__ import annotations

import argparse
import json
import sys

from cranfield.cli import CommandError

# sacrebleu's BLEU.SMOOTH_DEFAULTS. Its tokenisers (BLEU.TOKENIZERS) are checked when the command runs,
# so that `cranfield bleu --help` need not import sacrebleu.
SMOOTH_METHODS = ("none", "floor", "add-k", "exp")


def register(subparsers) -> None:
    bleu = subparsers.add_parser(
        "bleu",
        help="BLEU (and chrF, TER) of predictions against references, via sacrebleu",
        description='JSONL in, one {"id", "prediction", "references": [...]} per line; JSON out.',
    )
    bleu.add_argument("pairs")
    bleu.add_argument(
        "--tokenize",
        default="13a",
        help="sacrebleu's BLEU tokeniser: 13a (default), intl, char, none, zh, … as sacrebleu's --tokenize "
        "(ja-mecab, ko-mecab and spm need sacrebleu's extras)",
    )
    bleu.add_argument(
        "--smooth-method",
        choices=SMOOTH_METHODS,
        default="exp",
        help="BLEU smoothing (Chen & Cherry 2014), as sacrebleu's --smooth-method (default exp)",
    )
    bleu.add_argument(
        "--smooth-value",
        type=float,
        help="the value of floor (default 0.1) or add-k (default 1) smoothing",
    )
    bleu.set_defaults(handler=run_bleu)


def run_bleu(args: argparse.Namespace) -> int:
    """BLEU, chrF and TER per item; corpus BLEU, chrF and TER over all items; each with its signature."""
    import sacrebleu

    from evaluation.metrics.pairs_io import PairsFormatError, read_pairs
    from evaluation.metrics.text.bleu import corpus_bleu, sentence_bleu
    from evaluation.metrics.text.chrf import corpus_chrf, sentence_chrf
    from evaluation.metrics.text.ter_sacrebleu import corpus_ter, sentence_ter

    if args.tokenize not in sacrebleu.BLEU.TOKENIZERS:
        known = ", ".join(sacrebleu.BLEU.TOKENIZERS)
        raise CommandError(f"--tokenize: unknown tokeniser {args.tokenize!r}; sacrebleu's are {known}")
    if args.smooth_value is not None and args.smooth_method not in ("floor", "add-k"):
        raise CommandError("--smooth-value applies to floor and add-k only")
    try:
        pairs = read_pairs(args.pairs)
    except (PairsFormatError, OSError) as error:
        raise CommandError(error) from error
    predictions = [p.prediction for p in pairs]
    references = [p.references for p in pairs]
    options = {
        "tokenize": args.tokenize,
        "smooth_method": args.smooth_method,
        "smooth_value": args.smooth_value,
    }
    try:
        sentence_scores = [sentence_bleu(p.prediction, p.references, **options) for p in pairs]
        # The sentence signature depends on the number of references, so it is kept per item.
        items = []
        for pair, score in zip(pairs, sentence_scores, strict=True):
            chrf_item = sentence_chrf(pair.prediction, pair.references)
            ter_item = sentence_ter(pair.prediction, pair.references)
            items.append(
                {
                    "id": pair.id,
                    "bleu": score.score,
                    "signature": score.signature,
                    "chrf": chrf_item.score,
                    "chrf_signature": chrf_item.signature,
                    "ter": ter_item.score,
                    "ter_signature": ter_item.signature,
                }
            )
        # Items may have different numbers of references: each is scored against its own (the
        # signatures then say nrefs:var), as sacrebleu does with its reference streams padded.
        bleu = corpus_bleu(predictions, references, **options)
        chrf = corpus_chrf(predictions, references)
        ter = corpus_ter(predictions, references)
        aggregate = {
            "bleu": bleu.score,
            "precisions": bleu.precisions,
            "brevity_penalty": bleu.brevity_penalty,
            "signature": bleu.signature,
            "chrf": chrf.score,
            "chrf_signature": chrf.signature,
            "ter": ter.score,
            "ter_signature": ter.signature,
        }
    except (RuntimeError, ImportError) as error:  # a tokeniser whose extra dependencies are missing
        raise CommandError(error) from error
    json.dump({"items": items, "aggregate": aggregate}, sys.stdout, indent=2)
    print()
    return 0
