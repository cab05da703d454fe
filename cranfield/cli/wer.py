"""``cranfield wer``: word error rate and its parts, via jiwer, over prediction/reference JSONL.

With several references an item is scored against its closest reference (the lowest WER, the first
on a tie: ``evaluation.metrics.text.wer.closest_reference``, the rule of the app's text evaluation too);
the corpus figures sum each item's errors against its own closest reference."""

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
        description="JSONL in; JSON out. With several references, each item is scored against its "
        "closest reference (the lowest WER, the first on a tie), as the app's text evaluation scores it; "
        "the aggregate sums each item's errors against its own. Each item says which reference it used.",
    )
    wer.add_argument("pairs")
    wer.add_argument("--alignment", action="store_true", help="include jiwer's alignment for display")
    wer.set_defaults(handler=run_wer)


def run_wer(args: argparse.Namespace) -> int:
    from evaluation.metrics.pairs_io import PairsFormatError, read_pairs
    from evaluation.metrics.text.wer import closest_reference, word_errors

    try:
        pairs = read_pairs(args.pairs)
        chosen = [closest_reference(p.references, p.prediction)[0] for p in pairs]
        references = [p.references[index] for p, index in zip(pairs, chosen, strict=True)]
        per_item = [word_errors([r], [p.prediction]) for p, r in zip(pairs, references, strict=True)]
        overall = word_errors(references, [p.prediction for p in pairs])
    except (PairsFormatError, OSError, ValueError) as error:
        raise CommandError(error) from error

    def view(errors):
        values = asdict(errors)
        if not args.alignment:
            values.pop("alignment")
        return values

    items = [
        {"id": p.id, "reference": index, **view(errors)}
        for p, index, errors in zip(pairs, chosen, per_item, strict=True)
    ]
    rule = "closest reference: the lowest WER, the first on a tie"
    json.dump({"items": items, "aggregate": view(overall), "multi_reference": rule}, sys.stdout, indent=2)
    print()
    return 0
