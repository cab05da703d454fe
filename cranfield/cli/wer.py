"""``cranfield wer``: word error rate and its parts, via jiwer, over prediction/reference JSONL."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from cranfield.cli import CommandError


def register(subparsers) -> None:
    wer = subparsers.add_parser(
        "wer",
        help="word error rate and its parts (S, D, I, hits), MER, WIL, CER, via jiwer",
        description="JSONL in (the first reference of each line is the transcript); JSON out.",
    )
    wer.add_argument("pairs")
    wer.add_argument("--alignment", action="store_true", help="include jiwer's alignment for display")
    wer.set_defaults(handler=run_wer)


def run_wer(args: argparse.Namespace) -> int:
    from evaluation.metrics.pairs_io import PairsFormatError, read_pairs
    from evaluation.metrics.wer import word_errors

    try:
        pairs = read_pairs(args.pairs)
        per_item = [word_errors([p.references[0]], [p.prediction]) for p in pairs]
        overall = word_errors([p.references[0] for p in pairs], [p.prediction for p in pairs])
    except (PairsFormatError, OSError, ValueError) as error:
        raise CommandError(error) from error

    def view(errors):
        values = asdict(errors)
        if not args.alignment:
            values.pop("alignment")
        return values

    items = [{"id": p.id, **view(errors)} for p, errors in zip(pairs, per_item, strict=True)]
    json.dump({"items": items, "aggregate": view(overall)}, sys.stdout, indent=2)
    print()
    return 0
