"""``cranfield meta-eval HUMAN METRIC…``: how far automatic metrics agree with human scores."""

from __future__ import annotations

import argparse
import json
import math
import sys

from annotation.crowd.minimums import INPUTS_FOR_INTERVAL, POINTS_FOR_CORRELATION, SYSTEMS_FOR_WILLIAMS
from cranfield.cli import CommandError, csv_rows

COLUMNS = ("system", "input", "value")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "meta-eval",
        help="correlate metrics with human scores at the summary, system and global levels",
        description="Each file is CSV with a header naming system, input and value (one output of one "
        "system for one input per line): HUMAN holds a human dimension, one row per output or one row "
        "per rater (an output's rows are then averaged: its mean rating); each METRIC a metric's score "
        "of the same outputs (once per output), or several metrics' when it has a metric column naming "
        "each row's metric. Prints Pearson, Spearman and "
        "Kendall at the summary level (per input, then averaged), the system level (over system means) "
        "and the global level (over all outputs), each with a bootstrap interval over inputs; each "
        "metric's pairwise system-ranking accuracy; and, with two or more metrics, Williams' test of "
        "whether the first correlates with the humans better than each other one at the system level "
        "(or the pairs --williams names). Every figure rests on the outputs both sides score; what one "
        "side scores alone is counted and reported. "
        f"Below the minimums ({POINTS_FOR_CORRELATION.count} points for a correlation or an accuracy, "
        f"{INPUTS_FOR_INTERVAL.count} inputs for an interval, {SYSTEMS_FOR_WILLIAMS.count} systems for "
        "Williams' test) a figure is not given, and the reason is.",
    )
    parser.add_argument("human", help="CSV: system,input,value — the human scores")
    parser.add_argument(
        "metrics", nargs="+", metavar="METRIC", help="CSV: system,input,value[,metric] — one or more metrics"
    )
    parser.add_argument(
        "--name",
        action="append",
        default=[],
        help="the name of each METRIC file's metric, in the files' order (default: the file's path, or "
        "the metric column's names)",
    )
    parser.add_argument(
        "--lower-is-better",
        action="append",
        default=[],
        metavar="METRIC",
        help="a metric (its name, or its file) that is an error rate (TER, WER): its figures are those of "
        "its negated scores, so that a higher correlation means closer agreement for every metric, as the "
        "app's Metrics vs humans shows them (repeatable)",
    )
    parser.add_argument(
        "--williams",
        nargs=2,
        action="append",
        default=[],
        metavar=("FIRST", "SECOND"),
        help="Williams' test of whether metric FIRST correlates with the humans better than SECOND "
        "(repeatable; default: the first metric against each other one)",
    )
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON (strict: no NaN)")
    parser.set_defaults(handler=run_meta_eval)


Row = tuple[str, str, float]


def read_rows(path: str) -> list[tuple[int, str, str, float, str]]:
    """The file's rows as (line, system, input, value, metric or ""); CommandError names the file,
    line and column of anything that is not a finite number (and what ``csv_rows`` refuses)."""
    rows = []
    for line, row in csv_rows(path, COLUMNS):
        try:
            value = float(row["value"])
        except ValueError:
            raise CommandError(f"{path}, line {line}: value is not a number: {row['value']!r}") from None
        if not math.isfinite(value):
            raise CommandError(f"{path}, line {line}: value is not finite: {row['value']!r}")
        named = "metric" in row
        metric = row["metric"].strip() if named else ""
        if named and not metric:
            raise CommandError(f"{path}, line {line}: the metric column is empty")
        rows.append((line, row["system"], row["input"], value, metric))
    if not rows:
        raise CommandError(f"{path}: no scores")
    return rows


def read_human(path: str) -> list[Row]:
    """The human scores, one per output: an output's rows (one per rater) averaged."""
    by_output: dict[tuple[str, str], list[float]] = {}
    for _, system, item, value, _ in read_rows(path):
        by_output.setdefault((system, item), []).append(value)
    return [(system, item, math.fsum(values) / len(values)) for (system, item), values in by_output.items()]


def read_metrics(paths: list[str], names: list[str]) -> dict[str, list[Row]]:
    """``{metric name: rows}`` from the METRIC files: named by ``names`` (one per file), by their metric
    column, or by their path; a metric scoring one output twice, or named twice, is an error."""
    if names and len(names) != len(paths):
        raise CommandError(f"--name: give one name per METRIC file ({len(paths)}), not {len(names)}")
    metrics: dict[str, list[Row]] = {}
    owner: dict[str, str] = {}  # the file each metric comes from
    lines: dict[str, dict[tuple[str, str], int]] = {}  # where each metric scored each output
    for position, path in enumerate(paths):
        rows = read_rows(path)
        if names and {metric for *_, metric in rows} != {""}:
            raise CommandError(f"--name: {path} names its metrics in its metric column")
        for line, system, item, value, metric in rows:
            name = names[position] if names else metric or path
            if owner.setdefault(name, path) != path:
                raise CommandError(f"{path}, line {line}: metric {name!r} is also in {owner[name]}")
            scored = lines.setdefault(name, {})
            if (system, item) in scored:
                raise CommandError(
                    f"{path}, line {line}: {name} scores system {system!r} on input {item!r} again "
                    f"(line {scored[system, item]})"
                )
            scored[system, item] = line
            metrics.setdefault(name, []).append((system, item, value))
    return metrics


def run_meta_eval(args: argparse.Namespace) -> int:
    if args.resamples < 0:
        raise CommandError(f"--resamples must be >= 0, got {args.resamples}")
    human = read_human(args.human)
    metrics = read_metrics(args.metrics, args.name)
    by_path = {path: name for path, name in zip(args.metrics, args.name or args.metrics, strict=True)}
    lower = {by_path.get(metric, metric) for metric in args.lower_is_better}
    known = ", ".join(metrics)
    unknown = sorted(lower - set(metrics))
    if unknown:
        raise CommandError(f"--lower-is-better: {unknown[0]} is not one of the metrics ({known})")
    pairs = [(by_path.get(a, a), by_path.get(b, b)) for a, b in args.williams]
    for first, second in pairs:
        for name in (first, second):
            if name not in metrics:
                raise CommandError(f"--williams: {name} is not one of the metrics ({known})")
        if first == second:
            raise CommandError(f"--williams: {first} against itself")
    # Error rates negated, as evaluation.texts.meta_report orients them: higher means closer to the humans.
    for name in lower:
        metrics[name] = [(s, i, -v) for s, i, v in metrics[name]]
    report = {name: metric_report(args, name, rows, human, name in lower) for name, rows in metrics.items()}
    williams = williams_report(human, metrics, pairs) if len(metrics) > 1 else None
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


def metric_report(args: argparse.Namespace, name: str, scores: list, human: list, negated: bool) -> dict:
    from evaluation.metrics import meta_evaluation as meta

    if not meta.paired(scores, human):
        raise CommandError(f"{name}: no (system, input) in common with {args.human}")
    rows = meta.correlations(scores, human, resamples=args.resamples, seed=args.seed)
    # Over the outputs both sides score, as the correlations.
    accuracy, accuracy_reason = meta.ranking_accuracy(*meta.paired_system_means(scores, human))
    return {
        "correlations": [{key: finite(value) for key, value in vars(row).items()} for row in rows],
        "pairwise_accuracy": accuracy,
        "pairwise_accuracy_reason": accuracy_reason,
        "negated": negated,
        "left_out": meta.one_sided(scores, human),
    }


def williams_report(human: list, metrics: dict[str, list], pairs: list[tuple[str, str]]):
    """Williams' test of each (first, second) of ``pairs`` (default: the first metric against each
    other one), on the outputs that the humans and every metric tested score."""
    from evaluation.metrics import meta_evaluation as meta

    first = next(iter(metrics))
    pairs = pairs or [(first, other) for other in metrics if other != first]
    tested = {name: metrics[name] for pair in pairs for name in pair}
    shared_human, shared = meta.shared_outputs(human, tested)
    if not shared_human:
        return meta.WilliamsReport(0, [], "no output is scored by the humans and every metric tested")
    means = {name: meta.system_means(rows) for name, rows in shared.items()}
    human_means = meta.system_means(shared_human)
    reports = [meta.williams_tests(a, {a: means[a], b: means[b]}, human_means) for a, b in pairs]
    return meta.WilliamsReport(reports[0].systems, [t for r in reports for t in r.tests], reports[0].reason)


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
