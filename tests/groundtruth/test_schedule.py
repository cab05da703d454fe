"""The beat job requests one debounced run per project and is registered in the beat schedule."""

from __future__ import annotations

import pytest

from annotation.tasks import compute_ground_truth, recompute_all_ground_truths
from cranfield.celery import app
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch):
    calls = []
    monkeypatch.setattr(compute_ground_truth, "apply_async", lambda args, countdown: calls.append(args))
    return calls


def test_every_project_gets_one_run_and_a_second_tick_adds_none(researcher, annotators, queued):
    first = make_project(researcher, annotators)
    second = make_project(researcher, annotators)
    assert recompute_all_ground_truths() == 2
    assert sorted(queued) == sorted([(first.pk,), (second.pk,)])
    # Both runs are still waiting: the next tick must not queue duplicates.
    assert recompute_all_ground_truths() == 0
    assert len(queued) == 2


def test_the_beat_schedule_names_the_registered_job():
    entry = app.conf.beat_schedule["recompute-ground-truths"]
    assert entry["task"] == recompute_all_ground_truths.name
    assert entry["schedule"] > 0
