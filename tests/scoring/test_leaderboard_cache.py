"""A done evaluation's leaderboard is computed once per set of options and served from the cache after
(100 runs × 1,000 topics take seconds: every pair's test, the intervals' resamples), and computed
anew when its runs change."""

from __future__ import annotations

from dataclasses import replace

import pytest
from django.core.cache import cache
from django.http import QueryDict

from evaluation.models import Run
from evaluation.scoring import board as board_module
from evaluation.scoring.board import BoardOptions, available_measures, leaderboard

pytestmark = pytest.mark.django_db


def test_a_leaderboard_is_computed_once_per_options_and_again_when_its_runs_change(scored, monkeypatch):
    cache.clear()
    computed = []
    compute = board_module.computed_leaderboard
    monkeypatch.setattr(
        board_module, "computed_leaderboard", lambda *args: computed.append(args[1]) or compute(*args)
    )
    options = BoardOptions.from_query(QueryDict(""), available_measures(scored))
    first = leaderboard(scored, options)
    assert leaderboard(scored, options) == first == compute(scored, options)
    assert computed == [options]
    other = replace(options, test="bootstrap")
    assert leaderboard(scored, other)["test"] == "bootstrap" and computed == [options, other]

    run = Run.objects.get(pk=first["rows"][0]["run_id"])
    run.group = "team"
    run.save()
    assert {row["group"] for row in leaderboard(scored, options)["rows"]} >= {"team"}
    run.delete()
    assert [row["run"] for row in leaderboard(scored, options)["rows"]] == [
        row["run"] for row in first["rows"][1:]
    ]
    assert len(computed) == 4
