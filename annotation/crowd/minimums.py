"""The smallest samples Cranfield draws a figure, an interval or a verdict from, in one place.

Below its minimum a figure is not shown: pages, API and the command line give the reason instead
(``Minimum.reason``), in the same words. Every minimum here says why it is where it is; the
figures quoted were measured by simulation (1,000 to 4,000 generated samples each) unless a
formula is given; ``benchmarks/small_samples.py`` measures them again.

This module lives in ``annotation.crowd``, the pure package every other one may import
(``annotation`` may not import ``evaluation``), so that agreement, leaderboards, system ratings,
meta-evaluation and the CLI read the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Minimum:
    """At least ``count`` ``unit`` (a plural noun: "topics") for ``purpose`` ("an interval")."""

    count: int
    unit: str
    purpose: str

    def met(self, n: int) -> bool:
        return n >= self.count

    def reason(self, n: int, unit: str | None = None) -> str | None:
        """None when ``n`` is enough; otherwise why nothing is shown, e.g. "too few topics for an
        interval (3; needs at least 10)". ``unit`` names the counted things when they vary (a
        correlation's points are systems, inputs or outputs by level)."""
        if self.met(n):
            return None
        return f"too few {unit or self.unit} for {self.purpose} ({n}; needs at least {self.count})"

    def as_dict(self) -> dict:
        return {"count": self.count, "unit": self.unit, "purpose": self.purpose}


# --- means over topics or inputs (leaderboards, system ratings) ---------------------------------

# A bootstrap interval of a mean over topics. The expanded percentile interval
# (``evaluation.metrics.intervals``) of per-topic scores drawn from Beta(0.6, 1.2) (AP-like: skewed,
# mass near 0) covered the true mean 73 % of the time at 3 topics, 90 % at 5, 94 % at 8, 95 % at 10
# and 95-96 % from there on (nominal 95 %); the plain percentile interval covered 73 %, 83 % and 90 %
# at 3, 5 and 10 topics, and Student's t, which covered better, left [0, 1] on 92 % of 3-topic samples.
TOPICS_FOR_INTERVAL = Minimum(10, "topics", "an interval")

# A paired significance test between two runs. On 5 topics the randomisation and Wilcoxon tests
# cannot reach p = 0.05 at all (their smallest two-sided p is 2/2^5 = 0.0625), so "not
# significant" would be a foregone verdict; the studentised bootstrap test holds its level only
# from about 10 topics (tests/metrics/test_significance.py's null simulation); and at 10 topics
# the exact tests can reach 2/1024, small enough to survive Holm's correction over a few pairs.
TOPICS_FOR_TEST = Minimum(10, "topics", "a significance test")

# A bootstrap interval of a system's mean rating over inputs: the same mean-over-units case as
# topics, so the same minimum.
INPUTS_FOR_INTERVAL = Minimum(TOPICS_FOR_INTERVAL.count, "inputs", "an interval")

# --- correlations and rankings of systems ------------------------------------------------------

# A correlation (Pearson, Spearman, Kendall) or a ranking-stability figure (Kendall's tau,
# tau_AP): on 4 points Kendall's tau takes only 7 values and even perfect agreement (tau = 1) has
# an exact two-sided p of 2/4! = 0.083, so no agreement between two rankings of 4 systems can be
# told from chance; on 5 points tau = 1 has p = 2/5! = 0.017.
POINTS_FOR_CORRELATION = Minimum(5, "systems", "a correlation")

# The share of system pairs a metric orders as the raters do: on 4 systems it is a share of 6
# pairs, and chance alone orders all 6 alike with probability 1/24 (the tau = 1 case above).
SYSTEMS_FOR_ACCURACY = Minimum(POINTS_FOR_CORRELATION.count, "systems", "a ranking accuracy")

# Williams' test of two metrics' correlations with the raters over n systems has n − 3 degrees of
# freedom. It holds its level at any n from 4 (3.0-5.6 % rejections at alpha = 0.05), but finds
# little below 8: a metric correlating 0.9 with the raters against one correlating 0.5 (the metrics
# 0.5 with each other) was found better 6 % of the time with 4 systems, 22 % with 5, 35 % with 6 and
# 55 % with 8, so "not significant" on fewer says nothing about the metrics.
SYSTEMS_FOR_WILLIAMS = Minimum(8, "systems", "Williams' test")

# --- agreement between annotators ---------------------------------------------------------------

# A Cohen's kappa: of two annotators (the items they share) or of the crowd against a reference
# (a topic's documents both judged). With n items one label changed moves the observed agreement
# by 1/n and kappa by about 1/(n (1 − p_e)): 0.2 or more at n = 10 with balanced labels, 0.4 at
# n = 5; and on 5 items two annotators' kappa was undefined in 4 % of samples.
ITEMS_FOR_KAPPA = Minimum(10, "shared items", "a kappa")

# A percentile bootstrap interval over items for a kappa or alpha. Two annotators with binary
# labels (prevalence 0.3, each right 85 % of the time, kappa 0.45): the 95 % interval covered the
# true kappa 49 % of the time on 5 items, 87 % on 10, 93 % on 20, 30 and 50 (in a second run with
# other seeds: 88 %, 92 %, 93 % and 95 % on 10, 20, 30 and 50); 30 is where both runs agree it has
# reached its large-sample coverage.
ITEMS_FOR_AGREEMENT_INTERVAL = Minimum(30, "items", "an interval")

# A percentile bootstrap interval of a system's Bradley-Terry strength, resampling the
# comparisons: each system needs as many comparisons of its own as a mean needs topics.
COMPARISONS_FOR_INTERVAL = Minimum(TOPICS_FOR_INTERVAL.count, "comparisons", "an interval")
