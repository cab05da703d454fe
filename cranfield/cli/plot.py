"""``cranfield plot KIND QRELS RUN… -o FILE``: the app's plots from qrels and run files, as PNG or SVG."""

from __future__ import annotations

import argparse
from pathlib import Path

from cranfield.cli import CommandError

KINDS = ("pr", "roc", "det", "qq", "per-topic")
QQ_AGAINST = ("differences", "run", "normal")
FORMATS = (".png", ".svg")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "plot",
        help="draw P-R, ROC, DET, Q-Q or per-topic plots of runs against qrels (PNG or SVG)",
        description="Draw a plot of one or more runs against a qrels file. pr: mean interpolated "
        "precision at the 11 recall points (trec_eval's iprec_at_recall); roc, det: each run's scores of "
        "the documents it retrieved that the qrels judge, against binary relevance (qrels value >= -l), "
        "a curve per topic averaged vertically (AUC: the topics' mean; scores of different topics are "
        "never compared; near 0.5 for a run judged only in its own top ranks, as in a pooled campaign); "
        "qq: the per-topic differences RUN1 - RUN2 on a measure against the fitted normal (is the paired "
        "t-test's assumption fair?); per-topic: a panel per run, a bar per topic, hardest topic first. "
        "Every run is scored on every qrels topic (trec_eval -c), so per-topic values pair up across runs.",
    )
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("qrels", help="qrels file: qid iter docno rel")
    parser.add_argument(
        "runs", nargs="+", metavar="RUN", help="run file(s); qq takes two (one with --against normal)"
    )
    parser.add_argument("-o", dest="output", required=True, help="the image to write: a .png or .svg name")
    parser.add_argument(
        "-m",
        dest="measure",
        default="map",
        help="qq and per-topic: one measure, map (default), ndcg_cut_10, nDCG@10 …",
    )
    parser.add_argument("-l", dest="relevance_level", type=int, default=1, help="lowest relevant qrels value")
    parser.add_argument(
        "--against",
        choices=QQ_AGAINST,
        default="differences",
        help="qq: differences (default: RUN1 - RUN2 per topic against the fitted normal), run (RUN1's "
        "per-topic values against RUN2's, two samples' quantiles), normal (one RUN's against the "
        "fitted normal)",
    )
    parser.add_argument(
        "--trec-eval-version",
        default="10.0",
        choices=["10.0", "9"],
        help="pr: cut-off rounding of iprec_at_recall (9 matches pytrec_eval)",
    )
    parser.set_defaults(handler=run_plot)


def run_plot(args: argparse.Namespace) -> int:
    from evaluation.metrics import plotting
    from evaluation.metrics.trec.files import TrecFormatError, read_qrels
    from evaluation.metrics.trec.measures import MeasureError
    from evaluation.metrics.trec.names import trec_eval_name

    output = Path(args.output)
    if output.suffix.lower() not in FORMATS:
        raise CommandError(f"-o: the file name must end in .png or .svg, got {args.output!r}")
    wanted = 1 if args.against == "normal" else 2
    if args.kind == "qq" and len(args.runs) != wanted:
        raise CommandError(
            f"qq --against {args.against} takes {wanted} run{'s' if wanted > 1 else ''}, got {len(args.runs)}"
        )
    try:
        args.measure = trec_eval_name(args.measure)  # nDCG@10 is drawn and titled as ndcg_cut_10
        qrels = read_qrels(args.qrels)
        runs = read_runs(args.runs)
        figure = FIGURES[args.kind](qrels, runs, args)
        image = plotting.render(figure, output.suffix.lower()[1:])
        output.write_bytes(image)
    except (MeasureError, TrecFormatError, OSError, ValueError) as error:
        raise CommandError(error) from error
    return 0


def read_runs(paths: list[str]) -> dict:
    """``{name: run}``, each named by its tag (or its path when it has none, or the tag is taken)."""
    from evaluation.metrics.trec.files import read_run

    runs = {}
    for path in paths:
        run, tag = read_run(path)
        name = tag or path
        if name in runs:
            name = f"{name} ({path})"
        runs[name] = run
    return runs


def per_topic_values(qrels, runs: dict, measure: str, relevance_level: int) -> dict[str, dict[str, float]]:
    """``{run: {topic: value}}`` of one trec_eval measure, over every qrels topic."""
    from evaluation.metrics.trec.measures import MeasureError, evaluate, parse_measures

    parsed = parse_measures([measure])
    names = [name for m in parsed for name in m.names()]
    if len(names) != 1:
        raise MeasureError(f"-m: one value per topic is needed, {measure!r} gives {len(names)}: {names}")
    scored = {
        name: evaluate(qrels, run, parsed, complete=True, relevance_level=relevance_level)
        for name, run in runs.items()
    }
    values = {
        name: {topic: row[names[0]] for topic, row in per_topic.items()} for name, per_topic in scored.items()
    }
    if any(isinstance(v, str) for column in values.values() for v in column.values()):
        raise MeasureError(f"-m: {measure} is a string per topic, not a score")
    return values


def precision_recall(qrels, runs: dict, args: argparse.Namespace):
    from evaluation.metrics import plot_data, plotting
    from evaluation.metrics.trec.measures import aggregate, evaluate

    curves = {}
    for name, run in runs.items():
        per_topic = evaluate(
            qrels,
            run,
            ["iprec_at_recall"],
            complete=True,
            relevance_level=args.relevance_level,
            version=args.trec_eval_version,
        )
        curves[name] = plot_data.interpolated_precision_points(aggregate(per_topic))
    return plotting.precision_recall_figure(curves)


def binary_curves(qrels, runs: dict, args: argparse.Namespace):
    from evaluation.metrics import curves, plot_data, plotting

    averaged = {}
    for name, run in runs.items():
        by_topic = plot_data.judged_scores_by_topic(qrels, run, args.relevance_level)
        if not plot_data.topics_with_both_classes(by_topic):
            raise CommandError(
                f"{name}: no topic where it retrieved both a relevant and a non-relevant judged document; "
                "ROC and DET need one of each, per topic"
            )
        averaged[name] = curves.topic_averaged_roc(by_topic.values())
    if args.kind == "roc":
        return plotting.roc_figure(averaged)
    return plotting.det_figure({name: curves.averaged_det_curve(curve) for name, curve in averaged.items()})


def differences_qq(qrels, runs: dict, args: argparse.Namespace):
    from evaluation.metrics import curves, plot_data, plotting

    values = per_topic_values(qrels, runs, args.measure, args.relevance_level)
    if args.against == "normal":
        ((name, scores),) = values.items()
        ordered = [scores[topic] for topic in sorted(scores)]
        if len(ordered) < 3:
            raise CommandError(f"{len(ordered)} topics: a Q-Q plot needs at least 3")
        points = curves.qq_against_distribution(ordered)
        return plotting.qq_figure(points, "Normal quantiles (fitted)", f"{args.measure} of {name}, per topic")
    (first, a), (second, b) = values.items()
    if args.against == "run":
        if len(a) < 3:
            raise CommandError(f"{len(a)} topics: a Q-Q plot needs at least 3")
        points = curves.qq_two_samples(list(a.values()), list(b.values()))
        return plotting.qq_figure(points, f"{args.measure} of {second}", f"{args.measure} of {first}")
    _, differences = plot_data.topic_differences(a, b)
    if len(differences) < 3:
        raise CommandError(f"{len(differences)} topics: a Q-Q plot needs at least 3")
    return plotting.qq_figure(
        curves.qq_against_distribution(differences),
        "Normal quantiles (fitted)",
        f"{args.measure}: {first} − {second}, per topic",
    )


def per_topic(qrels, runs: dict, args: argparse.Namespace):
    from evaluation.metrics import plotting

    values = per_topic_values(qrels, runs, args.measure, args.relevance_level)
    return plotting.per_topic_figure(values, args.measure)


FIGURES = {
    "pr": precision_recall,
    "roc": binary_curves,
    "det": binary_curves,
    "qq": differences_qq,
    "per-topic": per_topic,
}
