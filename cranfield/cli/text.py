"""``cranfield bleu`` and ``cranfield wer`` over prediction/reference JSONL."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

import sacrebleu

from evaluation.metrics.pairs_io import PairsFormatError, read_pairs
from evaluation.metrics.text import corpus_bleu, corpus_chrf, corpus_ter, sentence_bleu, word_errors


def register(subparsers) -> None:
    bleu = subparsers.add_parser(
        "bleu",
        help="BLEU (and chrF, TER) of predictions against references, via sacrebleu",
        description='JSONL in, one {"id", "prediction", "references": [...]} per line; JSON out.',
    )
    bleu.add_argument("pairs")
    bleu.add_argument(
        "--tokenize",
        choices=list(sacrebleu.BLEU.TOKENIZERS),
        default="13a",
        help="sacrebleu's BLEU tokeniser (default 13a; ja-mecab, ko-mecab and spm need sacrebleu's extras)",
    )
    bleu.add_argument(
        "--smooth-method",
        choices=list(sacrebleu.BLEU.SMOOTH_DEFAULTS),
        default="exp",
        help="BLEU smoothing (Chen & Cherry 2014), as sacrebleu's --smooth-method (default exp)",
    )
    bleu.add_argument(
        "--smooth-value",
        type=float,
        help="the value of floor (default 0.1) or add-k (default 1) smoothing",
    )
    bleu.set_defaults(handler=run_bleu)
    wer = subparsers.add_parser(
        "wer",
        help="word error rate and its parts (S, D, I, hits), MER, WIL, CER, via jiwer",
        description="JSONL in (the first reference of each line is the transcript); JSON out.",
    )
    wer.add_argument("pairs")
    wer.add_argument("--alignment", action="store_true", help="include jiwer's alignment for display")
    wer.set_defaults(handler=run_wer)


def _load(command: str, path: str):
    try:
        return read_pairs(path)
    except (PairsFormatError, OSError) as error:
        print(f"cranfield {command}: error: {error}", file=sys.stderr)
        return None


def run_bleu(args: argparse.Namespace) -> int:
    """Sentence BLEU per item; corpus BLEU, chrF and TER over all items, each with its signature."""
    if args.smooth_value is not None and args.smooth_method not in ("floor", "add-k"):
        print("cranfield bleu: error: --smooth-value applies to floor and add-k only", file=sys.stderr)
        return 2
    pairs = _load("bleu", args.pairs)
    if pairs is None:
        return 2
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
        items = [
            {"id": p.id, "bleu": score.score, "signature": score.signature}
            for p, score in zip(pairs, sentence_scores, strict=True)
        ]
        if len({len(refs) for refs in references}) == 1:
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
        else:
            aggregate = {"note": "corpus scores need the same number of references on every line"}
    except (RuntimeError, ImportError) as error:  # a tokeniser whose extra dependencies are missing
        print(f"cranfield bleu: error: {error}", file=sys.stderr)
        return 2
    json.dump({"items": items, "aggregate": aggregate}, sys.stdout, indent=2)
    print()
    return 0


def run_wer(args: argparse.Namespace) -> int:
    pairs = _load("wer", args.pairs)
    if pairs is None:
        return 2
    try:
        per_item = [word_errors([p.references[0]], [p.prediction]) for p in pairs]
        overall = word_errors([p.references[0] for p in pairs], [p.prediction for p in pairs])
    except ValueError as error:
        print(f"cranfield wer: error: {error}", file=sys.stderr)
        return 2

    def view(errors):
        values = asdict(errors)
        if not args.alignment:
            values.pop("alignment")
        return values

    items = [{"id": p.id, **view(errors)} for p, errors in zip(pairs, per_item, strict=True)]
    json.dump({"items": items, "aggregate": view(overall)}, sys.stdout, indent=2)
    print()
    return 0
