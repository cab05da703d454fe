"""``cranfield sets QRELS RUN``: set measures of each topic's top k, trec_eval's layout."""

from __future__ import annotations

import argparse
import json
import sys

from cranfield.cli import CommandError
from cranfield.cli.trec_eval import positive_integer


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sets",
        help="set-based precision, recall, F-beta, accuracy, specificity, fallout of each topic's top k",
        description="Take each qrels topic's top K retrieved documents (in trec_eval's order; all of "
        "them without -k) as a set and score it against the documents judged relevant (qrels value >= "
        "-l); an unjudged document counts as non-relevant. Accuracy, specificity and fallout need the "
        "non-relevant documents that were not retrieved, so the collection's size: --collection-size N, "
        "or by default the number of distinct documents the qrels and the run name (for any topic). "
        "Prints each topic's values with -q, then the mean over the qrels topics.",
    )
    parser.add_argument("qrels", help="qrels file: qid iter docno rel")
    parser.add_argument("run", help="run file: qid Q0 docno rank score tag")
    parser.add_argument(
        "-k", type=positive_integer, help="the set: each topic's top K (default: all retrieved)"
    )
    parser.add_argument(
        "--beta",
        type=float,
        default=1.0,
        help="F's beta (default 1): F = (1 + b²)PR / (b²P + R); trec-eval's set_F.X takes X = b²",
    )
    parser.add_argument(
        "--collection-size",
        type=positive_integer,
        metavar="N",
        help="documents in the collection (default: the distinct documents the qrels and run name)",
    )
    parser.add_argument("-l", dest="relevance_level", type=int, default=1, help="lowest relevant qrels value")
    parser.add_argument("-q", dest="per_query", action="store_true", help="print each topic's values too")
    parser.add_argument("--json", action="store_true", help="print JSON instead of trec_eval's layout")
    parser.add_argument(
        "--matrix",
        action="store_true",
        help="print each topic's hits and misses instead: TP (relevant retrieved), FP (non-relevant "
        "retrieved), FN (relevant missed), TN (non-relevant not retrieved), and their sums",
    )
    parser.set_defaults(handler=run_sets)


def run_sets(args: argparse.Namespace) -> int:
    from evaluation.metrics.trec.files import TrecFormatError, read_qrels, read_run
    from evaluation.metrics.trec.retrieved_sets import known_documents, set_measures, topic_confusions

    if args.beta < 0:
        raise CommandError(f"--beta must be >= 0, got {args.beta}")
    try:
        qrels = read_qrels(args.qrels)
        run, tag = read_run(args.run)
        size = args.collection_size or known_documents(qrels, run)
        confusions = topic_confusions(
            qrels, run, k=args.k, relevance_level=args.relevance_level, collection_size=size
        )
    except (TrecFormatError, OSError, ValueError) as error:
        raise CommandError(error) from error
    if not confusions:
        raise CommandError("the qrels name no topic")
    if args.matrix:
        return print_matrix(confusions, tag, size, args)
    per_topic = {topic: set_measures(confusion, args.beta) for topic, confusion in confusions.items()}
    names = list(next(iter(per_topic.values())))
    mean = {name: sum(values[name] for values in per_topic.values()) / len(per_topic) for name in names}
    settings = {
        "k": args.k,
        "beta": args.beta,
        "collection_size": size,
        "relevance_level": args.relevance_level,
    }
    if args.json:
        document = {"runid": tag, "settings": settings, "all": mean}
        if args.per_query:
            document["per_query"] = per_topic
        json.dump(document, sys.stdout, indent=2)
        print()
        return 0
    rows = list(per_topic.items()) if args.per_query else []
    for topic, values in [*rows, ("all", mean)]:
        for name, value in values.items():
            print(f"{name:<22}\t{topic}\t{value:6.4f}")
    source = "--collection-size" if args.collection_size else "documents named by the qrels and run"
    print(
        f"# top {args.k or 'all'} per topic, F with beta {args.beta:g}, relevant: qrels >= "
        f"{args.relevance_level}, collection: {size} ({source}), {len(per_topic)} topics"
    )
    return 0


def print_matrix(confusions: dict, tag: str, size: int, args: argparse.Namespace) -> int:
    """The hits-misses matrix of each topic (natural order) and their sums, as a table or JSON."""
    from evaluation.metrics.natural_order import natural_sorted

    cells = ("tp", "fp", "fn", "tn")
    topics = natural_sorted(confusions)
    rows = {topic: {cell: getattr(confusions[topic], cell) for cell in cells} for topic in topics}
    total = {cell: sum(row[cell] for row in rows.values()) for cell in cells}
    if args.json:
        json.dump(
            {"runid": tag, "collection_size": size, "per_query": rows, "all": total}, sys.stdout, indent=2
        )
        print()
        return 0
    width = max(len("topic"), *(len(topic) for topic in topics))
    print(f"{'topic':<{width}}  {'TP':>8}  {'FP':>8}  {'FN':>8}  {'TN':>10}")
    for topic, row in [*rows.items(), ("all", total)]:
        print(f"{topic:<{width}}  {row['tp']:>8}  {row['fp']:>8}  {row['fn']:>8}  {row['tn']:>10}")
    print(
        f"# top {args.k or 'all'} per topic of {tag}, relevant: qrels >= {args.relevance_level}, "
        f"collection: {size}; TP + FP = retrieved, TP + FN = relevant, TN = the rest"
    )
    return 0
