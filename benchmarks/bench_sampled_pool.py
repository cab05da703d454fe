"""Sampled pools on Cranfield (issue 25, item 3): how far the inferred MAP (xinfAP, as sample_eval.pl;
statAP, as statAP_MQ_eval_v3.pl) and the systems' ranking are from full judgement when 10 %, 20 % or
30 % of the pool is judged, over 100 samples each.

Ten BM25 systems (three fields × three settings, and one weak one) each retrieve 100 documents per
topic; their depth-100 pool is sampled in two strata by best rank, ranks 1–10 and 11–100, the top at
the rate that spends at most two thirds of the share's judgements on it and the rest at the rate that
makes the share judged over the whole pool the target (``evaluation.metrics.trec.sampling_simulation``,
which the app's sampling simulation runs too). A sampled document takes its label in Cranfield's official
qrels (1,837 judgements over 225 topics; one they do not list is not relevant, as trec_eval counts it).

The truth is the pool judged in full: each system's MAP (trec_eval's AP) with the official labels of
the pooled documents, which is what the inferred measures estimate. (The official qrels also list
relevant documents no system ranked in its top 100; the MAP with them is printed too, lower: that gap
is the pool's, not the sample's.) statAP is averaged over every topic, one without a sampled relevant
document counting 0, as the truth and sample_eval.pl average (statAP_MQ_eval_v3.pl's statMAP leaves
those topics out, which alone lifts it by 225/217 here at full judgement).

Per sample: the mean signed error (bias) of the systems' inferred MAP, the mean absolute and
root-mean-square error over systems, and Kendall's τ between the two rankings of the systems (SciPy).
Each row is the mean (and the worst τ) over the samples; the last column the seconds per sample (draw
the sample, score ten runs both ways).

    .venv/bin/python benchmarks/bench_sampled_pool.py               # 100 samples per share
    .venv/bin/python benchmarks/bench_sampled_pool.py --quick       # 3 samples per share

Needs the Cranfield files (tests/data/README.md: ``cranfield``). Prints a Markdown table for
BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))  # the data-set lookup lives with the tests
from tests.conftest import locate_data_set  # noqa: E402

SHARES = (0.1, 0.2, 0.3)
DEPTH = 100


def systems(folder: Path) -> dict:
    from evaluation.demo.build_demo import bm25_run, parse_smart

    docs = parse_smart((folder / "cran.all.1400").read_text())
    queries = {str(i): q["W"] for i, q in enumerate(parse_smart((folder / "cran.qry").read_text()), 1)}
    fields = {
        "full": lambda d: d.get("T", "") + " " + d.get("W", ""),
        "abstract": lambda d: d.get("W", ""),
        "title": lambda d: d.get("T", ""),
    }
    settings = {"": (1.2, 0.75), "-flat": (0.5, 0.3), "-steep": (2.0, 1.0)}
    runs = {
        f"{field}{suffix}": bm25_run(queries, docs, fields[field], k1=k1, b=b, depth=DEPTH)
        for field in fields
        for suffix, (k1, b) in settings.items()
    }
    runs["title-penalised"] = bm25_run(queries, docs, fields["title"], k1=3.0, b=1.0, depth=DEPTH)
    return runs


def official_qrels(folder: Path) -> dict[str, dict[str, int]]:
    """Cranfield's qrels, relevant (codes 1–4) as 1, judged non-relevant (-1) as 0."""
    qrels: dict[str, dict[str, int]] = {}
    for line in (folder / "cranqrel").read_text().splitlines():
        if line.strip():
            qid, docno, code = line.split()
            qrels.setdefault(qid, {})[docno] = int(int(code) > 0)
    return qrels


def full_map(run: dict, qrels: dict) -> float:
    """trec_eval's MAP over the qrels' topics (a topic the run lacks scores 0, as ``-c``)."""
    from evaluation.metrics.trec.files import trec_order

    total = 0.0
    for topic, judged in qrels.items():
        relevant = sum(1 for rel in judged.values() if rel > 0)
        found = precision_sum = 0.0
        for rank, docno in enumerate(trec_order(run.get(topic, {})), start=1):
            if judged.get(docno, 0) > 0:
                found += 1
                precision_sum += found / rank
        total += precision_sum / relevant if relevant else 0.0
    return total / len(qrels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="3 samples per share")
    args = parser.parse_args()
    if args.quick:
        args.samples = 3
    folder = locate_data_set("cranfield")
    if folder is None:
        sys.exit("the Cranfield files are missing: see tests/data/README.md (cranfield)")

    from evaluation.metrics.trec.sampling_simulation import simulate

    started = time.perf_counter()
    runs = systems(folder)
    qrels = official_qrels(folder)
    official = {name: full_map(run, qrels) for name, run in runs.items()}
    built = time.perf_counter() - started
    print(
        f"systems: {len(runs)}, built in {built:.1f} s; official judgements: {sum(map(len, qrels.values()))}"
    )
    clock = time.perf_counter()
    result = simulate(runs, qrels, shares=SHARES, samples=args.samples, depth=DEPTH)
    per_sample = (time.perf_counter() - clock) / (args.samples * len(SHARES))
    print(f"pool {result.pool_size} documents, {result.top_size} in ranks 1-10")
    print("MAP, the pool judged: " + ", ".join(f"{n} {v:.4f}" for n, v in sorted(result.truth.items())))
    print("MAP, official qrels:  " + ", ".join(f"{n} {v:.4f}" for n, v in sorted(official.items())))
    print(f"\n{args.samples} samples per share; Cranfield, {len(runs)} BM25 systems, depth-100 pool\n")
    print("| judged | strata | xinfAP MAP: bias | mean abs. error | RMSE | τ mean (worst) | statAP MAP: bias"
          " | mean abs. error | τ mean (worst) | s per sample |")  # fmt: skip
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for outcome in result.shares:
        f = outcome.summary()
        print(
            f"| {f['judged']:.1%} | {outcome.design()} | {f['bias']:+.4f} | {f['mae']:.4f} | "
            f"{f['rmse']:.4f} | "
            f"{f['tau']:.3f} ({f['tau_worst']:.3f}) | {f['stat_bias']:+.4f} | {f['stat_mae']:.4f} | "
            f"{f['stat_tau']:.3f} ({f['stat_tau_worst']:.3f}) | {per_sample:.2f} |"
        )


if __name__ == "__main__":
    main()
