"""The measurements behind annotation/crowd/minimums.py: how often Cranfield's intervals cover the true
value, and how often Williams' test finds a real difference, on small samples.

    .venv/bin/python benchmarks/small_samples.py            # 1,000 samples per size (a few minutes)
    .venv/bin/python benchmarks/small_samples.py --quick    # 100 per size, a smoke test

1. A mean over topics: per-topic scores from Beta(0.6, 1.2) (AP-like: skewed, mass near 0; true mean
   1/3). Coverage of the leaderboard's expanded percentile interval (``evaluation.metrics.intervals``,
   2,000 resamples here), of the plain percentile interval on the same resamples, and of Student's t,
   with the share of t intervals that leave [0, 1].
2. Cohen's kappa of two annotators over n items (binary labels, prevalence 0.3, each annotator right
   85 % of the time; true kappa 0.447): coverage of the agreement report's percentile bootstrap
   interval over items (``annotation.crowd.agreement.bootstrap``, 500 resamples here).
3. Williams' test over n systems (``evaluation.metrics.meta_evaluation.williams_test``), trivariate
   normal scores: its rejection rate at alpha = 0.05 when the two metrics correlate equally with the
   raters (0.5 each, 0.5 with each other: the level), and when one correlates 0.9 and the other 0.5
   (the power).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotation.crowd.agreement.bootstrap import bootstrap_agreement
from annotation.crowd.minimums import Minimum
from evaluation.metrics.intervals import IntervalMethod, mean_intervals, resampled_means
from evaluation.metrics.meta_evaluation import williams_test

# No minimum here: the point is to see what happens below them.
NO_MINIMUM = Minimum(2, "units", "an interval")


def mean_coverage(sizes: list[int], samples: int, rng: np.random.Generator) -> None:
    from scipy import stats

    a, b = 0.6, 1.2
    truth = a / (a + b)
    method = IntervalMethod(resamples=2000, minimum=NO_MINIMUM)
    print("1. mean over n topics, Beta(0.6, 1.2) scores: coverage of the 95 % interval")
    print(f"{'topics':>7} {'expanded':>9} {'plain':>7} {'t':>7} {'t leaves [0, 1]':>16}")
    for n in sizes:
        expanded = plain = student = outside = 0
        for sample in range(samples):
            scores = rng.beta(a, b, n)
            found = mean_intervals([scores], IntervalMethod(**{**vars(method), "seed": sample}))[0]
            expanded += found.low <= truth <= found.high
            low, high = np.quantile(
                resampled_means(scores[None], method.resamples, sample)[:, 0], [0.025, 0.975]
            )
            plain += low <= truth <= high
            t_low, t_high = stats.t.interval(0.95, n - 1, loc=scores.mean(), scale=stats.sem(scores))
            student += t_low <= truth <= t_high
            outside += t_low < 0 or t_high > 1
        shares = [count / samples for count in (expanded, plain, student, outside)]
        print(f"{n:>7} {shares[0]:>9.3f} {shares[1]:>7.3f} {shares[2]:>7.3f} {shares[3]:>16.3f}")


def kappa_coverage(sizes: list[int], samples: int, rng: np.random.Generator) -> None:
    prevalence, right = 0.3, 0.85
    yes = prevalence * right + (1 - prevalence) * (1 - right)
    both_yes = prevalence * right**2 + (1 - prevalence) * (1 - right) ** 2
    both_no = prevalence * (1 - right) ** 2 + (1 - prevalence) * right**2
    chance = yes**2 + (1 - yes) ** 2
    truth = (both_yes + both_no - chance) / (1 - chance)
    print(f"\n2. Cohen's kappa of two annotators over n items (true kappa {truth:.3f}):", end=" ")
    print("coverage of the 95 % interval")
    print(f"{'items':>7} {'coverage':>9} {'no interval':>12}")
    for n in sizes:
        covered = undefined = 0
        for sample in range(samples):
            relevant = rng.random(n) < prevalence
            labels = [np.where(rng.random(n) < right, relevant, ~relevant).astype(int) for _ in range(2)]
            triples = [(item, who, int(labels[who][item])) for item in range(n) for who in (0, 1)]
            found = bootstrap_agreement(triples, resamples=500, seed=sample, statistics=("cohen_kappa_mean",))
            interval = found["cohen_kappa_mean"]
            if interval.low is None:
                undefined += 1
            else:
                covered += interval.low <= truth <= interval.high
        print(f"{n:>7} {covered / samples:>9.3f} {undefined / samples:>12.3f}")


def williams_rates(sizes: list[int], samples: int, rng: np.random.Generator) -> None:
    print("\n3. Williams' test over n systems at alpha = 0.05: rejection rate")
    print(f"{'systems':>7} {'level (0.5 vs 0.5)':>19} {'power (0.9 vs 0.5)':>19}")
    cases = {"level": (0.5, 0.5, 0.5), "power": (0.9, 0.5, 0.5)}
    for n in sizes:
        rates = {}
        for name, (r12, r13, r23) in cases.items():
            factor = np.linalg.cholesky(np.array([[1, r12, r13], [r12, 1, r23], [r13, r23, 1]]))
            rejected = 0
            for _ in range(samples):
                r = np.corrcoef((rng.standard_normal((n, 3)) @ factor.T).T)
                rejected += williams_test(r[0, 1], r[0, 2], r[1, 2], n).p_value < 0.05
            rates[name] = rejected / samples
        print(f"{n:>7} {rates['level']:>19.3f} {rates['power']:>19.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 samples per size, a smoke test")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    samples = 100 if args.quick else 1000
    rng = np.random.default_rng(args.seed)
    print(f"cores: {os.cpu_count()}; samples per size: {samples}; seed {args.seed}\n")
    mean_coverage([3, 5, 8, 10, 15, 25], samples, rng)
    kappa_coverage([5, 10, 20, 30, 50], samples // 2 if args.quick else samples, rng)
    williams_rates([4, 5, 6, 8, 10, 15], samples * 3, rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
