"""Sampled pools on Cranfield (issue 25, item 3): how far the inferred MAP (xinfAP, as sample_eval.pl;
statAP, as statAP_MQ_eval_v3.pl) and the systems' ranking are from full judgement when 10 %, 20 % or
30 % of the pool is judged, over 100 samples each.

Ten BM25 systems (three fields × three settings, and one weak one) each retrieve 100 documents per
topic; their depth-100 pool is sampled in two strata by best rank, ranks 1–10 and 11–100, the top at
rate ``TOP_RATE`` and the rest at the rate that makes the share judged over the whole pool the target
(``evaluation.metrics.trec.sampling``). A sampled document takes its label in Cranfield's official
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
import math
import statistics
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))  # the data-set lookup lives with the tests
from tests.conftest import locate_data_set  # noqa: E402

SHARES = (0.1, 0.2, 0.3)
TOP_RATE = {0.1: 0.5, 0.2: 1.0, 0.3: 1.0}
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


def strata_for(share: float, pool_sizes: tuple[int, int]):
    """Two strata judging ``share`` of the whole pool: the top ten at TOP_RATE[share], the rest at the
    rate that brings the total to the share."""
    from evaluation.metrics.trec.sampling import Stratum

    top, rest = pool_sizes
    rate = (share * (top + rest) - TOP_RATE[share] * top) / rest
    return (Stratum(1, 10, TOP_RATE[share]), Stratum(11, DEPTH, rate))


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

    from scipy.stats import kendalltau

    from evaluation.metrics.trec.inferred import sample_eval
    from evaluation.metrics.trec.pooling import depth_k_pool
    from evaluation.metrics.trec.sample_files import SampleJudgement
    from evaluation.metrics.trec.sampling import stratified_sample
    from evaluation.metrics.trec.stat_ap import inclusion_probabilities, stat_ap

    started = time.perf_counter()
    runs = systems(folder)
    qrels = official_qrels(folder)
    official = {name: full_map(run, qrels) for name, run in runs.items()}
    pool = depth_k_pool(runs.values(), DEPTH)
    pool_qrels = {t: {d: qrels.get(t, {}).get(d, 0) for d in pool.get(t, {})} for t in qrels}
    truth = {name: full_map(run, pool_qrels) for name, run in runs.items()}
    sizes = (
        sum(rank <= 10 for topic in pool.values() for rank in topic.values()),
        sum(rank > 10 for topic in pool.values() for rank in topic.values()),
    )
    built = time.perf_counter() - started
    judgements = sum(len(t) for t in qrels.values())
    print(
        f"systems: {len(runs)}, built in {built:.1f} s; pool {sum(sizes)} documents, {sizes[0]} in ranks 1-10"
    )
    print(f"official judgements: {judgements}")
    print("MAP, the pool judged: " + ", ".join(f"{n} {v:.4f}" for n, v in sorted(truth.items())))
    print("MAP, official qrels:  " + ", ".join(f"{n} {v:.4f}" for n, v in sorted(official.items())))
    names = sorted(runs)
    rows = []
    for share in SHARES:
        strata = strata_for(share, sizes)
        keys = ("judged", "bias", "mae", "rmse", "tau", "s_bias", "s_mae", "s_tau")
        figures: dict[str, list[float]] = {key: [] for key in keys}
        seconds = []
        for seed in range(args.samples):
            clock = time.perf_counter()
            members = stratified_sample(runs.values(), strata, seed)
            sample = {}
            for m in members:
                rel = qrels.get(m.topic, {}).get(m.docno, 0) if m.sampled else -1
                sample.setdefault(m.topic, {})[m.docno] = SampleJudgement(m.stratum, rel)
            probabilities = inclusion_probabilities(sample)
            inferred = {name: sample_eval(sample, runs[name]).infAP for name in names}
            # Over every topic (the module's docstring says why).
            statistical = {
                name: sum(v.stat_ap for v in stat_ap(probabilities, runs[name]).topics.values()) / len(sample)
                for name in names
            }
            seconds.append(time.perf_counter() - clock)
            errors = [inferred[n] - truth[n] for n in names]
            stat_errors = [statistical[n] - truth[n] for n in names]
            figures["judged"].append(sum(m.sampled for m in members) / len(members))
            figures["bias"].append(statistics.fmean(errors))
            figures["s_bias"].append(statistics.fmean(stat_errors))
            figures["mae"].append(statistics.fmean(map(abs, errors)))
            figures["rmse"].append(math.sqrt(statistics.fmean(e * e for e in errors)))
            figures["tau"].append(
                kendalltau([truth[n] for n in names], [inferred[n] for n in names]).statistic
            )
            figures["s_mae"].append(statistics.fmean(map(abs, stat_errors)))
            figures["s_tau"].append(
                kendalltau([truth[n] for n in names], [statistical[n] for n in names]).statistic
            )
        rows.append((share, strata, figures, statistics.fmean(seconds)))
    print(f"\n{args.samples} samples per share; Cranfield, {len(runs)} BM25 systems, depth-100 pool\n")
    print("| judged | strata | xinfAP MAP: bias | mean abs. error | RMSE | τ mean (worst) | statAP MAP: bias"
          " | mean abs. error | τ mean (worst) | s per sample |")  # fmt: skip
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for _, strata, f, seconds in rows:
        design = ",".join(f"{s.first}-{s.last}:{s.rate:.3f}" for s in strata)
        print(
            f"| {statistics.fmean(f['judged']):.1%} | {design} | {statistics.fmean(f['bias']):+.4f} | "
            f"{statistics.fmean(f['mae']):.4f} | "
            f"{statistics.fmean(f['rmse']):.4f} | {statistics.fmean(f['tau']):.3f} ({min(f['tau']):.3f}) | "
            f"{statistics.fmean(f['s_bias']):+.4f} | {statistics.fmean(f['s_mae']):.4f} | "
            f"{statistics.fmean(f['s_tau']):.3f} ({min(f['s_tau']):.3f}) | "
            f"{seconds:.2f} |"
        )


if __name__ == "__main__":
    main()
