"""``cranfield meta-eval HUMAN METRIC…``: how far automatic metrics agree with human scores."""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys

from annotation.crowd.minimums import INPUTS_FOR_INTERVAL, POINTS_FOR_CORRELATION, SYSTEMS_FOR_WILLIAMS
from cranfield.cli import CommandError

COLUMNS = ("system", "input", "value")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "meta-eval",
        help="correlate metrics with human scores at the summary, system and global levels",
        description="Each file is CSV with a header naming system, input and value (one output of one "
        "system for one input per line): HUMAN holds a human dimension (e.g. each output's mean "
        "rating), each METRIC a metric's score of the same outputs. Prints Pearson, Spearman and "
        "Kendall at the summary level (per input, then averaged), the system level (over system means) "
        "and the global level (over all outputs), each with a bootstrap interval over inputs; each "
        "metric's pairwise system-ranking accuracy; and, with two or more metrics, Williams' test of "
        "whether the first correlates with the humans better than each other one at the system level. "
        f"Below the minimums ({POINTS_FOR_CORRELATION.count} points for a correlation or an accuracy, "
        f"{INPUTS_FOR_INTERVAL.count} inputs for an interval, {SYSTEMS_FOR_WILLIAMS.count} systems for "
        "Williams' test) a figure is not given, and the reason is.",
    )
    parser.add_argument("human", help="CSV: system,input,value — the human scores")
    parser.add_argument("metrics", nargs="+", metavar="METRIC", help="CSV: system,input,value — a metric")
    parser.add_argument(
        "--lower-is-better",
        action="append",
        default=[],
        metavar="METRIC",
        help="a METRIC file of an error rate (TER, WER): its figures are those of its negated scores, so "
        "that a higher correlation means closer agreement for every metric, as the app's Metrics vs humans "
        "shows them (repeatable)",
    )
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run_meta_eval)


def read_scores(path: str) -> list[tuple[str, str, float]]:
    """The file's (system, input, value) rows; CommandError names the file, line and column."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise CommandError(f"{path}: the header must name {', '.join(COLUMNS)}; missing {missing[0]}")
            rows = []
            for line, row in enumerate(reader, start=2):
                try:
                    value = float(row["value"])
                except (TypeError, ValueError):
                    raise CommandError(
                        f"{path}, line {line}: value is not a number: {row['value']!r}"
                    ) from None
                if not math.isfinite(value):
                    raise CommandError(f"{path}, line {line}: value is not finite: {row['value']!r}")
                rows.append((row["system"], row["input"], value))
    except OSError as error:
        raise CommandError(error) from error
    if not rows:
        raise CommandError(f"{path}: no scores")
    return rows


def run_meta_eval(args: argparse.Namespace) -> int:
    if args.resamples < 0:
        raise CommandError(f"--resamples must be >= 0, got {args.resamples}")
    unknown = [path for path in args.lower_is_better if path not in args.metrics]
    if unknown:
        raise CommandError(f"--lower-is-better: {unknown[0]} is not one of the METRIC files")
    human = read_scores(args.human)
    # Error rates negated, as evaluation.texts.meta_report orients them: higher means closer to the humans.
    metrics = {
        path: [(s, i, -v) for s, i, v in read_scores(path)]
        if path in args.lower_is_better
        else read_scores(path)
        for path in args.metrics
    }
    report = {path: metric_report(args, path, scores, human) for path, scores in metrics.items()}
    williams = williams_report(human, metrics) if len(metrics) > 1 else None
    if args.json:
        found: dict[str, object] = {"williams": [], "williams_systems": None, "williams_reason": None}
        if williams is not None:
            found = {
                "williams": [{key: finite(value) for key, value in test.items()} for test in williams.tests],
                "williams_systems": williams.systems,
                "williams_reason": williams.reason,
            }
        json.dump({"metrics": report, **found}, sys.stdout, indent=2, allow_nan=False)
        print()
        return 0
    print_report(report, williams)
    return 0


def metric_report(args: argparse.Namespace, path: str, scores: list, human: list) -> dict:
    from evaluation.metrics import meta_evaluation as meta

    if not meta.paired(scores, human):
        raise CommandError(f"{path}: no (system, input) in common with {args.human}")
    rows = meta.correlations(scores, human, resamples=args.resamples, seed=args.seed)
    # Over the outputs both sides score, as the correlations.
    accuracy, accuracy_reason = meta.ranking_accuracy(*meta.paired_system_means(scores, human))
    return {
        "correlations": [{key: finite(value) for key, value in vars(row).items()} for row in rows],
        "pairwise_accuracy": accuracy,
        "pairwise_accuracy_reason": accuracy_reason,
        "negated": path in args.lower_is_better,
        "left_out": meta.one_sided(scores, human),
    }


def williams_report(human: list, metrics: dict[str, list]):
    """Williams' test of the first metric against each other one, on the outputs that the humans
    and every metric score."""
    from evaluation.metrics import meta_evaluation as meta

    shared_human, shared = meta.shared_outputs(human, metrics)
    if not shared_human:
        return meta.WilliamsReport(0, [], "no output is scored by the humans and every metric")
    means = {path: meta.system_means(rows) for path, rows in shared.items()}
    return meta.williams_tests(next(iter(metrics)), means, meta.system_means(shared_human))


def print_report(report: dict[str, dict], williams) -> None:
    for path, result in report.items():
        accuracy = result["pairwise_accuracy"]
        shown = f"{accuracy:.4f}" if accuracy is not None else f"none, {result['pairwise_accuracy_reason']}"
        name = f"-{path} (negated: lower is better)" if result["negated"] else path
        print(f"{name}   pairwise system-ranking accuracy {shown}")
        left = result["left_out"]
        if any(left.values()):
            print(
                "  left out, scored on one side only: "
                f"{left['outputs_without_rating']} outputs ({left['systems_without_rating']} systems) "
                f"without a rating, {left['outputs_without_score']} outputs "
                f"({left['systems_without_score']} systems) without a score"
            )
        for row in result["correlations"]:
            if row["value"] is None:
                why = row["reason"] or "undefined (a constant side)"
                print(f"  {row['level']:<8} {row['method']:<9} none: {why}  n={row['n']}")
                continue
            interval = (
                f"[{row['low']: .4f}, {row['high']: .4f}]"
                if row["low"] is not None
                else f"(no interval: {row['interval_reason'] or 'no defined resample'})"
            )
            print(f"  {row['level']:<8} {row['method']:<9} {row['value']: .4f}  {interval}  n={row['n']}")
    if williams is not None and williams.reason:
        print(f"Williams (system level): none, {williams.reason}")
    for test in williams.tests if williams is not None else []:
        print(
            f"Williams (system level): {test['first']} over {test['second']}: "
            f"t = {test['t']:.3f}, p = {test['p_value']:.4f} (one-sided, {test['degrees_of_freedom']} df)"
        )


def finite(value):
    """NaN (no figure) as None, as the API gives it: JSON has no NaN."""
    return None if isinstance(value, float) and math.isnan(value) else value
