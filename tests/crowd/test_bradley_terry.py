"""Bradley–Terry strengths against the maximum-likelihood fit statsmodels gives the same model (a
logistic regression on item indicators, Bradley & Terry's model written as a GLM), on generated
comparisons; and against crowd-kit's ``BradleyTerry``, whose loop stops after its second pass."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from crowdkit.aggregation import BradleyTerry

from annotation.crowd.pairwise.bradley_terry import (
    BradleyTerryError,
    bradley_terry,
    fit_strengths,
    win_matrix,
)


def generated(seed: int, items: int = 6, comparisons: int = 400) -> list[tuple[str, str, str]]:
    rng = np.random.default_rng(seed)
    strength = rng.gamma(2.0, 1.0, items)
    names = [f"system-{i}" for i in range(items)]
    out = []
    for _ in range(comparisons):
        i, j = rng.choice(items, 2, replace=False)
        winner = i if rng.random() < strength[i] / (strength[i] + strength[j]) else j
        out.append((names[i], names[j], names[winner]))
    return out


def statsmodels_strengths(comparisons) -> dict[str, float]:
    items = sorted({item for left, right, _ in comparisons for item in (left, right)})
    column = {item: k for k, item in enumerate(items)}
    design = np.zeros((len(comparisons), len(items)))
    won = np.zeros(len(comparisons))
    for row, (left, right, winner) in enumerate(comparisons):
        design[row, column[left]], design[row, column[right]] = 1, -1
        won[row] = winner == left
    fit = sm.Logit(won, design[:, :-1]).fit(disp=0, tol=1e-12, maxiter=1000)  # last item: log-strength 0
    strengths = np.exp(np.append(fit.params, 0.0))
    return dict(zip(items, strengths / strengths.sum(), strict=True))


@pytest.mark.parametrize("seed", range(12))
def test_strengths_equal_the_maximum_likelihood_fit_of_statsmodels(seed):
    comparisons = generated(seed)
    ours = {row.item: row.strength for row in bradley_terry(comparisons)}
    assert ours == pytest.approx(statsmodels_strengths(comparisons), rel=1e-6)


def test_crowd_kit_stops_after_two_passes_so_it_is_compared_at_two_passes():
    comparisons = generated(3)
    frame = pd.DataFrame(comparisons, columns=["left", "right", "label"]).assign(worker="w")
    theirs = BradleyTerry(n_iter=100).fit(frame).scores_
    items, wins = win_matrix(comparisons)
    # Two MM passes from equal strengths, as crowd-kit's loop does before its stopping test compares
    # an array with itself.
    two_passes = fit_strengths(wins, max_iterations=2, tolerance=0.0)
    assert dict(zip(items, two_passes, strict=True)) == pytest.approx(theirs.to_dict(), rel=1e-9)


def test_intervals_contain_the_estimate_and_the_order_is_strongest_first():
    rows = bradley_terry(generated(5), resamples=200, seed=1)
    assert [r.strength for r in rows] == sorted((r.strength for r in rows), reverse=True)
    assert all(r.low <= r.strength <= r.high for r in rows)
    assert sum(r.strength for r in rows) == pytest.approx(1.0)


def test_an_item_that_never_loses_has_no_finite_strength():
    with pytest.raises(BradleyTerryError, match="strongly connected"):
        bradley_terry([("a", "b", "a"), ("a", "c", "a"), ("b", "c", "b"), ("c", "b", "c")])
    with pytest.raises(BradleyTerryError, match="neither"):
        bradley_terry([("a", "b", "z")])


def test_no_comparisons_give_no_strengths_as_crowd_kit_gives_none():
    """Found on the way (issue 25, item 7): ``bradley_terry([])`` raised ZeroDivisionError."""
    empty = pd.DataFrame({"worker": [], "left": [], "right": [], "label": []})
    assert BradleyTerry(n_iter=10).fit(empty).scores_.empty
    assert bradley_terry([]) == []
    assert bradley_terry([], resamples=100) == []
    assert fit_strengths(np.zeros((0, 0))).shape == (0,)
