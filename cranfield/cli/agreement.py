"""``cranfield agreement``: inter-annotator agreement of an ``item,annotator,label`` CSV file, as JSON.

The file is read in chunks into integer codes (``labels_io.read_label_columns``), so files of millions
of rows never exist as Python objects; a bad row stops the command with its line number.
"""

from __future__ import annotations

import argparse
import json
import sys

from annotation.crowd.minimums import ITEMS_FOR_AGREEMENT_INTERVAL, ITEMS_FOR_KAPPA
from cranfield.cli import CommandError


def register(subparsers) -> None:
    agreement = subparsers.add_parser(
        "agreement",
        help="inter-annotator agreement of a labels CSV (item,annotator,label) as JSON",
        description="Fleiss' kappa, mean pairwise Cohen's kappa (each pair weighted by the items it "
        "shares), Krippendorff's alpha and per-label agreement (per-category Fleiss kappa, specific "
        "agreement), each with the number of items and annotators it rests on; beside unweighted "
        "kappa, PABAK and the pooled agreement, and in kappa_explanation why kappa is low when it is. "
        f"With --ci, percentile bootstrap intervals over items (none, with the reason, for a figure "
        f"resting on fewer than {ITEMS_FOR_AGREEMENT_INTERVAL.count} items). "
        "Fleiss' kappa uses the items with the most common number of ratings; the others are "
        "counted in fleiss_kappa_items_excluded. Also Randolph's free-marginal kappa, and Cohen's "
        "kappa's standard errors, z and p (statsmodels' cohens_kappa fields) for a two-annotator file "
        "(cohen_kappa_statistics) or, with --pairs, for every pair. One label per (item, annotator): "
        "a repeated one stops the command naming both lines, unless --duplicates newest keeps the "
        "later line.",
        epilog="Speed: the figures take seconds on a million labels. The intervals recompute each "
        "figure per resample: Fleiss and alpha cost about a pass over the items each, Cohen's kappa "
        "a pass over every (pair of annotators, shared item); with 10 annotators per item that is 45 "
        "entries per item, about 0.1-0.2 s per resample at a million labels, so minutes for 1000 "
        "resamples. Use --ci-statistics or fewer --resamples on very large files.",
    )
    add_input_options(agreement)
    add_kappa_options(agreement)
    add_interval_options(agreement)
    agreement.set_defaults(handler=run_agreement)


def parse_scale(text: str) -> list[int | str]:
    """``--scale`` as labels in the file's terms: integers where a label is one (as the reader codes them)."""
    levels = [level.strip() for level in text.split(",") if level.strip()]
    if len(set(levels)) != len(levels):
        raise ValueError(f"--scale: a level is given twice in {text!r}")
    return [int(level) if level.lstrip("-").isdigit() else level for level in levels]


def parse_weight_matrix(text: str) -> list[list[float]]:
    """``--weight-matrix`` as rows of numbers (ValueError naming what is wrong)."""
    try:
        rows = [[float(value) for value in row.split(",")] for row in text.split(";") if row.strip()]
    except ValueError as error:
        raise ValueError(f"--weight-matrix: {error}") from error
    if not rows or any(len(row) != len(rows) for row in rows):
        raise ValueError(f"--weight-matrix must be square (as many numbers per row as rows): {text!r}")
    return rows


def add_input_options(parser) -> None:
    """The labels file, how repeated labels are settled, and the scale's order."""
    parser.add_argument("labels", help="CSV with header item,annotator,label")
    parser.add_argument(
        "--duplicates",
        choices=["refuse", "newest"],
        default="refuse",
        help="an annotator labelling an item on two lines: refuse (default; the error names both lines) "
        "or newest (keep the later line, as a correction)",
    )
    parser.add_argument(
        "--scale",
        help="the ordered labels of the scale, comma-separated (e.g. 0,1,2,3), so that weighted kappa "
        "counts levels no one used: without it, distances run over the labels found in the file",
    )


def add_kappa_options(parser) -> None:
    """How kappa and alpha are computed: weights, the pairs counted, alpha's level."""
    parser.add_argument("--weights", choices=["none", "linear", "quadratic"], default="none")
    parser.add_argument(
        "--weight-matrix",
        help="Cohen's kappa with these disagreement weights instead of --weights: rows separated by ';', "
        "numbers by ',' (e.g. '0,1,3;1,0,1;3,1,0'), one row and column per label in the file's order "
        "(numbers ascending, then text) or --scale's order; 0 on the diagonal is full agreement",
    )
    parser.add_argument(
        "--pairs",
        action="store_true",
        help="add cohen_kappa_pair_statistics: every counted pair's kappa with standard errors, z and p",
    )
    parser.add_argument("--level", choices=["nominal", "ordinal", "interval", "ratio"], default="nominal")
    parser.add_argument(
        "--min-shared",
        type=int,
        default=ITEMS_FOR_KAPPA.count,
        help=f"items a pair of annotators must share to count in mean Cohen's kappa (default "
        f"{ITEMS_FOR_KAPPA.count}, as in the app: a kappa on fewer moves by 0.2 or more with one label)",
    )


def add_interval_options(parser) -> None:
    """Bootstrap intervals over items."""
    parser.add_argument(
        "--ci", action="store_true", help="add bootstrap confidence intervals over items (slow on huge files)"
    )
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument(
        "--ci-statistics",
        help="comma-separated figures to bootstrap: fleiss_kappa, cohen_kappa_mean, krippendorff_alpha "
        "(default: all of them)",
    )


def run_agreement(args: argparse.Namespace) -> int:
    from annotation.crowd.agreement.bootstrap import STATISTICS
    from annotation.crowd.agreement.report import agreement_summary
    from annotation.crowd.io.encoding import on_scale
    from annotation.crowd.io.labels import DuplicateLineError, read_label_columns

    if args.ci_statistics is None:
        statistics = STATISTICS
    else:
        statistics = tuple(name.strip() for name in args.ci_statistics.split(",") if name.strip())
    unknown = set(statistics) - set(STATISTICS)
    if unknown:
        raise CommandError(f"--ci-statistics: unknown {sorted(unknown)}; known: {', '.join(STATISTICS)}")
    if args.min_shared < 2:
        raise CommandError(
            f"--min-shared must be at least 2 (a kappa needs two items), not {args.min_shared}"
        )
    if args.resamples < 1 or not 0 < args.confidence < 1:
        raise CommandError("--resamples must be at least 1 and --confidence between 0 and 1")
    if args.weight_matrix and args.weights != "none":
        raise CommandError("give --weights or --weight-matrix, not both")
    try:
        weights = parse_weight_matrix(args.weight_matrix) if args.weight_matrix else args.weights
        data = read_label_columns(args.labels, duplicates=args.duplicates)
        if args.scale:
            data = on_scale(data, parse_scale(args.scale))
        report = agreement_summary(
            data,
            weights=weights,
            level=args.level,
            min_shared=args.min_shared,
            intervals=args.ci,
            resamples=args.resamples,
            confidence=args.confidence,
            seed=args.seed,
            interval_statistics=statistics,
            pair_statistics=args.pairs,
        )
    except DuplicateLineError as error:
        raise CommandError(f"{error} (--duplicates newest)") from error
    except (OSError, ValueError) as error:  # LabelFileError, or e.g. --level interval on text labels
        raise CommandError(error) from error
    json.dump(report, sys.stdout, indent=2, default=str)
    print()
    return 0
