"""The researcher's dashboard figures on a controlled clock: rates over a stated window, time on task
from the moment the judging page showed the task, one forecast, and the charts over time."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Judgement
from annotation.progress.live import charts, summarise_progress, timeline, timeline_charts
from tests.annotation.factories import make_project

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
INLINE = {"HTTP_X_JUDGING": "inline"}


class Clock:
    """``timezone.now`` for the code under test: it stands still until the test moves it."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    # Every caller reads the time as timezone.now() (the engine, the views, auto_now_add fields).
    clock = Clock(NOW)
    monkeypatch.setattr(timezone, "now", clock)
    return clock


def figures(**overrides):
    values = {
        "items_total": 100,
        "items_complete": 10,
        "judgements_needed": 300,
        "judgements_done": 30,
        "first_judgement_at": NOW - timedelta(hours=3),
        "judgements_in_window": 12,
        "annotators_in_window": 3,
        "seconds_on_task": [4.0, 6.0, 20.0],
        "now": NOW,
    }
    return summarise_progress(**(values | overrides))


# -- the arithmetic --------------------------------------------------------------------------------


def test_the_rate_is_the_last_hours_judgements_with_its_window_and_count_said():
    progress = figures()
    assert progress.window_minutes == 60
    assert progress.judgements_per_hour == 12
    assert progress.text["rate"] == "12.0 per hour: 12 judgements in the last 60 min, from 3 annotators"


def test_twenty_three_judgements_in_the_first_minute_are_not_called_23_per_hour():
    progress = figures(
        judgements_done=23,
        first_judgement_at=NOW - timedelta(minutes=1),
        judgements_in_window=23,
        annotators_in_window=1,
    )
    assert progress.window_minutes == 1
    assert progress.judgements_per_hour == 23 * 60
    assert progress.text["rate"] == "1,380.0 per hour: 23 judgements in the last 1 min, from 1 annotator"


def test_a_few_seconds_of_judging_are_taken_over_a_minute_at_least():
    progress = figures(
        judgements_done=2, first_judgement_at=NOW - timedelta(seconds=5), judgements_in_window=2
    )
    assert progress.window_minutes == 1
    assert progress.judgements_per_hour == 120


def test_the_forecast_is_the_judgements_left_at_the_stated_rate():
    progress = figures()
    assert progress.judgements_remaining == 270
    assert progress.hours_to_finish == pytest.approx(270 / 12)
    assert progress.finish_at == NOW + timedelta(hours=270 / 12)
    assert progress.text["forecast"] == "22.5 h: 270 judgements left at 12.0 per hour"


def test_no_judgement_in_the_window_makes_the_forecast_unknown_not_a_number():
    progress = figures(judgements_in_window=0, annotators_in_window=0)
    assert progress.judgements_per_hour == 0
    assert (progress.hours_to_finish, progress.finish_at) == (None, None)
    assert progress.text["rate"] == "0 per hour: no judgements in the last 60 min"
    assert progress.text["forecast"] == "unknown: no judgements in the last 60 min"


def test_before_the_first_judgement_rate_forecast_and_time_on_task_are_unknown():
    progress = figures(judgements_done=0, first_judgement_at=None, judgements_in_window=0, seconds_on_task=[])
    assert (progress.judgements_per_hour, progress.hours_to_finish, progress.median_seconds_on_task) == (
        None,
        None,
        None,
    )
    assert progress.text == {
        "rate": "unknown: no judgements yet",
        "time_on_task": "unknown: no judgement timed from the task being shown yet",
        "forecast": "unknown: no judgements yet",
    }


def test_a_finished_project_needs_no_time_and_an_empty_one_says_so():
    done = figures(judgements_done=300, items_complete=100, judgements_in_window=0)
    assert (done.hours_to_finish, done.text["forecast"]) == (0.0, "finished: no judgements left")
    empty = figures(items_total=0, items_complete=0, judgements_needed=0, judgements_done=0)
    assert (empty.percent_complete, empty.text["forecast"]) == (0.0, "nothing to judge yet")


def test_a_time_to_finish_is_said_in_the_unit_that_reads():
    assert figures(judgements_done=299, judgements_in_window=600).text["forecast"] == (
        "under a minute: 1 judgement left at 600.0 per hour"
    )
    assert figures(judgements_done=290, judgements_in_window=60).text["forecast"].startswith("10 min: ")
    assert figures(judgements_in_window=120).text["forecast"].startswith("2.2 h: ")
    assert figures(judgements_in_window=2).text["forecast"].startswith("5.6 days: ")


def test_judgements_of_annotators_who_can_no_longer_judge_are_said_and_not_counted():
    progress = figures(
        judgements_in_window=3,
        annotators_in_window=1,
        judgements_in_window_not_counted=900,
        annotators_in_window_not_counted=5,
    )
    assert progress.judgements_per_hour == 3
    assert progress.hours_to_finish == pytest.approx(270 / 3)
    assert progress.text["rate"] == (
        "3.0 per hour: 3 judgements in the last 60 min, from 1 annotator (900 judgements from 5 annotators "
        "who can no longer judge, not counted)"
    )
    idle = figures(
        judgements_in_window=0,
        annotators_in_window=0,
        judgements_in_window_not_counted=900,
        annotators_in_window_not_counted=5,
    )
    assert (idle.judgements_per_hour, idle.hours_to_finish) == (0, None)
    assert idle.text["rate"].startswith("0 per hour: no judgements in the last 60 min by annotators who can")
    assert (
        idle.text["forecast"] == "unknown: no judgements in the last 60 min by annotators who can still judge"
    )


def test_time_on_task_is_the_median_of_the_timed_judgements_with_their_count():
    progress = figures()
    assert progress.median_seconds_on_task == 6.0
    assert progress.text["time_on_task"] == (
        "6.0 s: the median of 3 judgements, from the task shown to the answer"
    )


# -- time on task through the pages ---------------------------------------------------------------


@pytest.fixture
def project(researcher, annotators):
    return make_project(researcher, annotators, k=2, pool_depth=2)


def test_a_one_second_judgement_is_recorded_as_one_second_not_from_the_lease(
    client, clock, project, annotators
):
    client.force_login(annotators[0])
    client.post(reverse("claim", args=[project.pk]))  # leased at 12:00:00, not shown yet
    assignment = Assignment.objects.get()
    assert assignment.shown_at is None
    clock.advance(seconds=46)
    client.get(reverse("judge", args=[project.pk]))  # shown at 12:00:46
    clock.advance(seconds=1)
    client.post(reverse("submit", args=[project.pk, assignment.pk]), {"label": "1"})
    judgement = Judgement.objects.get()
    assert judgement.seconds_on_task == 1
    assert judgement.seconds_spent == 47  # from the lease, kept as it was


def test_a_reload_does_not_restart_the_time_on_task(client, clock, project, annotators):
    client.force_login(annotators[0])
    client.post(reverse("claim", args=[project.pk]))
    client.get(reverse("judge", args=[project.pk]))
    clock.advance(seconds=20)
    page = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert 'data-seconds="20"' in page and ">0:20<" in page
    clock.advance(seconds=5)
    assignment = Assignment.objects.get()
    client.post(reverse("submit", args=[project.pk, assignment.pk]), {"label": "0"})
    assert Judgement.objects.get().seconds_on_task == 25


def test_the_task_that_comes_with_a_submission_is_timed_from_that_answer(client, clock, project, annotators):
    client.force_login(annotators[0])
    client.post(reverse("claim", args=[project.pk]), **INLINE)
    first = Assignment.objects.get()
    assert first.shown_at == NOW  # rendered in the claim's own answer
    clock.advance(seconds=2)
    client.post(reverse("submit", args=[project.pk, first.pk]), {"label": "1"}, **INLINE)
    second = Assignment.objects.get(status=Assignment.Status.ACTIVE)
    assert second.shown_at == NOW + timedelta(seconds=2)
    clock.advance(seconds=3)
    client.post(reverse("submit", args=[project.pk, second.pk]), {"label": "0"}, **INLINE)
    times = list(Judgement.objects.order_by("id").values_list("seconds_on_task", flat=True))
    assert times == [2, 3]


def test_a_judgement_never_shown_on_the_judging_page_has_no_time_on_task(project, annotators):
    from annotation.judging.assignment import claim_next_task, submit_judgement

    assignment = claim_next_task(project, annotators[0])
    judgement = submit_judgement(assignment.pk, annotators[0], 1).judgement
    assert judgement.seconds_on_task is None
    assert judgement.seconds_spent is not None


def judge_one(client, project, annotator, clock: Clock, seconds: float) -> None:
    """An annotator is shown a task, thinks ``seconds`` and answers (the clock moves on)."""
    client.force_login(annotator)
    client.post(reverse("claim", args=[project.pk]), **INLINE)
    assignment = Assignment.objects.get(annotator=annotator, status=Assignment.Status.ACTIVE)
    clock.advance(seconds=seconds)
    # Without the script: the next lease is handed out now but shown only at the next claim.
    client.post(reverse("submit", args=[project.pk, assignment.pk]), {"label": "1"})


def test_the_project_figures_follow_the_clock(client, clock, project, annotators, researcher):
    url = reverse("project-progress", args=[project.pk])
    for annotator in annotators[:2]:
        for _ in range(2):
            judge_one(client, project, annotator, clock, seconds=15)
    # Four judgements, at 12:00:15, :30, :45 and 12:01:00; it is now 12:01:00. The first was 45 s
    # ago, so the rate is taken over the shortest span, a minute.
    client.force_login(researcher)
    now = client.get(url).json()
    assert (now["judgements_done"], now["judgements_remaining"]) == (4, 10)
    assert (now["window_minutes"], now["judgements_in_window"], now["judgements_per_hour"]) == (1, 4, 240)
    assert now["median_seconds_on_task"] == 15 and now["timed_judgements"] == 4
    assert now["hours_to_finish"] == pytest.approx(10 / 240)
    assert now["finish_at"] == (NOW + timedelta(minutes=1, hours=10 / 240)).isoformat()
    assert now["text"]["forecast"] == "2 min: 10 judgements left at 240.0 per hour"  # not "0.0 h"

    clock.advance(minutes=30)  # 12:31: the window is the 31 minutes since the first judgement
    later = client.get(url).json()
    assert later["window_minutes"] == pytest.approx(30 + 45 / 60)
    assert later["judgements_per_hour"] == pytest.approx(4 / ((30 + 45 / 60) / 60))
    assert later["text"]["rate"].endswith("4 judgements in the last 31 min, from 2 annotators")

    clock.advance(hours=2)  # nothing for two hours: no rate, so no forecast
    idle = client.get(url).json()
    assert (idle["window_minutes"], idle["judgements_in_window"], idle["judgements_per_hour"]) == (60, 0, 0)
    assert idle["hours_to_finish"] is None
    assert idle["text"]["forecast"] == "unknown: no judgements in the last 60 min"


def test_a_blocked_annotators_judgements_leave_the_rate_and_the_forecast(
    client, clock, project, annotators, researcher
):
    from annotation.models import Membership

    judge_one(client, project, annotators[0], clock, seconds=10)
    judge_one(client, project, annotators[1], clock, seconds=10)
    judge_one(client, project, annotators[1], clock, seconds=10)
    Membership.objects.filter(project=project, annotator=annotators[1]).update(
        status=Membership.Status.BLOCKED
    )
    client.force_login(researcher)
    figures = client.get(reverse("project-progress", args=[project.pk])).json()
    assert (figures["judgements_in_window"], figures["annotators_in_window"]) == (1, 1)
    assert (figures["judgements_in_window_not_counted"], figures["annotators_in_window_not_counted"]) == (
        2,
        1,
    )
    assert figures["judgements_per_hour"] == 60  # one judgement over the shortest window, a minute
    assert figures["hours_to_finish"] == pytest.approx(figures["judgements_remaining"] / 60)
    assert "(2 judgements from 1 annotator who can no longer judge, not counted)" in figures["text"]["rate"]


def test_the_project_page_says_the_figures_in_words_and_draws_the_charts(
    client, clock, project, annotators, researcher
):
    judge_one(client, project, annotators[0], clock, seconds=4)
    clock.advance(hours=1)
    judge_one(client, project, annotators[1], clock, seconds=6)
    client.force_login(researcher)
    page = client.get(reverse("project-page", args=[project.pk])).content.decode()
    assert "1 judgement in the last 60 min, from 1 annotator" in page
    assert "5.0 s: the median of 2 judgements, from the task shown to the answer" in page
    assert "12 judgements left at 1.0 per hour" in page
    assert page.count('<svg class="chart"') == 2
    assert "Judgements per hour (UTC)" in page and "Judgements by each annotator so far" in page
    assert "Annotator time left" not in page  # a second forecast, on another model, is gone


# -- the charts ------------------------------------------------------------------------------------


def test_the_timeline_has_every_hour_from_the_first_to_the_last_with_running_totals_per_annotator():
    rows = [(NOW, "ann", 3), (NOW, "bob", 1), (NOW + timedelta(hours=2), "ann", 2)]
    line = timeline(rows)
    assert line.unit == "hour"
    assert line.starts == [NOW, NOW + timedelta(hours=1), NOW + timedelta(hours=2)]
    assert line.totals == [4, 0, 2]
    assert line.cumulative == {"ann": [3, 3, 5], "bob": [1, 1, 1]}


def test_a_campaign_of_weeks_is_drawn_a_day_per_bar():
    rows = [(NOW, "ann", 3), (NOW + timedelta(hours=5), "ann", 1), (NOW + timedelta(days=10), "bob", 2)]
    line = timeline(rows)
    assert line.unit == "day"
    assert len(line.starts) == 11 and line.starts[0] == NOW.replace(hour=0)
    assert (line.totals[0], line.totals[-1], sum(line.totals)) == (4, 2, 6)


def test_an_annotators_name_is_escaped_in_the_chart():
    line = timeline([(NOW, "<script>alert(1)</script>", 2)])
    svg = timeline_charts(line)["annotators"]
    assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_the_busiest_annotators_are_named_and_the_others_drawn_together():
    rows = [(NOW, f"annotator{i:02d}", i + 1) for i in range(12)]
    svg = timeline_charts(timeline(rows))["annotators"]
    named = re.findall(r"<title>(annotator\d+)</title>", svg)
    assert named == [f"annotator{i:02d}" for i in range(11, 3, -1)]
    assert "4 other annotators" in svg


def test_axes_end_on_round_numbers():
    assert charts.nice_ceiling(0) == (1.0, 1.0)
    assert charts.nice_ceiling(7) == (8.0, 2.0)
    assert charts.nice_ceiling(340) == (400.0, 100.0)
    svg = charts.bar_chart(title="T", labels=["a", "b"], values=[3, 7], y_label="n")
    assert svg.startswith('<svg class="chart"') and svg.count("<rect") == 2
    assert "the highest, 7, at b" in svg


def test_a_line_of_one_hour_is_drawn_as_a_point_not_left_blank():
    svg = charts.line_chart(
        title="Judgements by each annotator so far",
        labels=["26 Nov 16:00"],
        series={"ann": [140], "bob": [120]},
        y_label="judgements so far",
    )
    assert svg.count("<circle") == 2
    many = charts.line_chart(
        title="t", labels=[str(i) for i in range(100)], series={"ann": list(range(100))}, y_label="y"
    )
    assert "<circle" not in many  # a hundred points make a line by themselves
