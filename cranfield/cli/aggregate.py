"""``cranfield aggregate``: one label per item from an ``item,annotator,label`` CSV file, as CSV.

The file is read in chunks into integer codes (``labels_io.read_label_columns``), so files of millions
of rows never exist as Python objects; a bad row stops the command with its line number.
"""

from __future__ import annotations

import argparse
import csv
import sys

from cranfield.cli import CommandError

METHODS = ("majority", "dawid-skene", "gold-weighted")


def register(subparsers) -> None:
    aggregate = subparsers.add_parser(
        "aggregate",
        help="one label per item from a labels CSV, as CSV item,label,confidence",
        description="Aggregate crowd labels into one label per item with a confidence in [0, 1].",
    )
    aggregate.add_argument("labels", help="CSV with header item,annotator,label")
    aggregate.add_argument("--method", choices=METHODS, default="majority")
    aggregate.add_argument("--gold", help="CSV with header item,label (needed by gold-weighted)")
    aggregate.add_argument("--tie-rule", choices=["smallest", "largest", "random"], default="smallest")
    aggregate.set_defaults(handler=run_aggregate)


def run_aggregate(args: argparse.Namespace) -> int:
    from annotation.crowd.aggregation import dawid_skene, gold_weighted_vote, majority_vote
    from annotation.crowd.labels_io import LabelFileError, read_gold, read_label_columns

    if args.method == "gold-weighted" and not args.gold:
        raise CommandError("--method gold-weighted needs --gold GOLD.csv")
    try:
        data = read_label_columns(args.labels)
        gold = read_gold(args.gold) if args.gold else {}
    except (LabelFileError, OSError) as error:
        raise CommandError(error) from error
    if len(data) == 0:
        raise CommandError(f"{args.labels}: no labels after the header")
    if args.method == "majority":
        result = majority_vote(data, tie_rule=args.tie_rule)
    elif args.method == "dawid-skene":
        result = dawid_skene(data)
    else:
        result = gold_weighted_vote(data, gold)
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["item", "label", "confidence"])
    writer.writerows((item, label, f"{result.confidence[item]:.6f}") for item, label in result.labels.items())
    return 0
