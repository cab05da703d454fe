"""Aggregate and measure agreement on 1,000,000 simulated judgements, against crowd-kit and statsmodels.

    .venv/bin/python benchmarks/bench_crowd.py           # 100,000 items × 10 assessors (pool 1,000), 5 labels
    .venv/bin/python benchmarks/bench_crowd.py --quick   # 2,000 items

Assessors have accuracies drawn from U(0.3, 0.95) and otherwise answer uniformly at random; the
true labels are known, so accuracy is reported next to time. Every method starts from the same
in-memory list of (item, worker, label) triples, so crowd-kit's time includes building its
DataFrame and ours includes encoding the triples. Times and memory peaks (tracemalloc, a separate
pass) are compared in the same process and run; ratios are what to read.
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd
from crowdkit.aggregation import DawidSkene, MajorityVote
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from annotation.crowd.aggregation import dawid_skene, majority_vote
from annotation.crowd.agreement import fleiss_kappa, krippendorff_alpha


def simulate(n_items: int, per_item: int, pool: int, classes: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, n_items)
    skill = rng.uniform(0.3, 0.95, pool)
    workers = np.stack([rng.choice(pool, per_item, replace=False) for _ in range(n_items)])
    correct = rng.random((n_items, per_item)) < skill[workers]
    noise = rng.integers(0, classes, (n_items, per_item))
    answers = np.where(correct, truth[:, None], noise)
    items = np.repeat(np.arange(n_items), per_item)
    triples = list(zip(items.tolist(), workers.ravel().tolist(), answers.ravel().tolist(), strict=True))
    return triples, dict(enumerate(truth.tolist())), answers


def timed(function):
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def peak_megabytes(function) -> float:
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def accuracy(labels, truth) -> float:
    return sum(labels[item] == truth[item] for item in truth) / len(truth)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    n_items = 2_000 if args.quick else 100_000
    triples, truth, answers = simulate(n_items, 10, 1_000, 5)
    def frame():
        return pd.DataFrame(triples, columns=["task", "worker", "label"])

    print(f"cores: {os.cpu_count()}; {len(triples):,} judgements, {n_items:,} items, 5 labels")

    ours_ds, t_ours_ds = timed(lambda: dawid_skene(triples))
    kit_ds, t_kit_ds = timed(lambda: DawidSkene(n_iter=100).fit_predict(frame()).to_dict())
    ours_mv, t_ours_mv = timed(lambda: majority_vote(triples))
    kit_mv, t_kit_mv = timed(lambda: MajorityVote().fit_predict(frame()).to_dict())
    ours_fleiss, t_ours_fleiss = timed(lambda: fleiss_kappa(triples))
    sm_fleiss, t_sm_fleiss = timed(lambda: statsmodels_fleiss(aggregate_raters(answers)[0]))
    alpha, t_alpha = timed(lambda: krippendorff_alpha(triples))

    print(f"Dawid-Skene: crowd-kit time / ours {t_kit_ds / t_ours_ds:.1f}; accuracy ours "
          f"{accuracy(ours_ds.labels, truth):.4f} ({ours_ds.parameters['iterations']} iterations), "
          f"crowd-kit {accuracy(kit_ds, truth):.4f}")  # fmt: skip
    print(f"majority vote: crowd-kit time / ours {t_kit_mv / t_ours_mv:.1f}; accuracy ours "
          f"{accuracy(ours_mv.labels, truth):.4f}, crowd-kit {accuracy(kit_mv, truth):.4f}")  # fmt: skip
    print(
        f"Fleiss' kappa: ours {ours_fleiss.value:.6f} vs statsmodels {sm_fleiss:.6f}; "
        f"time ours (from triples) / statsmodels (from a ready table) {t_ours_fleiss / t_sm_fleiss:.1f}"
    )
    print(f"Krippendorff's alpha (nominal) {alpha.value:.6f} in {t_alpha:.1f} s")
    print(f"seconds: ours DS {t_ours_ds:.1f}, crowd-kit DS {t_kit_ds:.1f}, ours MV {t_ours_mv:.1f}, "
          f"crowd-kit MV {t_kit_mv:.1f}")  # fmt: skip
    ours_peak = peak_megabytes(lambda: dawid_skene(triples))
    kit_peak = peak_megabytes(lambda: DawidSkene(n_iter=100).fit_predict(frame()))
    print(f"peak memory (tracemalloc) of Dawid-Skene: ours {ours_peak:.0f} MiB, crowd-kit {kit_peak:.0f} MiB")


if __name__ == "__main__":
    main()
