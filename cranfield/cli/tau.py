"""``cranfield tau FIRST SECOND [RUN…]``: how far two rankings of systems agree (Kendall's τ, τ_AP)."""

from __future__ import annotations

import argparse
import json
import sys

from cranfield.cli import CommandError, fields_of_lines


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "tau",
        help="Kendall's tau and tau_AP between two rankings of systems: two result tables, or the runs "
        "scored under two qrels",
        description="With RUNs, FIRST and SECOND are qrels files: every run is scored under each (-m, "
        "trec_eval -c) and the two rankings compared. Without, FIRST and SECOND are result tables: "
        "lines 'SYSTEM SCORE', or trec_eval's output of several runs ('runid all NAME' then 'MEASURE "
        "all VALUE' lines; -m picks the measure). Prints Kendall's tau-b (scipy), tau_AP of SECOND "
        "against FIRST and the symmetric tau_AP (Yilmaz, Aslam & Robertson 2008), and the pairs of "
        "systems the two order differently.",
    )
    parser.add_argument("first", metavar="FIRST")
    parser.add_argument("second", metavar="SECOND")
    parser.add_argument("runs", nargs="*", metavar="RUN", help="runs to score under both qrels")
    parser.add_argument("-m", dest="measure", default="map", help="measure (default map)")
    parser.add_argument("-l", dest="relevance_level", type=int, default=1, help="lowest relevant qrels value")
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(handler=run_tau)


def read_table(path: str, measure: str) -> dict[str, float]:
    """A result table: 'SYSTEM SCORE' lines, or trec_eval's output of several runs (``measure``'s lines)."""
    scores: dict[str, float] = {}
    current = None
    for number, fields in fields_of_lines(path):
        where = f"{path}, line {number}"
        if len(fields) == 3 and fields[0] == "runid":
            current = fields[2]
            continue
        if len(fields) == 3:
            if fields[0] != measure or fields[1] != "all":
                continue
            if current is None:
                raise CommandError(f"{where}: a {measure} line before any 'runid all NAME' line")
            system, value = current, fields[2]
        elif len(fields) == 2:
            system, value = fields
        else:
            raise CommandError(f"{where}: expected 'SYSTEM SCORE' or trec_eval's 'MEASURE all VALUE'")
        if system in scores:
            raise CommandError(f"{where}: {system!r} is scored twice")
        try:
            scores[system] = float(value)
        except ValueError:
            raise CommandError(f"{where}: the score {value!r} is not a number") from None
    if not scores:
        raise CommandError(f"{path}: no system scored (on {measure}, for trec_eval's layout)")
    return scores


def scored_under_qrels(args: argparse.Namespace) -> tuple[dict[str, float], dict[str, float], str]:
    from evaluation.metrics.trec.files import TrecFormatError, read_qrels, read_run
    from evaluation.metrics.trec.measures import MeasureError, aggregate, evaluate_many, parse_measures
    from evaluation.metrics.trec.names import trec_eval_specs

    try:
        specs = trec_eval_specs([args.measure])
        names = [n for measure in parse_measures(specs) for n in measure.names()]
        if len(names) != 1:
            raise MeasureError(f"-m names one measure (map, P_10, nDCG@10), not {args.measure!r}")
        runs = {}
        for path in args.runs:
            run, tag = read_run(path)
            name = tag or path
            runs[name if name not in runs else f"{name} ({path})"] = run
        scorings = []
        for path in (args.first, args.second):
            qrels = read_qrels(path)
            per_run = evaluate_many(qrels, runs, specs, complete=True, relevance_level=args.relevance_level)
            scorings.append({run: aggregate(per_topic)[names[0]] for run, per_topic in per_run.items()})
    except (MeasureError, TrecFormatError, OSError) as error:
        raise CommandError(error) from error
    return scorings[0], scorings[1], names[0]


def run_tau(args: argparse.Namespace) -> int:
    from evaluation.metrics.trust import flipped_pairs, kendall_tau, ranking, symmetric_tau_ap, tau_ap

    if args.runs:
        first, second, measure = scored_under_qrels(args)
    else:
        measure = args.measure
        first, second = read_table(args.first, measure), read_table(args.second, measure)
    if set(first) != set(second):
        only = sorted(set(first) ^ set(second))
        raise CommandError(f"the two rankings must hold the same systems; only one has {', '.join(only[:5])}")
    if len(first) < 2:
        raise CommandError("a rank correlation needs at least two systems")
    flipped = flipped_pairs(first, second)
    result = {
        "systems": len(first),
        "measure": measure,
        "kendall_tau": kendall_tau(first, second),
        "tau_ap": tau_ap(ranking(first), ranking(second)),
        "symmetric_tau_ap": symmetric_tau_ap(ranking(first), ranking(second)),
        "flipped_pairs": flipped,
    }
    if args.json:
        json.dump(result | {"first": first, "second": second}, sys.stdout, indent=2)
        print()
        return 0
    print(f"systems           {result['systems']}")
    print(f"kendall_tau       {result['kendall_tau']:.4f}")
    print(f"tau_ap            {result['tau_ap']:.4f}  (SECOND against FIRST)")
    print(f"symmetric_tau_ap  {result['symmetric_tau_ap']:.4f}")
    for above, below in flipped:
        print(f"flipped           {above} > {below} in FIRST, {below} > {above} in SECOND")
    return 0
