"""How far an automatic metric agrees with human judgement (pure; no Django).

Scores come as ``(system, input, value)`` records — one output of one system for one input (a
document, a dialogue, a source sentence) — one set from a metric, one from a human dimension.

- **Correlation at the field's three levels** (Peyrard 2019; Bhandari et al. 2020; the WMT metrics
  tasks): *summary level* — per input, over the systems' outputs for it, then averaged; *system
  level* — over the systems' mean scores; *global* — over every output. Pearson, Spearman and
  Kendall (τ-b) as SciPy computes them, with percentile bootstrap intervals over inputs.
- **Williams' test** (Williams 1959; Graham & Baldwin 2014, eq. 2) for whether one metric
  correlates with the humans better than another, allowing for the two metrics' own correlation.
- **Pairwise system-ranking accuracy** (Mathur et al. 2020; Kocmi et al. 2021): the share of system
  pairs a metric orders as the humans do.

Below the minimums of ``annotation.crowd.minimums`` (points for a correlation, inputs for an
interval, systems for Williams' test and for an accuracy) a figure is not given, and the reason is.

Every system-level figure (the correlation, pairwise accuracy, Williams' test) compares system means
over the same outputs: those that both sides score (``paired_system_means``; for Williams' test, the
humans and every metric: ``shared_outputs``), so an output without a rating or a score never counts on
one side only. Means keep ties as ties (``mean``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from annotation.crowd.minimums import (
    INPUTS_FOR_INTERVAL,
    POINTS_FOR_CORRELATION,
    SYSTEMS_FOR_ACCURACY,
    SYSTEMS_FOR_WILLIAMS,
    Minimum,
)
from evaluation.metrics.intervals import expanded_probabilities

Record = tuple[str, str, float]  # (system, input, value)
METHODS = ("pearson", "spearman", "kendall")
LEVELS = ("summary", "system", "global")

# Equal means must tie in ranks, Kendall's tau and pairwise accuracy, but summed in another order (or
# from ratings averaged over three raters, thirds no float holds exactly) they differ in the last bits:
# 3.1 against 3.1000000000000005. A mean is therefore kept to 12 significant digits, far below any
# difference a metric or a rater makes and far above float rounding.
MEAN_DIGITS = 12


def tied(value: float) -> float:
    """``value`` to MEAN_DIGITS significant digits: equal means computed apart compare equal."""
    return float(f"{value:.{MEAN_DIGITS}g}")


def tied_array(values: np.ndarray) -> np.ndarray:
    """``tied`` of every element."""
    return np.char.mod(f"%.{MEAN_DIGITS}g", values).astype(float) if values.size else values


def mean(values: Sequence[float]) -> float:
    """The mean of ``values``, summed exactly (``math.fsum``: the same whatever the order) and ``tied``."""
    return tied(math.fsum(values) / len(values))


def correlation(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, method: str = "pearson"
) -> float:
    """SciPy's Pearson r, Spearman ρ or Kendall τ-b; NaN when either side is constant."""
    from scipy import stats

    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    if len(x) != len(y) or len(x) < 2:
        raise ValueError("a correlation needs two paired sequences of at least two values")
    if np.ptp(np.asarray(x, dtype=float)) == 0 or np.ptp(np.asarray(y, dtype=float)) == 0:
        return math.nan
    function = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[method]
    return float(function(x, y).statistic)


def paired(metric: Iterable[Record], human: Iterable[Record]) -> dict[tuple[str, str], tuple[float, float]]:
    """``{(system, input): (metric value, human value)}`` for the outputs both score; a repeated
    (system, input) is an error (average the annotators' ratings first)."""
    table: dict[tuple[str, str], list[float | None]] = {}
    for position, records in enumerate((metric, human)):
        for system, item, value in records:
            row = table.setdefault((system, item), [None, None])
            if row[position] is not None:
                side = ("metric", "human")[position]
                raise ValueError(f"{side} scores give system {system!r} on input {item!r} twice")
            row[position] = float(value)
    return {key: (m, h) for key, (m, h) in table.items() if m is not None and h is not None}


def level_correlation(pairs: dict[tuple[str, str], tuple[float, float]], level: str, method: str) -> float:
    """The correlation of metric and human scores at one level (see the module docstring)."""
    if level == "global":
        flat = list(pairs.values())
        return correlation([m for m, _ in flat], [h for _, h in flat], method)
    if level == "system":
        metric_means, human_means = _means_of_pairs(pairs)
        systems = sorted(metric_means)
        return correlation([metric_means[s] for s in systems], [human_means[s] for s in systems], method)
    if level == "summary":
        by_input: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for (_, item), scores in pairs.items():
            by_input[item].append(scores)
        per_input = per_group_correlations(list(by_input.values()), method)
        defined = per_input[~np.isnan(per_input)]
        return float(np.mean(defined)) if len(defined) else math.nan
    raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")


def _means_of_pairs(
    pairs: dict[tuple[str, str], tuple[float, float]],
) -> tuple[dict[str, float], dict[str, float]]:
    by_system: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for (system, _), (m, h) in pairs.items():
        by_system[system][0].append(m)
        by_system[system][1].append(h)
    return (
        {system: mean(m) for system, (m, _) in by_system.items()},
        {system: mean(h) for system, (_, h) in by_system.items()},
    )


def paired_system_means(
    metric: Iterable[Record], human: Iterable[Record]
) -> tuple[dict[str, float], dict[str, float]]:
    """Each system's metric and human means over the outputs both score (``paired``): what the
    system-level correlation, pairwise accuracy and the system-level scatter compare."""
    return _means_of_pairs(paired(metric, human))


def shared_outputs(
    human: Iterable[Record], metrics: Mapping[str, Iterable[Record]]
) -> tuple[list[Record], dict[str, list[Record]]]:
    """The humans' and each metric's records of the outputs that the humans and every metric score:
    Williams' test compares metrics on the same outputs."""
    human_rows = list(human)
    metric_rows = {name: list(rows) for name, rows in metrics.items()}
    shared = {(system, item) for system, item, _ in human_rows}
    for rows in metric_rows.values():
        shared &= {(system, item) for system, item, _ in rows}
    return (
        [row for row in human_rows if row[:2] in shared],
        {name: [row for row in rows if row[:2] in shared] for name, rows in metric_rows.items()},
    )


def one_sided(metric: Iterable[Record], human: Iterable[Record]) -> dict[str, int]:
    """What one side scores and the other does not, left out of every figure: outputs and systems
    with a metric score but no rating, and with a rating but no metric score."""
    metric_keys = {(system, item) for system, item, _ in metric}
    human_keys = {(system, item) for system, item, _ in human}
    metric_systems, human_systems = {s for s, _ in metric_keys}, {s for s, _ in human_keys}
    return {
        "outputs_without_rating": len(metric_keys - human_keys),
        "outputs_without_score": len(human_keys - metric_keys),
        "systems_without_rating": len(metric_systems - human_systems),
        "systems_without_score": len(human_systems - metric_systems),
    }


def per_group_correlations(groups: Sequence[Sequence[tuple[float, float]]], method: str) -> np.ndarray:
    """``correlation`` of each group's (metric, human) pairs, NaN for a group of fewer than two or
    with a constant side; equal to SciPy's per group, computed for all groups of one size at once
    (a summary-level correlation is a thousand small ones: one SciPy call each took most of the
    meta-evaluation's time)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    out = np.full(len(groups), np.nan)
    by_size: dict[int, list[int]] = defaultdict(list)
    for index, group in enumerate(groups):
        if len(group) >= 2:
            by_size[len(group)].append(index)
    for indices in by_size.values():
        table = np.array([groups[i] for i in indices], dtype=float)  # groups × outputs × (metric, human)
        out[indices] = _row_correlations(table[:, :, 0], table[:, :, 1], method)
    return out


def _row_correlations(x: np.ndarray, y: np.ndarray, method: str) -> np.ndarray:
    """Pearson, Spearman (Pearson of average ranks) or Kendall's tau-b of each row pair; NaN where a
    row is constant."""
    from scipy.stats import rankdata

    constant = (np.ptp(x, axis=1) == 0) | (np.ptp(y, axis=1) == 0)
    if method == "kendall":
        upper = np.triu_indices(x.shape[1], k=1)
        dx = np.sign(x[:, :, None] - x[:, None, :])[:, upper[0], upper[1]]
        dy = np.sign(y[:, :, None] - y[:, None, :])[:, upper[0], upper[1]]
        pairs = len(upper[0])
        # tau-b: (concordant - discordant) / sqrt((pairs - ties in x) (pairs - ties in y)), as SciPy.
        with np.errstate(invalid="ignore", divide="ignore"):
            values = (dx * dy).sum(axis=1) / np.sqrt(
                (pairs - (dx == 0).sum(axis=1)) * (pairs - (dy == 0).sum(axis=1))
            )
    else:
        if method == "spearman":
            x, y = rankdata(x, axis=1), rankdata(y, axis=1)
        xc, yc = x - x.mean(axis=1, keepdims=True), y - y.mean(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            values = (xc * yc).sum(axis=1) / np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    values = np.clip(values, -1.0, 1.0)
    values[constant] = np.nan
    return values


@dataclass(frozen=True)
class Correlation:
    level: str
    method: str
    value: float  # NaN when undefined (a constant side) or below the minimum (``reason``)
    low: float  # percentile bootstrap interval over inputs; NaN without one
    high: float
    n: int  # outputs (global), systems (system) or inputs (summary)
    reason: str | None = None  # why there is no value: too few points at this level
    interval_reason: str | None = None  # why a value has no interval: too few inputs to resample


# What a correlation's n counts at each level, as the reasons name it.
LEVEL_UNITS = {"global": "outputs", "system": "systems", "summary": "inputs"}


def correlations(
    metric: Iterable[Record],
    human: Iterable[Record],
    *,
    levels: Sequence[str] = LEVELS,
    methods: Sequence[str] = METHODS,
    resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    minimum: Minimum = POINTS_FOR_CORRELATION,
    interval_minimum: Minimum = INPUTS_FOR_INTERVAL,
) -> list[Correlation]:
    """Every level × method, each with a percentile bootstrap interval over inputs (the inputs are
    resampled with replacement and every output of a drawn input comes with it; ``resamples=0``
    leaves the interval NaN). A replicate is ``level_correlation`` of the resampled outputs, each
    drawn input's outputs counted as often as it was drawn; a replicate that is undefined (a
    constant side) is left out. Replicates are correlations, so the interval lies in [−1, 1].

    Below ``minimum`` points at its level (systems, inputs or outputs) a correlation has no value,
    and ``reason`` says why; below ``interval_minimum`` inputs a value has no interval, and
    ``interval_reason`` says why.

    The replicates are computed from each draw's input counts, not by building every resampled
    sample: a summary-level replicate is the count-weighted mean of the per-input correlations,
    which do not change with the draw; a system-level one correlates the count-weighted system
    means; a global one correlates the outputs repeated by their input's count."""
    pairs = paired(metric, human)
    table = _OutputTable(pairs)
    rng = np.random.default_rng(seed)
    draws = [rng.integers(0, len(table.inputs), len(table.inputs)) for _ in range(resamples)]
    counts = np.zeros((len(draws), len(table.inputs)))
    for row, draw in enumerate(draws):
        np.add.at(counts[row], draw, 1)
    tail = (1 - confidence) / 2 * 100
    results = []
    for level in levels:
        size = {"global": len(pairs), "system": len(table.systems), "summary": len(table.inputs)}[level]
        reason = minimum.reason(size, LEVEL_UNITS[level])
        for method in methods:
            if reason is not None:
                results.append(Correlation(level, method, math.nan, math.nan, math.nan, size, reason))
                continue
            value = level_correlation(pairs, level, method)
            interval_reason = interval_minimum.reason(len(table.inputs)) if resamples else None
            low = high = math.nan
            if interval_reason is None and resamples and not math.isnan(value):
                replicates = table.replicates(level, method, counts)
                replicates = np.clip(replicates[~np.isnan(replicates)], -1.0, 1.0)  # rounding only
                if len(replicates):
                    low, high = (
                        float(np.percentile(replicates, tail)),
                        float(np.percentile(replicates, 100 - tail)),
                    )
            results.append(Correlation(level, method, value, low, high, size, None, interval_reason))
    return results


class _OutputTable:
    """The paired scores as arrays by output, with each output's system and input index."""

    def __init__(self, pairs: dict[tuple[str, str], tuple[float, float]]) -> None:
        self.inputs = sorted({item for _, item in pairs})
        self.systems = sorted({system for system, _ in pairs})
        input_index = {item: i for i, item in enumerate(self.inputs)}
        system_index = {system: i for i, system in enumerate(self.systems)}
        self.input_of = np.array([input_index[item] for _, item in pairs], dtype=np.intp)
        self.system_of = np.array([system_index[system] for system, _ in pairs], dtype=np.intp)
        self.metric = np.array([m for m, _ in pairs.values()], dtype=float)
        self.human = np.array([h for _, h in pairs.values()], dtype=float)
        self.pairs = pairs

    def replicates(self, level: str, method: str, counts: np.ndarray) -> np.ndarray:
        """One replicate per row of ``counts`` (how often each input was drawn); NaN where undefined."""
        if level == "summary":
            return self._summary(method, counts)
        if level == "system":
            return self._system(method, counts)
        if level == "global":
            return np.array([self._global(method, row) for row in counts])
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")

    def _summary(self, method: str, counts: np.ndarray) -> np.ndarray:
        groups: list[list[tuple[float, float]]] = [[] for _ in self.inputs]
        for index, m, h in zip(self.input_of, self.metric, self.human, strict=True):
            groups[index].append((m, h))
        per_input = per_group_correlations(groups, method)
        defined = ~np.isnan(per_input)
        weights = counts[:, defined]
        with np.errstate(invalid="ignore", divide="ignore"):
            return (weights @ per_input[defined]) / weights.sum(axis=1)

    def _system(self, method: str, counts: np.ndarray) -> np.ndarray:
        shape = (len(self.systems), len(self.inputs))
        outputs, metric_sums, human_sums = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        cells = (self.system_of, self.input_of)
        np.add.at(outputs, cells, 1)
        np.add.at(metric_sums, cells, self.metric)
        np.add.at(human_sums, cells, self.human)
        drawn_outputs = counts @ outputs.T  # draws × systems
        drawn_metric, drawn_human = counts @ metric_sums.T, counts @ human_sums.T
        replicates = np.full(len(counts), np.nan)
        for row in range(len(counts)):
            present = drawn_outputs[row] > 0
            if present.sum() >= 2:
                n = drawn_outputs[row, present]
                metric_means = tied_array(drawn_metric[row, present] / n)
                human_means = tied_array(drawn_human[row, present] / n)
                replicates[row] = correlation(metric_means, human_means, method)
        return replicates

    def _global(self, method: str, row: np.ndarray) -> float:
        times = row[self.input_of].astype(np.intp)
        if times.sum() < 2:
            return math.nan
        return correlation(np.repeat(self.metric, times), np.repeat(self.human, times), method)


@dataclass(frozen=True)
class WilliamsReport:
    """Williams' tests of one metric against the others over ``systems`` systems, or none and the
    ``reason`` (too few systems)."""

    systems: int
    tests: list[dict]
    reason: str | None = None


@dataclass(frozen=True)
class WilliamsResult:
    t: float
    p_value: float  # one-sided: the first metric correlates with the humans more than the second
    degrees_of_freedom: int


def williams_test(r12: float, r13: float, r23: float, n: int) -> WilliamsResult:
    """Williams' test of r12 > r13, where 1 is the human score and 2, 3 are two metrics, all three
    correlations on the same ``n`` items (Graham & Baldwin 2014, eq. 2):

    t = (r12 − r13) √((n−1)(1+r23)) / √(2 (n−1)/(n−3) |R| + ((r12+r13)/2)² (1−r23)³),
    |R| = 1 − r12² − r13² − r23² + 2 r12 r13 r23, with n − 3 degrees of freedom.
    """
    from scipy import stats

    if n <= 3:
        raise ValueError("Williams' test needs more than three items")
    determinant = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    numerator = (r12 - r13) * math.sqrt((n - 1) * (1 + r23))
    denominator = math.sqrt(
        max(2 * (n - 1) / (n - 3) * determinant + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3, 0.0)
    )
    if denominator == 0:  # the two metrics are one (r23 = 1, so r12 = r13): no difference to test
        return WilliamsResult(0.0, 0.5, n - 3)
    t = numerator / denominator
    return WilliamsResult(t, float(stats.t.sf(t, n - 3)), n - 3)


def williams_tests(
    first: str,
    metric_means: Mapping[str, Mapping[str, float]],
    human_means: Mapping[str, float],
    minimum: Minimum = SYSTEMS_FOR_WILLIAMS,
) -> WilliamsReport:
    """Williams' test of metric ``first`` against each other metric of ``metric_means`` ({metric:
    {system: mean}}): does ``first`` correlate with the humans better, by Pearson's r over the
    systems every metric and the humans share (the system level, as the WMT metrics tasks test)?
    Each test is ``{"first", "second", "t", "p_value" (one-sided), "degrees_of_freedom"}``; none,
    with the reason, below ``minimum`` systems (``minimums.SYSTEMS_FOR_WILLIAMS`` says why)."""
    systems = sorted(set(human_means).intersection(*(set(m) for m in metric_means.values())))
    reason = minimum.reason(len(systems))
    if reason is not None or len(systems) <= 3:  # the test is undefined on three
        return WilliamsReport(len(systems), [], reason)

    def r(a: Mapping[str, float], b: Mapping[str, float]) -> float:
        return correlation([a[s] for s in systems], [b[s] for s in systems], "pearson")

    tests = []
    for other in metric_means:
        if other == first:
            continue
        result = williams_test(
            r(human_means, metric_means[first]),
            r(human_means, metric_means[other]),
            r(metric_means[first], metric_means[other]),
            len(systems),
        )
        tests.append({"first": first, "second": other, **vars(result)})
    return WilliamsReport(len(systems), tests)


def ranking_accuracy(
    metric: dict[str, float], human: dict[str, float], minimum: Minimum = SYSTEMS_FOR_ACCURACY
) -> tuple[float | None, str | None]:
    """``pairwise_accuracy`` with its reason when there is none: fewer than ``minimum`` systems, or
    raters who tell no two systems apart."""
    systems = len(set(metric) & set(human))
    reason = minimum.reason(systems)
    if reason is not None:
        return None, reason
    try:
        return pairwise_accuracy(metric, human), None
    except ValueError as error:
        return None, str(error)


def pairwise_accuracy(metric: dict[str, float], human: dict[str, float]) -> float:
    """The share of system pairs, among those the humans tell apart, that the metric orders the same
    way (a metric tie counts as a disagreement)."""
    systems = sorted(set(metric) & set(human))
    agree = total = 0
    for index, a in enumerate(systems):
        for b in systems[index + 1 :]:
            human_sign = np.sign(human[a] - human[b])
            if human_sign == 0:
                continue
            total += 1
            agree += np.sign(metric[a] - metric[b]) == human_sign
    if total == 0:
        raise ValueError("the humans tell no two systems apart")
    return agree / total


def system_means(records: Iterable[Record]) -> dict[str, float]:
    """Each system's mean score over its outputs."""
    return {score.system: score.mean for score in system_scores(records, resamples=0)}


@dataclass(frozen=True)
class SystemScore:
    system: str
    mean: float  # over the system's outputs
    median: float
    low: float | None  # interval of the mean resampling inputs (``system_scores``); None without one
    high: float | None
    outputs: int
    inputs: int = 0  # the inputs the system has outputs for: what its interval rests on
    reason: str | None = None  # why there is no interval (too few inputs)


def system_scores(
    records: Iterable[Record],
    *,
    resamples: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    minimum: Minimum = INPUTS_FOR_INTERVAL,
) -> list[SystemScore]:
    """Each system's mean and median score with a bootstrap interval over inputs (the same resampled
    inputs for every system, as the systems were rated on the same inputs), best first.

    The interval is the expanded percentile one (``intervals.expanded_probabilities``, Hesterberg
    2015) of the mean over a system's outputs, so it lies between its lowest and highest score (a
    rating's interval inside the scale); a system with outputs on fewer than ``minimum`` inputs
    gets none, and the reason. ``resamples=0`` asks for no interval (None, no reason)."""
    by_system: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for system, input_id, value in records:
        by_system[system][input_id].append(value)
    inputs = sorted({i for per_input in by_system.values() for i in per_input})
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(inputs), (resamples, len(inputs))) if resamples and inputs else None
    out = []
    for system, per_input in by_system.items():
        values = [v for i in inputs for v in per_input.get(i, [])]
        reason = minimum.reason(len(per_input)) if draws is not None else None
        low = high = None
        if draws is not None and reason is None:
            low, high = _interval_over_inputs(
                per_input, inputs, draws, expanded_probabilities(len(per_input), level)
            )
        out.append(
            SystemScore(
                system, mean(values), float(np.median(values)), low, high, len(values), len(per_input), reason
            )
        )
    return sorted(out, key=lambda s: (-s.mean, s.system))


def _interval_over_inputs(
    per_input: dict[str, list[float]],
    inputs: list[str],
    draws: np.ndarray,
    probabilities: tuple[float, float],
) -> tuple[float | None, float | None]:
    """The mean over outputs when the inputs are drawn as ``draws`` (rows of input indices), read
    at ``probabilities``; inputs a system has no output for add nothing to a draw."""
    sums = np.array([sum(per_input.get(i, [])) for i in inputs])
    counts = np.array([len(per_input.get(i, [])) for i in inputs])
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    means = means[np.isfinite(means)]
    if not len(means):
        return None, None
    low, high = np.quantile(means, probabilities)
    values = [v for i in inputs for v in per_input.get(i, [])]
    # Every resampled mean lies between the lowest and highest score; keep the ends there despite rounding.
    return float(np.clip(low, min(values), max(values))), float(np.clip(high, min(values), max(values)))
