"""``cranfield sample-eval SAMPLE_QRELS RUN…``: inferred measures from a stratified sample, printed as
NIST's ``sample_eval.pl`` prints them (xinfAP as ``infAP``, infNDCG, iP@k, inferred numbers relevant)."""

from __future__ import annotations

import argparse
import sys

from cranfield.cli import CommandError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sample-eval",
        help="inferred measures (xinfAP, infNDCG, iP@k) from a sampled pool, as sample_eval.pl",
        description="Score runs against sample qrels (topic iter docno stratum rel; rel -1: pooled but "
        "not sampled) with the inferred measures of Yilmaz, Kanoulas & Aslam (SIGIR 2008), equal to NIST's "
        "sample_eval.pl and in its layout: infAP (xinfAP), infNDCG, iprec@rec (over all topics), iP10, "
        "iP50, iP1000, inum_rel_ret, inum_rel, num_ret. Only topics in both the run and the sample qrels "
        "are averaged; a run's topic ids lose their leading zeros, as the script's do. With several runs, "
        "each run's block starts with a runid line. --stat-ap adds statAP (Aslam, Pavlu & Yilmaz 2006, as "
        "statAP_MQ_eval_v3.pl; inclusion probabilities: each stratum's sampled share) after each block, "
        "averaged over the topics with a sampled relevant document.",
    )
    parser.add_argument(
        "sample_qrels", metavar="SAMPLE_QRELS", help="sample qrels: topic iter docno stratum rel"
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files: qid Q0 docno rank score tag")
    parser.add_argument("-q", dest="per_topic", action="store_true", help="print each topic's values too")
    parser.add_argument(
        "--stat-ap", action="store_true", help="print statAP too, after sample_eval.pl's lines"
    )
    parser.set_defaults(handler=run_sample_eval)


def run_sample_eval(args: argparse.Namespace) -> int:
    from evaluation.metrics.trec.files import TrecFormatError, read_run
    from evaluation.metrics.trec.inferred import InferredError, format_sample_eval, sample_eval
    from evaluation.metrics.trec.sample_files import read_sample_qrels
    from evaluation.metrics.trec.stat_ap import inclusion_probabilities, stat_ap

    try:
        qrels = read_sample_qrels(args.sample_qrels)
    except (TrecFormatError, OSError) as error:
        raise CommandError(error) from error
    if not qrels:
        raise CommandError(f"{args.sample_qrels}: the sample qrels have no lines")
    blocks = []
    for path in args.runs:
        try:
            run, tag = read_run(path)
            result = sample_eval(qrels, run)
        except (TrecFormatError, OSError) as error:
            raise CommandError(error) from error
        except InferredError as error:
            raise CommandError(f"{path}: {error} ({args.sample_qrels})") from error
        lines = format_sample_eval(result, per_topic=args.per_topic)
        if args.stat_ap:
            try:
                stat = stat_ap(inclusion_probabilities(qrels), run)
            except ValueError as error:
                raise CommandError(f"{path}: statAP: {error} ({args.sample_qrels})") from error
            if args.per_topic:
                lines.extend(f"statAP\t\t{topic}\t\t{v.stat_ap:6.4f}" for topic, v in stat.topics.items())
            lines.append(f"statAP\t\tall\t\t{stat.stat_map:6.4f}")
        blocks.append([f"runid\t\tall\t\t{tag}", *lines] if len(args.runs) > 1 else lines)
    for lines in blocks:
        sys.stdout.write("".join(f"{line}\n" for line in lines))
    return 0
