"""``cranfield pool-bias QRELS RUN…``: leave-one-run-out (or leave-one-group-out) re-scoring."""

from __future__ import annotations

import argparse
import json
import sys

from cranfield.cli import CommandError, fields_of_lines
from cranfield.cli.trec_eval import positive_integer


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "pool-bias",
        help="how each run would score had it not been pooled (leave one run or group out)",
        description="For each run (or, with --groups, each group of runs), drop from the qrels the "
        "documents only it put into the depth-K pool of the runs given, score it on what is left over "
        "every qrels topic (trec_eval -c) and rank it among the other runs' full scores, as a run that "
        "had not been pooled would be (Zobel 1998; Buckley et al. 2007). A large drop says the qrels "
        "favour the runs that were pooled.",
    )
    parser.add_argument("qrels", help="qrels file: qid iter docno rel")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="the pooled runs")
    parser.add_argument("--depth", type=positive_integer, default=100, help="pool depth (default 100)")
    parser.add_argument(
        "-m", dest="measure", default="map", help="measure as trec_eval prints it (default map)"
    )
    parser.add_argument(
        "--groups", metavar="FILE", help="lines 'RUN GROUP': runs of one team are left out together"
    )
    parser.add_argument("-l", dest="relevance_level", type=int, default=1, help="lowest relevant qrels value")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run_pool_bias)


def read_groups(path: str, runs: list[str]) -> dict[str, str]:
    """``RUN GROUP`` per line (blank lines and ``#`` comments skipped); a run not named is its own group."""
    groups: dict[str, str] = {}
    for number, fields in fields_of_lines(path):
        if len(fields) != 2:
            raise CommandError(f"{path}, line {number}: expected 'RUN GROUP', got {' '.join(fields)!r}")
        if fields[0] not in runs:
            raise CommandError(f"{path}, line {number}: no run is tagged {fields[0]!r}")
        groups[fields[0]] = fields[1]
    return {run: groups.get(run, run) for run in runs}


def run_pool_bias(args: argparse.Namespace) -> int:
    from evaluation.metrics.trec.files import TrecFormatError, read_qrels, read_run
    from evaluation.metrics.trec.measures import MeasureError, parse_measures
    from evaluation.metrics.trec.names import trec_eval_specs
    from evaluation.metrics.trust import leave_one_out

    try:
        names = [n for measure in parse_measures(trec_eval_specs([args.measure])) for n in measure.names()]
        if len(names) != 1:
            raise MeasureError(f"-m names one measure (map, P_10, nDCG@10), not {args.measure!r}")
        name = names[0]
        qrels = read_qrels(args.qrels)
        runs = {}
        for path in args.runs:
            run, tag = read_run(path)
            tag = tag or path
            if tag in runs:
                raise CommandError(f"two runs are tagged {tag!r} ({path}); each run needs its own tag")
            runs[tag] = run
    except (MeasureError, TrecFormatError, OSError) as error:
        raise CommandError(error) from error
    if len(runs) < 2:
        raise CommandError("pool bias needs at least two runs: one left out, the others pooled")
    groups = read_groups(args.groups, list(runs)) if args.groups else None
    results = leave_one_out(
        runs, qrels, args.depth, measure=name, groups=groups, relevance_level=args.relevance_level
    )
    if args.json:
        json.dump([vars(result) for result in results], sys.stdout, indent=2)
        print()
        return 0
    width = max(len("run"), *(len(result.run) for result in results))
    print(f"{'run':<{width}}  {name:>10}  rank  {'left out':>10}  rank  unique  unique relevant")
    for r in results:
        scores = f"{r.score:>10.4f}  {r.rank:>4}  {r.score_left_out:>10.4f}  {r.rank_left_out:>4}"
        print(f"{r.run:<{width}}  {scores}  {r.unique_documents:>6}  {r.unique_relevant:>15}")
    left = "group" if groups else "run"
    print(
        f"# depth {args.depth}; each {left}'s unique pooled documents left out of the qrels; "
        f"{len(qrels)} topics"
    )
    return 0
