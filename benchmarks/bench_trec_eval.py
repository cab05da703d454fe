"""Time trec_eval's default measure set against pytrec_eval and ranx, in one process and run.

    .venv/bin/python benchmarks/bench_trec_eval.py          # 50 topics × 1000 docs × 10/100 runs; 1000 topics
    .venv/bin/python benchmarks/bench_trec_eval.py --quick  # a small smoke version

Every library starts from the same in-memory dicts (qrels {qid: {docid: rel}}, runs {qid: {docid:
score}}), and its time includes whatever it must build from them (ranx's Qrels/Run objects,
pytrec_eval's RelevanceEvaluator). Reported as ratios; absolute seconds on a shared machine are noise.
"""

from __future__ import annotations

import argparse
import os
import random
import time
import warnings

from evaluation.metrics.trec.measures import evaluate_many

OFFICIAL_PYTREC = {"num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                   "iprec_at_recall", "P"}  # fmt: skip
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RANX_METRICS = ["map", "r-precision", "mrr"] + [f"precision@{k}" for k in CUTOFFS]


def synthetic_collection(topics: int, retrieved: int, judged: int, runs: int, seed: int = 1):
    rng = random.Random(seed)
    corpus = [f"doc{i:06d}" for i in range(retrieved * 4)]
    qrels = {}
    for t in range(topics):
        docs = rng.sample(corpus, judged)
        qrels[f"q{t}"] = {d: (rng.choice([1, 1, 2]) if rng.random() < 0.2 else 0) for d in docs}
    all_runs = {}
    for r in range(runs):
        run = {}
        for t in range(topics):
            docs = rng.sample(corpus, retrieved)
            run[f"q{t}"] = {d: rng.random() for d in docs}
        all_runs[f"run{r}"] = run
    return qrels, all_runs


def time_it(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def bench(topics: int, retrieved: int, judged: int, runs: int) -> dict[str, float]:
    import pytrec_eval
    from ranx import Qrels as RanxQrels
    from ranx import Run as RanxRun
    from ranx import evaluate as ranx_evaluate

    qrels, all_runs = synthetic_collection(topics, retrieved, judged, runs)

    def ours():
        evaluate_many(qrels, all_runs, ["official"])

    def pytrec():
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, OFFICIAL_PYTREC)
        for run in all_runs.values():
            evaluator.evaluate(run)

    def ranx():
        ranx_qrels = RanxQrels(qrels)
        for run in all_runs.values():
            ranx_evaluate(ranx_qrels, RanxRun(run), RANX_METRICS)

    # numba compiles each ranx metric on first use: do it before timing.
    ranx_evaluate(RanxQrels({"q": {"d": 1}}), RanxRun({"q": {"d": 1.0, "e": 0.5}}), RANX_METRICS)
    return {"cranfield": time_it(ours), "pytrec_eval": time_it(pytrec), "ranx": time_it(ranx)}


def main() -> None:
    warnings.simplefilter("ignore")  # numba's type-safety chatter from inside ranx
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}")
    configurations = (
        [(10, 200, 100, 5)]
        if args.quick
        else [(50, 1000, 500, 10), (50, 1000, 500, 100), (1000, 1000, 500, 5)]
    )
    for topics, retrieved, judged, runs in configurations:
        times = bench(topics, retrieved, judged, runs)
        fastest_peer = min(times["pytrec_eval"], times["ranx"])
        print(
            f"{topics} topics × {retrieved} retrieved × {runs} runs: "
            f"pytrec_eval/cranfield {times['pytrec_eval'] / times['cranfield']:.2f}, "
            f"ranx/cranfield {times['ranx'] / times['cranfield']:.2f}, "
            f"fastest peer/cranfield {fastest_peer / times['cranfield']:.2f} "
            f"(seconds: {', '.join(f'{k} {v:.2f}' for k, v in times.items())})"
        )


if __name__ == "__main__":
    main()
