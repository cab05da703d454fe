"""``cranfield aggregate``: one label per item from an ``item,annotator,label`` CSV file (or the
judgements CSV the app downloads), as CSV.

The file is read in chunks into integer codes (``labels_io.read_label_columns``), so files of millions
of rows never exist as Python objects; a bad row stops the command with its line number. From the
app's judgements CSV an item is its task id, and the output names its topic and documents too.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter

from cranfield.cli import CommandError, notice

# annotation.crowd.aggregation.methods' names, written out so that --help imports nothing (a test keeps
# them equal).
METHODS = (
    "majority",
    "dawid-skene",
    "gold-dawid-skene",
    "gold-weighted",
    "one-coin-dawid-skene",
    "glad",
    "mace",
    "mmsr",
    "wawa",
    "zero-based-skill",
)
GOLD_METHODS = ("gold-dawid-skene", "gold-weighted")
# annotation.crowd.aggregation's TIE_RULES and the old names of two (TIE_RULE_ALIASES), written out as
# METHODS is. A project's ``extra_annotator`` and ``researcher`` rules refer ties to people: a file
# has nobody to refer them to, so the command breaks ties at once (and lists them on standard error).
TIE_RULES = ("lower", "higher", "random", "gold_weighted")
OLD_TIE_RULE_NAMES = ("smallest", "largest")


def register(subparsers) -> None:
    aggregate = subparsers.add_parser(
        "aggregate",
        help="one label per item from a labels CSV, as CSV item,label,confidence",
        description="Aggregate crowd labels into one label per item with a confidence in [0, 1].",
    )
    aggregate.add_argument(
        "labels",
        help="CSV with header item,annotator,label (or item,worker,label), or a project's judgements CSV as "
        "the app downloads it (items are its task ids)",
    )
    aggregate.add_argument(
        "--method",
        choices=METHODS,
        default="majority",
        help="majority vote; Dawid-Skene (gold-dawid-skene: with --gold answers clamped during EM); "
        "the vote weighted by gold accuracy; one-coin Dawid-Skene, GLAD, MACE, M-MSR, Wawa, zero-based skill",
    )
    aggregate.add_argument("--gold", help=f"CSV with header item,label (needed by {', '.join(GOLD_METHODS)})")
    aggregate.add_argument(
        "--tie-rule",
        choices=TIE_RULES + OLD_TIE_RULE_NAMES,
        default="lower",
        metavar="{" + ",".join(TIE_RULES) + "}",
        help="how majority vote (and the gold-weighted vote) break ties: the lower label (default), the "
        "higher, a seeded random one, or (majority vote, with --gold) the label of the annotators with "
        "the better gold accuracy; smallest and largest are the old names of lower and higher",
    )
    aggregate.add_argument(
        "--duplicates",
        choices=["refuse", "newest"],
        default="refuse",
        help="two labels from one annotator for one item: refuse the file (default), or keep the later line",
    )
    aggregate.set_defaults(handler=run_aggregate)


def run_aggregate(args: argparse.Namespace) -> int:
    from annotation.crowd.aggregation.methods import aggregate_by_name
    from annotation.crowd.io.labels import (
        LabelFileError,
        app_item_names,
        is_app_judgements,
        read_gold,
        read_label_columns,
    )

    if args.method in GOLD_METHODS and not args.gold:
        raise CommandError(f"--method {args.method} needs --gold GOLD.csv")
    if args.tie_rule == "gold_weighted" and not args.gold:
        raise CommandError(
            "--tie-rule gold_weighted needs --gold GOLD.csv (the answers that weigh each annotator)"
        )
    try:
        data = read_label_columns(args.labels, duplicates=args.duplicates)
        gold = read_gold(args.gold) if args.gold else {}
        names = app_item_names(args.labels) if is_app_judgements(args.labels) else None
    except (LabelFileError, OSError) as error:
        raise CommandError(error) from error
    if len(data) == 0:
        raise CommandError(f"{args.labels}: no labels after the header")
    try:
        result = aggregate_by_name(data, args.method, gold=dict(gold.items()), tie_rule=args.tie_rule)
    except ValueError as error:  # e.g. M-MSR's skills cannot be estimated on these labels
        raise CommandError(error) from error
    writer = csv.writer(sys.stdout, lineterminator="\n")
    if result.ties:
        notice("aggregate", describe_ties(result.ties, result.tie_breaks))
    if names is None:
        writer.writerow(["item", "label", "confidence"])
        writer.writerows(
            (item, label, f"{result.confidence[item]:.6f}") for item, label in result.labels.items()
        )
        return 0
    # The app's items are task ids: their topic and documents say which pair each is.
    writer.writerow(["item", "topic", "document", "document_b", "label", "confidence"])
    writer.writerows(
        (item, *names[str(item)], label, f"{result.confidence[item]:.6f}")
        for item, label in result.labels.items()
    )
    return 0


def describe_ties(ties: list, tie_breaks: dict) -> str:
    """How many items tied and how each was broken, for standard error (the CSV keeps its columns)."""
    how = Counter(tie_breaks.get(item, "lower") for item in ties)
    broken = ", ".join(f"{n} by {rule}" for rule, n in sorted(how.items()))
    shown = ", ".join(map(str, ties[:10])) + (", …" if len(ties) > 10 else "")
    return f"{len(ties)} item{'s' if len(ties) != 1 else ''} tied, broken {broken}: {shown}"
