"""Bradley–Terry strengths from pairwise comparisons (pure; no Django).

Each comparison says which of two items (systems, outputs) won. The model (Bradley & Terry 1952) gives
item i a strength p_i > 0 with P(i beats j) = p_i / (p_i + p_j); the strengths are fitted by maximum
likelihood with Hunter's (2004) MM algorithm and scaled to sum to 1. They exist only if the
comparison graph is strongly connected (every item both beats and loses to the rest, directly or
through others); otherwise the maximum is at a strength of 0 or infinity and ``BradleyTerryError``
says so. Intervals are percentile bootstraps over the comparisons.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

Comparison = tuple[Hashable, Hashable, Hashable]  # (left, right, winner: left or right)


class BradleyTerryError(ValueError):
    """The comparisons cannot be fitted (a winner that is neither item, or a graph not strongly connected)."""


@dataclass(frozen=True)
class Strength:
    item: Hashable
    strength: float
    low: float  # percentile bootstrap interval over the comparisons (equal to strength without resamples)
    high: float


def win_matrix(comparisons: Sequence[Comparison]) -> tuple[list, np.ndarray]:
    """The items (first-seen order) and ``wins[i, j]``: how often item i beat item j."""
    index: dict[Hashable, int] = {}
    for left, right, winner in comparisons:
        if winner not in (left, right):
            raise BradleyTerryError(f"winner {winner!r} is neither {left!r} nor {right!r}")
        for item in (left, right):
            index.setdefault(item, len(index))
    wins = np.zeros((len(index), len(index)))
    for left, right, winner in comparisons:
        loser = right if winner == left else left
        wins[index[winner], index[loser]] += 1
    return list(index), wins


def strongly_connected(wins: np.ndarray) -> bool:
    """Whether every item reaches every other along "beat" edges (and back)."""
    reach = (wins > 0) | np.eye(len(wins), dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(len(wins), 2)))))):  # repeated squaring
        reach = (reach.astype(int) @ reach.astype(int)) > 0
    return bool(reach.all())


def fit_strengths(wins: np.ndarray, tolerance: float = 1e-12, max_iterations: int = 100_000) -> np.ndarray:
    """Hunter's MM iteration p_i ← W_i / Σ_j n_ij / (p_i + p_j), scaled to sum 1, until the largest
    change is below ``tolerance``. No items, no strengths."""
    if len(wins) == 0:
        return np.zeros(0)
    if not strongly_connected(wins):
        raise BradleyTerryError(
            "the comparisons are not strongly connected: some item never loses (or never wins) against "
            "the rest, so its strength has no finite estimate"
        )
    games = wins + wins.T
    won = wins.sum(axis=1)
    p = np.full(len(wins), 1 / len(wins))
    for _ in range(max_iterations):
        denominator = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = won / denominator
        new /= new.sum()
        if np.abs(new - p).max() < tolerance:
            return new
        p = new
    return p


def bradley_terry(
    comparisons: Sequence[Comparison], *, resamples: int = 0, level: float = 0.95, seed: int = 0
) -> list[Strength]:
    """Each item's strength (sum 1), strongest first, with a percentile bootstrap interval over the
    comparisons when ``resamples`` > 0 (resamples that are not strongly connected are skipped). No
    comparisons, no items: an empty list, as crowd-kit's ``BradleyTerry`` gives empty scores."""
    if not comparisons:
        return []
    items, wins = win_matrix(comparisons)
    strengths = fit_strengths(wins)
    low, high = (
        bootstrap_interval(items, comparisons, resamples, level, seed) if resamples else (strengths,) * 2
    )
    order = np.argsort(-strengths, kind="stable")
    return [Strength(items[i], float(strengths[i]), float(low[i]), float(high[i])) for i in order]


def bootstrap_interval(
    items: list, comparisons: Sequence[Comparison], resamples: int, level: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of each item's strength over comparisons drawn with replacement (draws that
    are not strongly connected are skipped; with none left, the interval is empty: NaN)."""
    rng = np.random.default_rng(seed)
    position = {item: i for i, item in enumerate(items)}
    rows = np.array([(position[a], position[b], position[winner]) for a, b, winner in comparisons])
    draws = []
    for _ in range(resamples):
        sample = rows[rng.integers(0, len(rows), len(rows))]
        wins = np.zeros((len(items), len(items)))
        losers = np.where(sample[:, 2] == sample[:, 0], sample[:, 1], sample[:, 0])
        np.add.at(wins, (sample[:, 2], losers), 1)
        try:
            draws.append(fit_strengths(wins, tolerance=1e-9))
        except BradleyTerryError:
            continue
    if not draws:
        return np.full(len(items), np.nan), np.full(len(items), np.nan)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(draws, [tail, 100 - tail], axis=0)
    return low, high
