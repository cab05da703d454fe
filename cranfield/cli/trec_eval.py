"""``cranfield trec-eval``: trec_eval's command line and output layout, over evaluation.metrics."""

from __future__ import annotations

import argparse
import gc
import json
import sys

from cranfield.cli import CommandError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "trec-eval",
        help="score a TREC run against qrels, printing trec_eval's layout",
        description="Score a TREC run against qrels exactly as trec_eval 10.0 does, in its output layout.",
    )
    parser.add_argument("qrels", help="qrels file: qid iter docno rel")
    parser.add_argument("run", help="run file: qid Q0 docno rank score tag")
    parser.add_argument("-q", dest="per_query", action="store_true", help="print each topic's values too")
    parser.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure or set: official (default), all_trec, map, P.5,10, ndcg_cut.10 … (repeatable); "
        "a name as trec_eval prints it (ndcg_cut_10) or as ir_measures writes it (nDCG@10, P@10, AP) too",
    )
    parser.add_argument("-l", dest="relevance_level", type=int, default=1, help="lowest relevant qrels value")
    parser.add_argument("-c", dest="complete", action="store_true", help="average over every qrels topic")
    parser.add_argument("-J", dest="judged_only", action="store_true", help="drop unjudged retrieved docs")
    parser.add_argument(
        "-M", dest="max_docs", type=positive_integer, help="score only the top MAX_DOCS (≥ 1) per topic"
    )
    parser.add_argument(
        "--trec-eval-version",
        default="10.0",
        choices=["10.0", "9"],
        help="cut-off rounding of iprec_at_recall/11pt_avg (9 matches pytrec_eval)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of trec_eval's layout")
    parser.set_defaults(handler=run_trec_eval)


def positive_integer(text: str) -> int:
    """``-M``'s value: a whole number of documents, at least 1 (a negative one is not a Python slice)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number of documents, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def run_trec_eval(args: argparse.Namespace) -> int:
    from evaluation.metrics.trec.batched import evaluate_ranked
    from evaluation.metrics.trec.columnar import rank_files
    from evaluation.metrics.trec.files import TrecFormatError, read_qrels, read_run_columns
    from evaluation.metrics.trec.layout import format_line, write_layout
    from evaluation.metrics.trec.measures import (
        MeasureError,
        aggregate,
        evaluate,
        parse_measures,
    )
    from evaluation.metrics.trec.names import trec_eval_specs

    try:
        # Printed and ir_measures names as trec_eval's own -m arguments (write_layout reads them too).
        args.measures = trec_eval_specs(args.measures) if args.measures else None
        measures = parse_measures(args.measures)
        # A large run of plain lines: read, joined with the qrels and ranked as whole columns.
        ranked = rank_files(
            args.qrels, args.run, judged_only=args.judged_only, complete=args.complete, max_docs=args.max_docs
        )
        if ranked is None:
            qrels = read_qrels(args.qrels)
            run, tag = read_run_columns(args.run)
    except (MeasureError, TrecFormatError, OSError) as error:
        raise CommandError(error) from error
    if ranked is not None:
        tag = ranked.tag
        per_topic = evaluate_ranked(
            ranked.topics, measures, relevance_level=args.relevance_level, version=args.trec_eval_version
        )
    else:
        # The qrels and run are millions of long-lived objects: out of the collector's way, its passes
        # during scoring no longer walk them all again.
        gc.freeze()
        per_topic = evaluate(
            qrels,
            run,
            measures,
            relevance_level=args.relevance_level,
            judged_only=args.judged_only,
            complete=args.complete,
            max_docs=args.max_docs,
            version=args.trec_eval_version,
        )
    if not per_topic:
        # trec_eval 10.0 (trec_eval.c) stops here too, with exit 7: an average over no topic means
        # nothing. A script reading num_q still finds it (0), and the exit status says it failed.
        sys.stdout.write(format_line("num_q", "all", 0, {"num_q"}))
        raise CommandError(
            "no queries with both results and relevance info: the run and the qrels share no topic id"
        )
    summary = aggregate(per_topic)
    if args.json:
        document = {"runid": tag, "all": summary}
        if args.per_query:
            document["per_query"] = per_topic
        json.dump(document, sys.stdout, indent=2)
        print()
    else:
        write_layout(sys.stdout, per_topic, summary, tag, per_query=args.per_query, measures=args.measures)
    return 0
