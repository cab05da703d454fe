"""The ``cranfield`` command line against its peers, whole process by whole process, as a user runs them.

    .venv/bin/python benchmarks/bench_cli.py           # the sizes of issue 10 (a few minutes)
    .venv/bin/python benchmarks/bench_cli.py --quick   # tiny inputs, two runs each (a smoke run)

Every timing is one fresh process (``subprocess.run`` between two ``time.perf_counter`` calls), so it
includes the interpreter's start, every import and reading the input files, as it does for a user;
ours are the ``cranfield`` console script, the peers a ``python -c`` script doing the same job with
the peer library. Each figure is the median of ``--runs`` runs, ours and the peer's alternating, so a
change of load on the shared machine hits both, in wall-clock and in CPU time (user + system of the
child process: the work done, which moves less with the load). Outputs are checked to agree before
anything is timed.

(a) start-up: ``cranfield --help`` and ``cranfield trec-eval`` on a one-topic qrels/run (target < 0.3 s);
    ``python -c pass`` is shown as the floor.
(b) ``cranfield trec-eval -m all_trec`` against pytrec_eval with all its measures, from the same files:
    1,000 topics × 1,000 retrieved documents (500 judged per topic), bench_trec_eval's collection.
(c) ``cranfield rouge --stem`` against rouge-score (``score_multi`` with ``use_stemmer``, and its
    ``BootstrapAggregator``: both sides bootstrap 1,000 resamples and print every item's scores):
    3,000 predictions × 4 references, bench_rouge's summaries of real sentences.
(d) ``cranfield aggregate --method dawid-skene`` against crowd-kit's ``DawidSkene`` read from the same
    CSV with pandas: 300,000 labels (30,000 items × 10 assessors from a pool of 1,000, 5 classes),
    bench_crowd's simulation.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench_crowd import simulate
from bench_rouge import sentences
from bench_trec_eval import synthetic_collection

PYTREC_EVAL = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
per_topic = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures).evaluate(run)
for measure in sorted(next(iter(per_topic.values()))):
    value = pytrec_eval.compute_aggregated_measure(measure, [v[measure] for v in per_topic.values()])
    print(f"{measure:<22}\\tall\\t{value:.4f}")
"""

ROUGE_SCORE = """
import json, sys
from rouge_score import rouge_scorer, scoring
scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
aggregator = scoring.BootstrapAggregator(n_samples=1000)
items = []
with open(sys.argv[1]) as f:
    for line in f:
        pair = json.loads(line)
        scores = scorer.score_multi(pair["references"], pair["prediction"])
        aggregator.add_scores(scores)
        items.append({"id": pair["id"], **{name: score._asdict() for name, score in scores.items()}})
summary = {name: {"low": s.low._asdict(), "mid": s.mid._asdict(), "high": s.high._asdict()}
           for name, s in aggregator.aggregate().items()}
json.dump({"items": items, "aggregate": summary}, sys.stdout)
"""

CROWD_KIT = """
import sys
import pandas as pd
from crowdkit.aggregation import DawidSkene
frame = pd.read_csv(sys.argv[1]).rename(columns={"item": "task"})
model = DawidSkene(n_iter=100).fit(frame)
out = pd.DataFrame({"label": model.labels_, "confidence": model.probas_.max(axis=1)})
out.index.name = "item"
out.to_csv(sys.stdout, float_format="%.6f")
"""


def cranfield() -> list[str]:
    """The console script as a user runs it (``python -m cranfield`` where it is not installed)."""
    script = Path(sys.executable).with_name("cranfield")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cranfield"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(command: list[str], cwd: Path) -> tuple[float, float, str]:
    """Wall-clock seconds, CPU seconds (user + system) and standard output of one process."""
    cpu = children_cpu()
    began = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    elapsed = time.perf_counter() - began
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} … failed:\n{result.stderr[-3000:]}")
    return elapsed, children_cpu() - cpu, result.stdout


def medians(runs: int, cwd: Path, **commands: list[str]) -> dict[str, tuple[float, float]]:
    """Median wall-clock and median CPU seconds of each command over ``runs`` runs, the commands
    alternating. CPU time (the work done) moves less than wall-clock time when others load the machine."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            times[name].append(run(command, cwd)[:2])
    return {
        name: (statistics.median(t[0] for t in values), statistics.median(t[1] for t in values))
        for name, values in times.items()
    }


def ratio(times: dict[str, tuple[float, float]]) -> str:
    (ours, ours_cpu), (peer, peer_cpu) = times["ours"], times["peer"]
    return (
        f"{peer / ours:.2f} wall, {peer_cpu / ours_cpu:.2f} CPU (s: theirs {peer:.2f}, ours {ours:.2f}; "
        f"CPU theirs {peer_cpu:.2f}, ours {ours_cpu:.2f})"
    )


def trec_values(output: str) -> dict[str, float]:
    values = {}
    for line in output.splitlines():
        name, _, value = line.split("\t")
        if name.strip() != "runid":
            values[name.strip()] = float(value)
    return values


def write_collection(directory: Path, topics: int, retrieved: int, judged: int) -> None:
    qrels, runs = synthetic_collection(topics, retrieved, judged, 1)
    with open(directory / "qrels", "w") as out:
        out.writelines(f"{q} 0 {d} {rel}\n" for q, docs in qrels.items() for d, rel in docs.items())
    with open(directory / "run", "w") as out:
        for q, docs in runs["run0"].items():
            ranked = sorted(docs.items(), key=lambda pair: -pair[1])
            out.writelines(
                f"{q} Q0 {d} {rank} {score!r} bench\n" for rank, (d, score) in enumerate(ranked, 1)
            )
    (directory / "qrels1").write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\n")
    (directory / "run1").write_text("q1 Q0 d1 1 3.0 bench\nq1 Q0 d2 2 2.0 bench\nq1 Q0 d4 3 1.0 bench\n")


def write_pairs(path: Path, count: int, quick: bool) -> None:
    try:
        pool, _ = sentences()
    except SystemExit:  # bench_rouge's real sentences are missing: a smoke run makes do with these
        if not quick:
            raise
        pool = [f"the {a} {b} sat on the {c} mats" for a in ("cats", "dogs") for b in ("quickly", "slowly")
                for c in ("red", "green", "blue")]  # fmt: skip
    rng = random.Random(0)

    def summary() -> str:
        return "\n".join(rng.sample(pool, rng.randint(2, 5)))

    with open(path, "w") as out:
        for number in range(count):
            pair = {"id": number, "prediction": summary(), "references": [summary() for _ in range(4)]}
            out.write(json.dumps(pair) + "\n")


def write_labels(path: Path, items: int) -> None:
    triples, _, _ = simulate(items, 10, 1000, 5)
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["item", "worker", "label"])
        writer.writerows(triples)


def check_trec_eval(ours: str, theirs: str) -> None:
    mine, peer = trec_values(ours), trec_values(theirs)
    for name in ("map", "P_10", "ndcg", "recip_rank", "bpref", "Rprec", "num_rel_ret"):
        assert abs(mine[name] - peer[name]) < 1.5e-4, (name, mine[name], peer[name])


def check_rouge(ours: str, theirs: str) -> None:
    mine, peer = json.loads(ours)["items"], json.loads(theirs)["items"]
    assert len(mine) == len(peer)
    for a, b in zip(mine, peer, strict=True):
        for name in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
            for part in ("precision", "recall", "fmeasure"):
                assert abs(a[name][part] - b[name][part]) < 1e-9, (a["id"], name, part)


def check_aggregate(ours: str, theirs: str, least: float) -> float:
    mine = {row["item"]: row["label"] for row in csv.DictReader(ours.splitlines())}
    peer = {row["item"]: row["label"] for row in csv.DictReader(theirs.splitlines())}
    assert mine.keys() == peer.keys()
    same = sum(mine[item] == peer[item] for item in mine) / len(mine)
    assert same >= least, same
    return same


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="tiny inputs, two runs each")
    parser.add_argument("--runs", type=int, help="runs per command (default 5; start-up 3× as many)")
    parser.add_argument(
        "--only",
        choices=["startup", "trec-eval", "rouge", "aggregate"],
        action="append",
        help="run only these parts (repeatable; default all)",
    )
    args = parser.parse_args()
    runs = args.runs or (2 if args.quick else 5)
    topics, pairs, items = (20, 30, 300) if args.quick else (1000, 3000, 30_000)
    ours = cranfield()
    python = sys.executable
    load = os.getloadavg()[0]
    print(f"cores: {os.cpu_count()}; load average {load:.1f}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(f"ours: {' '.join(ours)}; each figure the median of {runs} runs (start-up: {3 * runs})")

    with tempfile.TemporaryDirectory() as workdir:
        work = Path(workdir)
        write_collection(work, topics, 1000, 500)
        write_pairs(work / "pairs.jsonl", pairs, args.quick)
        write_labels(work / "labels.csv", items)

        wanted = set(args.only or ["startup", "trec-eval", "rouge", "aggregate"])
        if "startup" in wanted:
            startup_part(runs, work, python, ours)
        if "trec-eval" in wanted:
            trec_eval_part(runs, work, python, ours, topics)
        if "rouge" in wanted:
            rouge_part(runs, work, python, ours, pairs)
        if "aggregate" in wanted:
            aggregate_part(runs, work, python, ours, items)


def startup_part(runs: int, work: Path, python: str, ours: list[str]) -> None:
    """(a) start-up"""
    startup = medians(
        3 * runs,
        work,
        python=[python, "-c", "pass"],
        help=[*ours, "--help"],
        trec_eval_one_topic=[*ours, "trec-eval", "qrels1", "run1"],
    )
    print(
        "(a) start-up, target < 0.3 s, wall (CPU): "
        + ", ".join(
            f"{label} {startup[name][0]:.3f} s ({startup[name][1]:.3f} s)"
            for name, label in (
                ("help", "cranfield --help"),
                ("trec_eval_one_topic", "cranfield trec-eval on one topic"),
                ("python", "python -c pass"),
            )
        )
    )


def trec_eval_part(runs: int, work: Path, python: str, ours: list[str], topics: int) -> None:
    """(b) trec-eval, all_trec, against pytrec_eval"""
    trec_ours = [*ours, "trec-eval", "-m", "all_trec", "qrels", "run"]
    trec_peer = [python, "-c", PYTREC_EVAL, "qrels", "run"]
    check_trec_eval(run(trec_ours, work)[2], run(trec_peer, work)[2])
    t = medians(runs, work, ours=trec_ours, peer=trec_peer)
    print(
        f"(b) trec-eval -m all_trec, {topics} topics × 1000 documents: pytrec_eval time / ours "
        f"{ratio(t)}; target ≥ 2 (issue 28); same map, P_10, ndcg, recip_rank, bpref, Rprec"
    )


def rouge_part(runs: int, work: Path, python: str, ours: list[str], pairs: int) -> None:
    """(c) rouge, stemmed, against rouge-score"""
    rouge_ours = [*ours, "rouge", "pairs.jsonl", "--stem"]
    rouge_peer = [python, "-c", ROUGE_SCORE, "pairs.jsonl"]
    check_rouge(run(rouge_ours, work)[2], run(rouge_peer, work)[2])
    t = medians(runs, work, ours=rouge_ours, peer=rouge_peer)
    print(
        f"(c) rouge --stem, {pairs} predictions × 4 references, rouge1/2/L/Lsum, 1000 resamples: "
        f"rouge-score time / ours {ratio(t)}; target ≥ 10; same scores on every item"
    )


def aggregate_part(runs: int, work: Path, python: str, ours: list[str], items: int) -> None:
    """(d) aggregate, Dawid-Skene, against crowd-kit"""
    ds_ours = [*ours, "aggregate", "labels.csv", "--method", "dawid-skene"]
    ds_peer = [python, "-c", CROWD_KIT, "labels.csv"]
    # On 300 items a few dozen near-ties can go either way; at 30,000 the two agree on all but a handful.
    same = check_aggregate(run(ds_ours, work)[2], run(ds_peer, work)[2], 0.9 if items < 1000 else 0.999)
    t = medians(runs, work, ours=ds_ours, peer=ds_peer)
    print(
        f"(d) aggregate --method dawid-skene, {items * 10:,} labels: crowd-kit time / ours "
        f"{ratio(t)}; target ≥ 5; same label on {same:.2%} of items"
    )


if __name__ == "__main__":
    main()
