"""``cranfield agreement`` and ``cranfield aggregate`` over ``item,worker,label`` CSV files.

Both read the file in chunks into integer codes (``labels_io.read_label_columns``), so files of
millions of rows never exist as Python objects; a bad row stops the command with its line number.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys

from annotation.crowd.bootstrap import STATISTICS
from annotation.crowd.encoding import on_scale
from annotation.crowd.labels_io import LabelFileError, read_gold, read_label_columns
from annotation.crowd.methods import GOLD_METHODS, METHODS, aggregate_by_name
from annotation.crowd.report import agreement_summary


def register(subparsers) -> None:
    agreement = subparsers.add_parser(
        "agreement",
        help="inter-assessor agreement of a labels CSV (item,worker,label) as JSON",
        description="Fleiss' kappa, mean pairwise Cohen's kappa, Krippendorff's alpha and per-label "
        "agreement (per-category Fleiss kappa, specific agreement), each with the number of items "
        "and assessors it rests on. With --ci, percentile bootstrap intervals over items. "
        "Fleiss' kappa uses the items with the most common number of ratings; the others are "
        "counted in fleiss_kappa_items_excluded.",
        epilog="Speed: the figures take seconds on a million labels. The intervals recompute each "
        "figure per resample: Fleiss and alpha cost about a pass over the items each, Cohen's kappa "
        "a pass over every (pair of assessors, shared item); with 10 assessors per item that is 45 "
        "entries per item, about 0.1-0.2 s per resample at a million labels, so minutes for 1000 "
        "resamples. Use --ci-statistics or fewer --resamples on very large files.",
    )
    agreement.add_argument("labels", help="CSV with header item,worker,label")
    agreement.add_argument("--weights", choices=["none", "linear", "quadratic"], default="none")
    agreement.add_argument(
        "--scale",
        help="the ordered labels of the scale, comma-separated (e.g. 0,1,2,3), so that weighted kappa "
        "counts levels no one used: without it, distances run over the labels found in the file",
    )
    agreement.add_argument("--level", choices=["nominal", "ordinal", "interval", "ratio"], default="nominal")
    agreement.add_argument(
        "--min-shared", type=int, default=2, help="items a pair of assessors must share (default 2)"
    )
    agreement.add_argument(
        "--ci", action="store_true", help="add bootstrap confidence intervals over items (slow on huge files)"
    )
    agreement.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    agreement.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    agreement.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    agreement.add_argument(
        "--ci-statistics",
        default=",".join(STATISTICS),
        help=f"comma-separated figures to bootstrap (default {','.join(STATISTICS)})",
    )
    agreement.set_defaults(handler=run_agreement)

    aggregate = subparsers.add_parser(
        "aggregate",
        help="one label per item from a labels CSV, as CSV item,label,confidence",
        description="Aggregate crowd labels into one label per item with a confidence in [0, 1].",
    )
    aggregate.add_argument("labels", help="CSV with header item,worker,label")
    aggregate.add_argument(
        "--method",
        choices=METHODS,
        default="majority",
        help="majority vote; Dawid-Skene (gold-dawid-skene: with --gold answers clamped during EM); "
        "the vote weighted by gold accuracy; one-coin Dawid-Skene, GLAD, MACE, M-MSR, Wawa, zero-based skill",
    )
    aggregate.add_argument("--gold", help=f"CSV with header item,label (needed by {', '.join(GOLD_METHODS)})")
    aggregate.add_argument("--tie-rule", choices=["smallest", "largest", "random"], default="smallest")
    aggregate.set_defaults(handler=run_aggregate)


def fail(command: str, message: str) -> int:
    print(f"cranfield {command}: error: {message}", file=sys.stderr)
    return 2


def parse_scale(text: str) -> list[int | str]:
    """``--scale`` as labels in the file's terms: integers where a label is one (as the reader codes them)."""
    levels = [level.strip() for level in text.split(",") if level.strip()]
    if len(set(levels)) != len(levels):
        raise ValueError(f"--scale: a level is given twice in {text!r}")
    return [int(level) if level.lstrip("-").isdigit() else level for level in levels]


def run_agreement(args: argparse.Namespace) -> int:
    statistics = tuple(name.strip() for name in args.ci_statistics.split(",") if name.strip())
    unknown = set(statistics) - set(STATISTICS)
    if unknown:
        return fail(
            "agreement", f"--ci-statistics: unknown {sorted(unknown)}; known: {', '.join(STATISTICS)}"
        )
    if args.resamples < 1 or not 0 < args.confidence < 1:
        return fail("agreement", "--resamples must be at least 1 and --confidence between 0 and 1")
    try:
        data = read_label_columns(args.labels)
        if args.scale:
            data = on_scale(data, parse_scale(args.scale))
        report = agreement_summary(
            data,
            weights=args.weights,
            level=args.level,
            min_shared=args.min_shared,
            intervals=args.ci,
            resamples=args.resamples,
            confidence=args.confidence,
            seed=args.seed,
            interval_statistics=statistics,
        )
    except (OSError, ValueError) as error:  # LabelFileError, or e.g. --level interval on text labels
        return fail("agreement", str(error))
    json.dump(report, sys.stdout, indent=2, default=str)
    print()
    return 0


def run_aggregate(args: argparse.Namespace) -> int:
    if args.method in GOLD_METHODS and not args.gold:
        return fail("aggregate", f"--method {args.method} needs --gold GOLD.csv")
    try:
        data = read_label_columns(args.labels)
        gold = read_gold(args.gold) if args.gold else {}
    except (LabelFileError, OSError) as error:
        return fail("aggregate", str(error))
    if len(data) == 0:
        return fail("aggregate", f"{args.labels}: no labels after the header")
    result = aggregate_by_name(data, args.method, gold=dict(gold.items()), tie_rule=args.tie_rule)
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["item", "label", "confidence"])
    writer.writerows((item, label, f"{result.confidence[item]:.6f}") for item, label in result.labels.items())
    return 0
