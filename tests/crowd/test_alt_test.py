"""The alternative-annotator test (Calderon, Reichart & Dror 2025) against a hand computation, SciPy's
t-test and the Benjamini–Yekutieli step-up rule written out; on generated crowds a machine that
copies the majority passes and one that guesses fails. (Against the authors' own data — nine data
sets, six LLMs — the winning rate and advantage probability of all 52 pairs equal their notebook's
printed figures; that data is not redistributable here: see BENCHMARKS.md for the command.)"""

from __future__ import annotations

import math
import random

import pytest
from scipy import stats

from annotation.crowd.quality.alt_test import accuracy, alt_test, neg_rmse

PEOPLE = {
    "A": {1: "x", 2: "x", 3: "y", 4: "y"},
    "B": {1: "x", 2: "y", 3: "y", 4: "y"},
    "C": {1: "x", 2: "x", 3: "x", 4: "y"},
}
MACHINE = {1: "x", 2: "x", 3: "y", 4: "y"}


def test_each_persons_comparison_equals_a_hand_computation():
    result = alt_test(MACHINE, PEOPLE, epsilon=0.2, min_items_per_person=3)
    by_person = {c.annotator: c for c in result.comparisons}
    # A agrees with the machine on every item: both align equally everywhere, so both have the advantage
    # on all four; the differences are all 0, below ε with no spread: p = 0 (SciPy's t is −∞), a win.
    a = by_person["A"]
    assert (a.items, a.machine_advantage, a.person_advantage) == (4, 1.0, 1.0)
    assert a.p_value == 0.0 and a.beaten
    # B differs from A and C on item 2 (the machine does not): differences 0, −1, 0, 0 against ε = 0.2,
    # mean −0.25, standard error 0.5 / √4, t = −1.8 with 3 degrees of freedom.
    for name in ("B", "C"):
        person = by_person[name]
        assert (person.machine_advantage, person.person_advantage) == (1.0, 0.75)
        assert person.p_value == pytest.approx(stats.t.cdf(-1.8, 3))
        # BY at α = 0.05 over three tests: after A's 0, the next must be ≤ (2/3)(0.05 / (1 + 1/2 + 1/3)).
        assert person.p_value > 2 / 3 * 0.05 / (1 + 1 / 2 + 1 / 3) and not person.beaten
    assert result.winning_rate == pytest.approx(1 / 3) and result.advantage_probability == 1.0
    assert not result.passed


def test_alignment_scores():
    assert accuracy("x", ["x", "y", "x", "x"]) == 0.75
    assert neg_rmse(3, [1, 5]) == -2.0


def by_step_up(p_values: list[float], q: float) -> list[bool]:
    """Benjamini–Yekutieli written out: reject the k smallest, k the largest rank with p ≤ (k/m) q / H_m."""
    m = len(p_values)
    harmonic = sum(1 / i for i in range(1, m + 1))
    order = sorted(range(m), key=lambda i: p_values[i])
    k = max(
        (rank for rank in range(1, m + 1) if p_values[order[rank - 1]] <= rank / m * q / harmonic), default=0
    )
    rejected = set(order[:k])
    return [i in rejected for i in range(m)]


def crowd(seed: int, people: int = 5, items: int = 120, noise: float = 0.15):
    rng = random.Random(seed)
    truth = {i: rng.choice("abc") for i in range(items)}

    def noisy(label: str) -> str:
        return rng.choice("abc") if rng.random() < noise else label

    judged = {
        f"p{j}": {i: noisy(truth[i]) for i in range(items) if rng.random() < 0.8} for j in range(people)
    }
    return truth, judged


@pytest.mark.parametrize("seed", range(5))
def test_a_machine_as_good_as_the_truth_passes_and_a_guessing_one_fails(seed):
    truth, people = crowd(seed)
    good = alt_test(truth, people, epsilon=0.1)
    assert good.passed and good.advantage_probability > 0.8
    rng = random.Random(seed + 1000)
    guessing = alt_test({i: rng.choice("abc") for i in truth}, people, epsilon=0.1)
    assert not guessing.passed and guessing.winning_rate == 0.0
    # The correction is Benjamini–Yekutieli's step-up rule.
    p_values = [1.0 if math.isnan(c.p_value) else c.p_value for c in good.comparisons]
    assert [c.beaten for c in good.comparisons] == by_step_up(p_values, 0.05)


def test_people_with_too_few_items_and_items_with_one_person_are_left_out_with_the_reason():
    truth, people = crowd(1, people=3, items=60)
    people["late"] = {i: truth[i] for i in range(10)}
    people["alone"] = {1000 + i: "a" for i in range(40)}  # items no one else judged
    result = alt_test(truth, people, epsilon=0.1)
    shared = sum(any(i in people[p] for p in ("p0", "p1", "p2")) for i in range(10))
    assert result.skipped == {
        "late": f"{shared} items judged with others (needs 30)",
        "alone": "0 items judged with others (needs 30)",
    }
    assert {c.annotator for c in result.comparisons} == {"p0", "p1", "p2"}
    assert alt_test(truth, {"only": people["p0"]}).winning_rate is None
