"""``cranfield agreement`` and ``cranfield aggregate`` over ``item,worker,label`` CSV files."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from annotation.crowd.aggregation import dawid_skene, gold_weighted_vote, majority_vote
from annotation.crowd.agreement import cohen_kappa_pairs, fleiss_kappa, krippendorff_alpha
from annotation.crowd.labels_io import LabelFileError, read_gold, read_labels

METHODS = ("majority", "dawid-skene", "gold-weighted")


def register(subparsers) -> None:
    agreement = subparsers.add_parser(
        "agreement",
        help="inter-assessor agreement of a labels CSV (item,worker,label) as JSON",
        description="Fleiss' kappa, mean pairwise Cohen's kappa and Krippendorff's alpha, with the "
        "number of items and assessors each rests on.",
    )
    agreement.add_argument("labels", help="CSV with header item,worker,label")
    agreement.add_argument("--weights", choices=["none", "linear", "quadratic"], default="none")
    agreement.add_argument("--level", choices=["nominal", "ordinal", "interval", "ratio"], default="nominal")
    agreement.set_defaults(handler=run_agreement)

    aggregate = subparsers.add_parser(
        "aggregate",
        help="one label per item from a labels CSV, as CSV item,label,confidence",
        description="Aggregate crowd labels into one label per item with a confidence in [0, 1].",
    )
    aggregate.add_argument("labels", help="CSV with header item,worker,label")
    aggregate.add_argument("--method", choices=METHODS, default="majority")
    aggregate.add_argument("--gold", help="CSV with header item,label (needed by gold-weighted)")
    aggregate.add_argument("--tie-rule", choices=["smallest", "largest", "random"], default="smallest")
    aggregate.set_defaults(handler=run_aggregate)


def fail(command: str, message: str) -> int:
    print(f"cranfield {command}: error: {message}", file=sys.stderr)
    return 2


def run_agreement(args: argparse.Namespace) -> int:
    try:
        labels = list(read_labels(args.labels))
    except (LabelFileError, OSError) as error:
        return fail("agreement", str(error))
    fleiss = fleiss_kappa(labels)
    cohen = cohen_kappa_pairs(labels, weights=args.weights)
    alpha = krippendorff_alpha(labels, level=args.level)
    report = {
        "fleiss_kappa": fleiss.value,
        "fleiss_kappa_n_items": fleiss.n_items,
        "fleiss_kappa_items_excluded": fleiss.n_items_excluded,
        "cohen_kappa_mean": cohen.mean,
        "cohen_kappa_weights": cohen.weights,
        "cohen_kappa_pairs": len(cohen.pairs),
        "krippendorff_alpha": alpha.value,
        "krippendorff_level": args.level,
        "n_items": len({item for item, _, _ in labels}),
        "n_workers": len({worker for _, worker, _ in labels}),
        "n_labels": len(labels),
    }
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


def run_aggregate(args: argparse.Namespace) -> int:
    if args.method == "gold-weighted" and not args.gold:
        return fail("aggregate", "--method gold-weighted needs --gold GOLD.csv")
    try:
        labels = list(read_labels(args.labels))
        gold = read_gold(args.gold) if args.gold else {}
    except (LabelFileError, OSError) as error:
        return fail("aggregate", str(error))
    if args.method == "majority":
        result = majority_vote(labels, tie_rule=args.tie_rule)
    elif args.method == "dawid-skene":
        result = dawid_skene(labels)
    else:
        result = gold_weighted_vote(labels, gold)
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["item", "label", "confidence"])
    for item, label in result.labels.items():
        writer.writerow([item, label, f"{result.confidence[item]:.6f}"])
    return 0
