"""``cranfield sample-pool RUN… --strata … --seed N``: a stratified sample of the runs' pool to judge,
and the sample qrels skeleton ``sample_eval.pl`` (and ``cranfield sample-eval``) read once judged."""

from __future__ import annotations

import argparse
import io
import sys

from cranfield.cli import CommandError, notice

DEFAULT_STRATA = "1-10:1,11-100:0.2,101-1000:0.05"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sample-pool",
        help="sample the runs' pool in strata by rank, for the inferred measures (xinfAP, infNDCG)",
        description="Pool the runs in strata by rank and draw a share of each stratum to judge (Yilmaz, "
        "Kanoulas & Aslam 2008). A document's stratum is the one holding its best rank over the runs; "
        "in a stratum of N documents round(rate x N) (at least 1) are drawn, each with inclusion "
        "probability n/N; the draw is seeded per topic and stratum, so the same seed gives the same "
        "sample. Writes the sampled pairs (topic docno stratum probability) to judge, and the sample "
        "qrels (topic 0 docno stratum rel): rel -1 for pooled documents not sampled, and for sampled "
        "ones their judgement from --judgements, or '?' to fill in.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files: qid Q0 docno rank score tag")
    parser.add_argument(
        "--strata",
        default=DEFAULT_STRATA,
        help=f"FIRST-LAST:RATE,… covering ranks from 1, each rate in (0, 1] (default: {DEFAULT_STRATA})",
    )
    parser.add_argument("--seed", type=int, required=True, metavar="N", help="the draw's seed")
    parser.add_argument(
        "-o", dest="pairs", help="write the sampled pairs to this file (default: standard output)"
    )
    parser.add_argument("--sample-qrels", metavar="FILE", help="write the sample qrels to this file")
    parser.add_argument(
        "--judgements",
        metavar="QRELS",
        help="qrels judging the sampled pairs: fills the sample qrels' rel (every sampled pair needed)",
    )
    parser.set_defaults(handler=run_sample_pool)


def run_sample_pool(args: argparse.Namespace) -> int:
    from evaluation.metrics.trec.files import TrecFormatError, read_qrels, read_run
    from evaluation.metrics.trec.sample_files import write_sample_pairs, write_sample_qrels
    from evaluation.metrics.trec.sampling import StrataError, parse_strata, stratified_sample

    try:
        strata = parse_strata(args.strata)
    except StrataError as error:
        raise CommandError(f"--strata: {error}") from error
    if args.judgements and not args.sample_qrels:
        raise CommandError("--judgements fills the sample qrels: give --sample-qrels FILE too")
    runs = []
    try:
        for path in args.runs:
            run, _ = read_run(path)
            if not run:
                raise CommandError(f"{path}: the run has no lines")
            runs.append(run)
        judgements = read_qrels(args.judgements) if args.judgements else None
    except (TrecFormatError, OSError) as error:
        raise CommandError(error) from error
    members = stratified_sample(runs, strata, args.seed)
    if args.sample_qrels:
        # Written whole once every judgement is found, so a missing one leaves no half file.
        sample_qrels = io.StringIO()
        try:
            write_sample_qrels(members, sample_qrels, judgements)
        except ValueError as error:
            raise CommandError(f"{args.judgements}: {error}") from error
        _write(args.sample_qrels, sample_qrels.getvalue())
    pairs_text = io.StringIO()
    write_sample_pairs(members, pairs_text)
    pairs = pairs_text.getvalue()
    if args.pairs:
        _write(args.pairs, pairs)
    else:
        sys.stdout.write(pairs)
    sampled = sum(member.sampled for member in members)
    topics = len({member.topic for member in members})
    notice("sample-pool", f"{sampled} of {len(members)} pooled documents sampled over {topics} topics")
    return 0


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(text)
    except OSError as error:
        raise CommandError(error) from error
