"""``cranfield compare QRELS RUN…``: a table of systems, with significance against the best."""

from __future__ import annotations

import argparse
import json
import sys

from cranfield.cli import CommandError

# The paired tests of evaluation.metrics.significance (TESTS there; a test holds the two equal),
# named here so that `cranfield compare --help` need not import SciPy to list them.
TESTS = ("t", "wilcoxon", "bootstrap", "randomisation")
CORRECTIONS = (
    "holm",
    "bonferroni",
    "sidak",
    "holm-sidak",
    "simes-hochberg",
    "hommel",
    "fdr_bh",
    "fdr_by",
    "none",
)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare runs on trec_eval measures, with significance against the best",
        description="Score several runs against one qrels file and test each against the best run "
        "on the first measure (paired over topics, corrected for multiple comparisons). With fewer "
        "topics than a significance test needs (10) there is no p and no verdict, and it says why.",
    )
    parser.add_argument("qrels")
    parser.add_argument("runs", nargs="+", metavar="RUN")
    parser.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="default: map, P.10, ndcg (first is tested); also ndcg_cut_10 or nDCG@10, P@10, AP",
    )
    parser.add_argument("--test", choices=TESTS, default="t", help="paired test (default: t)")
    parser.add_argument("--correction", choices=CORRECTIONS, default="holm", help="default: holm")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("-l", dest="relevance_level", type=int, default=1)
    parser.add_argument(
        "--format",
        choices=("text", "json", "latex", "markdown"),
        default="text",
        help="text (default), json, or a table for a paper: every pair tested on every measure, the "
        "letters of the runs each is significantly better than beside its mean, the best in bold",
    )
    parser.add_argument("--json", action="store_true", help="the same as --format json")
    parser.add_argument("--digits", type=int, default=3, help="digits of the paper table's means (default 3)")
    parser.set_defaults(handler=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    from evaluation.metrics.leaderboard import against_best, significance_reason
    from evaluation.metrics.trec.files import TrecFormatError, read_qrels, read_run
    from evaluation.metrics.trec.measures import (
        PER_TOPIC_ONLY,
        MeasureError,
        aggregate,
        evaluate_many,
        parse_measures,
    )
    from evaluation.metrics.trec.names import trec_eval_specs

    try:
        measures = parse_measures(trec_eval_specs(args.measures or ["map", "P.10", "ndcg"]))
        measures = [measure for measure in measures if measure.family not in PER_TOPIC_ONLY]
        if not measures:
            raise MeasureError("relstring is a string per topic, not a score: nothing to compare")
        qrels = read_qrels(args.qrels)
        runs = {}
        for path in args.runs:
            run, tag = read_run(path)
            name = tag or path
            if name in runs:
                name = f"{name} ({path})"
            runs[name] = run
    except (MeasureError, TrecFormatError, OSError) as error:
        raise CommandError(error) from error
    # Every run is scored on every qrels topic (-c), so per-topic scores pair up across runs.
    if not 0 <= args.digits <= 10:
        raise CommandError(f"--digits must be between 0 and 10, not {args.digits}")
    per_run = evaluate_many(qrels, runs, measures, complete=True, relevance_level=args.relevance_level)
    names = [name for measure in measures for name in measure.names()]
    primary = names[0]
    summaries = {run: aggregate(per_topic) for run, per_topic in per_run.items()}
    topics = sorted(qrels)
    if args.format in {"latex", "markdown"}:
        from evaluation.metrics.paper_tables import paper_table, rendered

        columns = {n: {run: [per_run[run][t][n] for t in topics] for run in runs} for n in names}
        table = paper_table(
            columns, test=args.test, correction=args.correction, alpha=args.alpha, digits=args.digits
        )
        sys.stdout.write(rendered(table, args.format))
        return 0
    scores = {run: [per_run[run][t][primary] for t in topics] for run in runs}
    best, comparisons = against_best(scores, test=args.test, correction=args.correction, alpha=args.alpha)
    reason = significance_reason(scores) if len(runs) > 1 else None
    p_values = {c.second: c.corrected_p for c in comparisons}
    significant = {c.second: c.significant for c in comparisons}
    ordered = sorted(runs, key=lambda run: summaries[run][primary], reverse=True)
    if args.json or args.format == "json":
        rows = [
            {"run": run, **{n: summaries[run][n] for n in names}, "p_value": p_values.get(run),
             "significant": significant.get(run, None if reason else False), "best": run == best}
            for run in ordered
        ]  # fmt: skip
        report = {"measure": primary, "test": args.test, "correction": args.correction, "topics": len(topics)}
        json.dump(report | {"reason": reason, "rows": rows}, sys.stdout)
        print()
        return 0
    width = max(len(run) for run in runs)
    print(f"{'run':<{width}}  " + "  ".join(f"{n:>10}" for n in names) + f"  {'p (' + primary + ')':>14}")
    for name in ordered:
        cells = "  ".join(f"{summaries[name][n]:>10.4f}" for n in names)
        if name == best:
            marker = "best"
        elif p_values[name] is None:
            marker = "—"
        else:
            marker = f"{p_values[name]:.4f}{' *' if significant[name] else '  '}"
        print(f"{name:<{width}}  {cells}  {marker:>14}")
    if reason:
        print(f"p: none, {reason}: no significance verdict between these runs")
        return 0
    print(
        f"p: {args.test} test against the best run on {primary} over {len(topics)} topics, "
        f"{args.correction} correction; * = significant at {args.alpha}"
    )
    return 0
