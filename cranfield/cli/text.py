"""``cranfield bleu`` and ``cranfield wer`` over prediction/reference JSONL."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from evaluation.metrics.pairs_io import PairsFormatError, read_pairs
from evaluation.metrics.text import corpus_bleu, corpus_chrf, corpus_ter, sentence_bleu, word_errors


def register(subparsers) -> None:
    bleu = subparsers.add_parser(
        "bleu",
        help="BLEU (and chrF, TER) of predictions against references, via sacrebleu",
        description='JSONL in, one {"id", "prediction", "references": [...]} per line; JSON out.',
    )
    bleu.add_argument("pairs")
    bleu.add_argument("--tokenize", default="13a", help="sacrebleu tokenizer (default 13a)")
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
    pairs = _load("bleu", args.pairs)
    if pairs is None:
        return 2
    predictions = [p.prediction for p in pairs]
    references = [p.references for p in pairs]
    items = [
        {"id": p.id, "bleu": sentence_bleu(p.prediction, p.references, tokenize=args.tokenize).score}
        for p in pairs
    ]
    aggregate = {}
    if len({len(refs) for refs in references}) == 1:
        bleu = corpus_bleu(predictions, references, tokenize=args.tokenize)
        aggregate = {
            "bleu": bleu.score,
            "precisions": bleu.precisions,
            "brevity_penalty": bleu.brevity_penalty,
            "signature": bleu.signature,
            "chrf": corpus_chrf(predictions, references).score,
            "ter": corpus_ter(predictions, references).score,
        }
    else:
        aggregate = {"note": "corpus scores need the same number of references on every line"}
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
