"""``cranfield alt-test PEOPLE MACHINE``: may an automatic judge replace the people? (the
alternative-annotator test of Calderon, Reichart & Dror 2025: ``annotation.crowd.quality.alt_test``)."""

from __future__ import annotations

import argparse
import json
import math
import sys

from cranfield.cli import CommandError, csv_rows


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "alt-test",
        help="may an automatic judge replace the people? (the alternative-annotator test)",
        description="PEOPLE is CSV with a header naming annotator, item and label (one person's label of "
        "one item per line); MACHINE names item and label (the automatic judge's). Each person is left "
        "out in turn: on the items they judged with others, does the machine align with the remaining "
        "people at least as well as they do? A one-sided t-test per person with the cost-benefit margin "
        "ε, Benjamini–Yekutieli over the persons at α; the machine passes when it beats at least half of "
        "them (the winning rate). The advantage probability compares machines. Persons with too few "
        "items are listed, not tested.",
    )
    parser.add_argument("people", help="CSV: annotator,item,label — the people's labels")
    parser.add_argument("machine", help="CSV: item,label — the machine's labels")
    parser.add_argument(
        "--alignment",
        choices=("accuracy", "neg_rmse"),
        default="accuracy",
        help="accuracy for categories (default); neg_rmse for scores (labels must be numbers)",
    )
    parser.add_argument(
        "--epsilon",
        type=float,
        default=0.2,
        help="the margin the machine's lower cost earns it: 0.2 against experts (default), 0.15 skilled "
        "annotators, 0.1 crowd workers (the authors' suggestions)",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="the false discovery rate (default 0.05)")
    parser.add_argument("--min-items", type=int, default=30, help="items a person needs to be tested (30)")
    parser.add_argument("--min-people", type=int, default=2, help="people an item needs to count (2)")
    parser.add_argument("--json", action="store_true", help="print JSON (strict: no NaN)")
    parser.set_defaults(handler=run_alt_test)


def read_labels(path: str, columns: tuple[str, ...], numbers: bool) -> list[tuple[int, list[str], object]]:
    """Each row as (line, the key columns' values, the label); CommandError names file and line."""
    rows = []
    for line, row in csv_rows(path, (*columns, "label")):
        if any(not row[column].strip() for column in (*columns, "label")):
            raise CommandError(f"{path}, line {line}: a field is empty")
        label: object = row["label"].strip()
        if numbers:
            try:
                label = float(row["label"])
            except ValueError:
                raise CommandError(
                    f"{path}, line {line}: label is not a number (neg_rmse): {row['label']!r}"
                ) from None
            if not math.isfinite(label):
                raise CommandError(f"{path}, line {line}: label is not finite: {row['label']!r}")
        rows.append((line, [row[column].strip() for column in columns], label))
    if not rows:
        raise CommandError(f"{path}: no labels")
    return rows


def run_alt_test(args: argparse.Namespace) -> int:
    from annotation.crowd.quality.alt_test import alt_test

    if not 0 <= args.epsilon < 1:
        raise CommandError(f"--epsilon must be at least 0 and below 1, got {args.epsilon}")
    if not 0 < args.alpha < 1:
        raise CommandError(f"--alpha must be between 0 and 1, got {args.alpha}")
    if args.min_items < 2 or args.min_people < 2:
        raise CommandError("--min-items and --min-people must be at least 2")
    numbers = args.alignment == "neg_rmse"
    people: dict[str, dict[str, object]] = {}
    for line, (annotator, item), label in read_labels(args.people, ("annotator", "item"), numbers):
        if item in people.setdefault(annotator, {}):
            raise CommandError(f"{args.people}, line {line}: {annotator} labels item {item!r} twice")
        people[annotator][item] = label
    machine: dict[str, object] = {}
    for line, (item,), label in read_labels(args.machine, ("item",), numbers):
        if item in machine:
            raise CommandError(f"{args.machine}, line {line}: item {item!r} twice")
        machine[item] = label
    result = alt_test(
        machine,
        people,
        alignment=args.alignment,
        epsilon=args.epsilon,
        alpha=args.alpha,
        min_people_per_item=args.min_people,
        min_items_per_person=args.min_items,
    )
    persons = [
        {
            "annotator": c.annotator,
            "items": c.items,
            "machine_advantage": c.machine_advantage,
            "person_advantage": c.person_advantage,
            "p_value": None if math.isnan(c.p_value) else c.p_value,
            "beaten": c.beaten,
        }
        for c in result.comparisons
    ]
    report = {
        "passed": result.passed,
        "winning_rate": result.winning_rate,
        "advantage_probability": result.advantage_probability,
        "epsilon": args.epsilon,
        "alpha": args.alpha,
        "alignment": args.alignment,
        "persons": persons,
        "left_out": result.skipped,
    }
    if args.json:
        json.dump(report, sys.stdout, indent=2, allow_nan=False)
        print()
        return 0
    if result.winning_rate is None:
        print("no person could be tested: each needs", args.min_items, "items judged with others")
    else:
        verdict = "PASSED: the machine may replace the people" if result.passed else "FAILED"
        print(
            f"{verdict} (winning rate {result.winning_rate:.2f} of {len(persons)} persons, "
            f"advantage probability {result.advantage_probability:.2f}; ε = {args.epsilon}, α = {args.alpha})"
        )
    for person in persons:
        p_value = "undefined" if person["p_value"] is None else f"{person['p_value']:.4g}"
        outcome = "beaten" if person["beaten"] else "not beaten"
        print(
            f"  {person['annotator']:<20} {person['items']:>5} items  "
            f"machine {person['machine_advantage']:.2f}  person {person['person_advantage']:.2f}  "
            f"p {p_value}  {outcome}"
        )
    for who, reason in result.skipped.items():
        print(f"  {who:<20} left out: {reason}")
    return 0
