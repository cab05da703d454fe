"""``cranfield bradley-terry FILE``: items' strengths from pairwise comparisons (Bradley & Terry 1952)."""

from __future__ import annotations

import argparse
import json
import sys

from cranfield.cli import CommandError, csv_rows


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bradley-terry",
        help="strengths of items (systems, outputs) from pairwise comparisons, with bootstrap intervals",
        description="Read comparisons from a CSV file with a header naming 'left', 'right' and 'label' (the "
        "winner: the left or the right item, as crowd-kit's pairwise data; other columns such as "
        "'worker' are ignored) and print each item's Bradley-Terry strength (maximum likelihood by "
        "Hunter's 2004 MM algorithm, the strengths summing to 1), strongest first, with a percentile "
        "bootstrap interval over the comparisons with --resamples.",
    )
    parser.add_argument("file", help="CSV: left,right,label (label = the winner)")
    parser.add_argument("--resamples", type=int, default=0, help="bootstrap resamples (default 0: none)")
    parser.add_argument("--level", type=float, default=0.95, help="the interval's level (default 0.95)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run_bradley_terry)


def read_comparisons(path: str) -> list[tuple[str, str, str]]:
    """(left, right, winner) per row; the file and line named for a row that is not one."""
    comparisons = []
    for line, row in csv_rows(path, ("left", "right", "label")):
        where = f"{path}, line {line}"
        left, right, winner = row["left"].strip(), row["right"].strip(), row["label"].strip()
        if not left or not right:
            raise CommandError(f"{where}: left and right must both name an item")
        if left == right:
            raise CommandError(f"{where}: an item compared with itself ({left!r})")
        if winner not in (left, right):
            raise CommandError(f"{where}: label {winner!r} is neither {left!r} nor {right!r}")
        comparisons.append((left, right, winner))
    if not comparisons:
        raise CommandError(f"{path}: no comparisons")
    return comparisons


def run_bradley_terry(args: argparse.Namespace) -> int:
    from annotation.crowd.pairwise.bradley_terry import BradleyTerryError, bradley_terry

    if args.resamples < 0:
        raise CommandError(f"--resamples must be >= 0, not {args.resamples}")
    if not 0 < args.level < 1:
        raise CommandError(f"--level must be between 0 and 1, not {args.level}")
    comparisons = read_comparisons(args.file)
    try:
        strengths = bradley_terry(comparisons, resamples=args.resamples, level=args.level, seed=args.seed)
    except BradleyTerryError as error:
        raise CommandError(error) from error
    rows = [
        {"item": s.item, "strength": s.strength} | ({"low": s.low, "high": s.high} if args.resamples else {})
        for s in strengths
    ]
    if args.json:
        json.dump(
            {"comparisons": len(comparisons), "resamples": args.resamples, "items": rows},
            sys.stdout,
            indent=2,
        )
        print()
        return 0
    width = max(len("item"), *(len(str(row["item"])) for row in rows))
    interval = f"  {'low':>8}  {'high':>8}" if args.resamples else ""
    print(f"{'item':<{width}}  {'strength':>8}{interval}")
    for row in rows:
        bounds = f"  {row['low']:>8.4f}  {row['high']:>8.4f}" if args.resamples else ""
        print(f"{row['item']:<{width}}  {row['strength']:>8.4f}{bounds}")
    level = f", {args.level:g} percentile intervals over {args.resamples} resamples" if args.resamples else ""
    print(f"# {len(comparisons)} comparisons of {len(rows)} items; strengths sum to 1{level}")
    return 0
