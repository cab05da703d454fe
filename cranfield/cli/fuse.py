"""``cranfield fuse RUN RUN …``: several runs fused into one TREC run (RRF, CombSUM, CombMNZ)."""

from __future__ import annotations

import argparse
import sys

from cranfield.cli import CommandError, notice
from cranfield.cli.trec_eval import positive_integer

# evaluation.metrics.fusion's names, repeated so that --help imports nothing (tests/foundation/
# test_cli.py holds them equal).
METHODS = ("rrf", "combsum", "combmnz")
NORMALISATIONS = ("min-max", "z-score", "none")


def non_negative_integer(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "fuse",
        help="fuse runs into one: reciprocal rank fusion, CombSUM or CombMNZ",
        description="Fuse two or more TREC runs into one, written as a TREC run (qid Q0 docno rank "
        "score tag) in trec_eval's order. rrf: the sum of 1/(k + rank) over the runs that retrieved a "
        "document (Cormack, Clarke & Büttcher 2009); combsum: the sum of its scores, each run's "
        "normalised per topic by --norm; combmnz: that sum times how many runs retrieved it (Fox & "
        "Shaw 1994). Equal to ranx.fuse. A topic a run lacks counts as retrieved nothing by that run; "
        "runs that share no topic are refused.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files: qid Q0 docno rank score tag")
    parser.add_argument("--method", choices=METHODS, default="rrf", help="how to fuse (default: rrf)")
    parser.add_argument(
        "--norm",
        choices=NORMALISATIONS,
        default="min-max",
        help="each run's scores per topic before combsum or combmnz (default: min-max; rrf reads ranks only)",
    )
    parser.add_argument(
        "--rrf-k", type=non_negative_integer, default=60, metavar="K", help="RRF's constant (default: 60)"
    )
    parser.add_argument("--tag", help="the fused run's tag (default: the method and normalisation)")
    parser.add_argument(
        "--depth", type=positive_integer, metavar="N", help="keep each topic's first N fused documents"
    )
    parser.add_argument("-o", dest="output", help="write the run to this file (default: standard output)")
    parser.set_defaults(handler=run_fuse)


def run_fuse(args: argparse.Namespace) -> int:
    from evaluation.metrics.fusion import FusionError, common_topics, fuse
    from evaluation.metrics.trec.files import TrecFormatError, read_run, write_run

    if len(args.runs) < 2:
        raise CommandError(f"fusion needs at least two runs, got one: {args.runs[0]}")
    tag = args.tag or (args.method if args.method == "rrf" else f"{args.method}-{args.norm}")
    if not tag.strip() or len(tag.split()) != 1:
        raise CommandError(f"--tag must be one word (a run file's sixth field), got {tag!r}")
    runs = []
    for path in args.runs:
        try:
            run, _ = read_run(path)
        except (TrecFormatError, OSError) as error:
            raise CommandError(error) from error
        if not run:
            raise CommandError(f"{path}: the run has no lines")
        runs.append(run)
    if not common_topics(runs):
        raise CommandError(f"fusion of runs with no topic in common: {', '.join(args.runs)}")
    try:
        fused = fuse(runs, args.method, args.norm, k=args.rrf_k, depth=args.depth)
    except FusionError as error:
        raise CommandError(error) from error
    partial = len(fused) - len(common_topics(runs))
    if partial:
        notice("fuse", f"{partial} of {len(fused)} topics are in only some of the runs (fused from those)")
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8", errors="surrogateescape") as handle:
                write_run(fused, handle, tag)
        except OSError as error:
            raise CommandError(error) from error
    else:
        write_run(fused, sys.stdout, tag)
    return 0
