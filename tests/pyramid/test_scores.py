"""The Pyramid scores (``evaluation.metrics.pyramid``) against the papers' definitions: Nenkova &
Passonneau's Max written as they give it (tiers and j) and by brute force over every set of X SCUs,
their Figure 1 case, the modified score's X from the references, LitePyramid as Shapira et al. define
it, and system means with the intervals every other per-input mean uses."""

from __future__ import annotations

import itertools
import random

import pytest

from evaluation.metrics.intervals import OVER_INPUTS, mean_intervals
from evaluation.metrics.pyramid import (
    PyramidError,
    lite_pyramid,
    modified_pyramid,
    optimal_weight,
    original_pyramid,
    summary_scores,
    system_scores,
)


def max_as_nenkova_and_passonneau_write_it(weights: list[int], x: int) -> int:
    """Max = Σ_{i=j+1..n} i·|T_i| + j·(X − Σ_{i=j+1..n} |T_i|), j = max_i (Σ_{t=i..n} |T_t| ≥ X)."""
    n = max(weights)
    tier = {i: sum(1 for w in weights if w == i) for i in range(1, n + 1)}
    if x > len(weights):
        x = len(weights)
    j = max(i for i in range(1, n + 1) if sum(tier[t] for t in range(i, n + 1)) >= x)
    above = sum(tier[i] for i in range(j + 1, n + 1))
    return sum(i * tier[i] for i in range(j + 1, n + 1)) + j * (x - above)


@pytest.mark.parametrize("seed", range(40))
def test_max_is_the_papers_formula_and_the_best_of_every_set_of_x_scus(seed):
    rng = random.Random(seed)
    references = rng.randint(1, 6)
    weights = [rng.randint(1, references) for _ in range(rng.randint(1, 9))]
    for x in range(len(weights) + 1):
        brute = max(sum(chosen) for chosen in itertools.combinations(weights, x)) if x else 0
        assert (
            optimal_weight(weights, x)
            == brute
            == (max_as_nenkova_and_passonneau_write_it(weights, x) if x else 0)
        )


def test_figure_one_four_scus_from_a_pyramid_whose_top_tiers_hold_two_and_four():
    """Nenkova & Passonneau's Figure 1: a four-tier pyramid (four references); a summary of four SCUs
    is optimal with both weight-4 SCUs and two of the four weight-3 ones: six optimal summaries, Max 14."""
    weights = [4, 4, 3, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1]
    best = optimal_weight(weights, 4)
    assert best == 14
    optimal = [
        c for c in itertools.combinations(range(len(weights)), 4) if sum(weights[i] for i in c) == best
    ]
    assert len(optimal) == 6
    assert original_pyramid([4, 4, 3, 3], weights) == 1.0
    assert original_pyramid([4, 3, 2, 1], weights) == pytest.approx(10 / 14)
    # Expressing fewer SCUs, all heavy, is not penalised by the original score ...
    assert original_pyramid([4], weights) == 1.0
    # ... but is by the modified one: X = 32 weight ÷ 4 references = 8 SCUs, Max = 4+4+3+3+3+3+2+2 = 24.
    assert modified_pyramid([4], weights, 4) == pytest.approx(4 / 24)
    assert modified_pyramid([4, 4, 3, 3, 3, 3, 2, 2], weights, 4) == 1.0


def test_the_modified_scores_x_is_rounded_half_up_and_capped_by_the_pyramid():
    # Weights 2, 2, 1 over two references: 5 / 2 = 2.5 SCUs each, rounded up to 3: Max = 2 + 2 + 1.
    assert optimal_weight([2, 2, 1], 3) == 5
    assert modified_pyramid([2], [2, 2, 1], 2) == pytest.approx(2 / 5)
    # 2.4 rounds down: weights 3, 3, 3, 2, 1 over five references (12 / 5), Max = 3 + 3.
    assert modified_pyramid([3], [3, 3, 3, 2, 1], 5) == pytest.approx(3 / 6)
    assert modified_pyramid([1, 1], [1, 1], 1) == 1.0
    with pytest.raises(PyramidError, match="at least one reference"):
        modified_pyramid([1], [1], 0)


def test_lite_pyramid_is_the_share_of_the_scus_judged_present():
    """Shapira et al. (2019): each SCU present or not by the crowd's answers, the summary's score the
    share present; every SCU counts alike, whatever its weight."""
    assert lite_pyramid(3, 10) == 0.3
    weights = {"cnndm1": {"a": 1, "b": 1, "c": 1, "d": 1}}
    [score] = summary_scores(weights, {("bart", "cnndm1"): {"a", "c"}}, {"cnndm1": 1})
    assert (score.present, score.units, score.lite_pyramid) == (2, 4, 0.5)
    # Sampled SCUs: the share of those asked about.
    [sampled] = summary_scores(
        weights, {("bart", "cnndm1"): {"a"}}, {"cnndm1": 1}, asked={("bart", "cnndm1"): {"a", "b"}}
    )
    assert sampled.lite_pyramid == 0.5 and sampled.units == 2
    for bad in ((4, 3), (-1, 3)):
        with pytest.raises(PyramidError):
            lite_pyramid(*bad)


def test_nothing_expressed_scores_zero_and_unknown_scus_are_named():
    weights = {"i1": {"a": 2, "b": 1}}
    [score] = summary_scores(weights, {("s", "i1"): set()}, {"i1": 2})
    assert (score.pyramid, score.modified_pyramid, score.lite_pyramid) == (0.0, 0.0, 0.0)
    with pytest.raises(PyramidError, match="input 'i1' has no SCU 'z'"):
        summary_scores(weights, {("s", "i1"): {"z"}}, {"i1": 2})
    with pytest.raises(PyramidError, match="input 'i2' has no SCUs"):
        summary_scores(weights, {("s", "i2"): set()}, {})


def test_system_means_and_intervals_are_over_the_inputs_every_system_summarised():
    rng = random.Random(3)
    weights = {f"i{n}": {f"u{k}": rng.randint(1, 3) for k in range(6)} for n in range(12)}
    present = {
        (system, i): {u for u in units if rng.random() < p}
        for system, p in (("good", 0.7), ("poor", 0.3))
        for i, units in weights.items()
    }
    del present[("poor", "i0")]  # poor missed an input: both are compared on the other eleven
    scores = summary_scores(weights, present, {i: 3 for i in weights})
    table = system_scores(scores)
    assert [s.system for s in table] == ["good", "poor"] and {s.inputs for s in table} == {11}
    shared = sorted(f"i{n}" for n in range(1, 12))  # as the systems table orders them
    for measure in ("pyramid", "modified_pyramid", "lite_pyramid"):
        columns = [
            [
                next(s for s in scores if s.system == name and s.input == i).__getattribute__(measure)
                for i in shared
            ]
            for name in ("good", "poor")
        ]
        expected = mean_intervals(columns, OVER_INPUTS)
        assert [s.scores[measure] for s in table] == expected
