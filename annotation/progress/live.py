"""Live progress of a project: the rate over a stated window, time on task, one forecast, and the
series the project page draws.

One model for every figure: the rate is the judgements of the last ``RATE_WINDOW`` (or of the time
since the first judgement, when that is shorter) divided by that window, and the time to finish is
the judgements left divided by that rate. Both count only the annotators who can still judge
(``coverage.eligible_memberships``: members who can log in, are not blocked and have passed or may
still take the qualification test): the judgements of those who cannot (the demo's simulated
annotators, a blocked annotator, accounts a bundle brought in) are past work, and a forecast built
on them promised a finish no one was there to reach. They are counted apart and said. Time on task
runs from the task being shown on the judging page to the answer (``Judgement.seconds_on_task``),
not from the lease.

``summarise_progress`` and ``timeline`` are pure arithmetic on plain values; ``project_progress_figures``
and ``dashboard_charts`` read the database.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta

from django.db.models import Count, Min, Q, Sum
from django.db.models.functions import TruncHour
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from annotation.judging.coverage import eligible_memberships
from annotation.models import Judgement, Project, Task
from annotation.progress import charts

RATE_WINDOW = timedelta(minutes=60)
# The shortest span a rate is taken over: a few seconds after the first judgement, two judgements
# would otherwise make a rate of thousands per hour.
SHORTEST_SPAN = timedelta(minutes=1)
# Up to this many hours the charts have a bar per hour; beyond, a bar per day.
MOST_HOURLY_BARS = 72
# Annotators drawn with a line and a name of their own on the progress chart; the rest are "others".
NAMED_ANNOTATORS = 8


@dataclass(frozen=True)
class Progress:
    items_total: int
    items_complete: int
    judgements_done: int
    judgements_remaining: int
    # The rate's window: RATE_WINDOW, or the time since the first judgement when that is shorter.
    window_minutes: float
    judgements_in_window: int  # by annotators who can still judge
    annotators_in_window: int  # of those who can still judge
    judgements_per_hour: float | None  # judgements_in_window / window; None before the first judgement
    hours_to_finish: float | None  # remaining / rate; 0 when nothing is left; None when there is no rate
    finish_at: datetime | None
    median_seconds_on_task: float | None  # from the task shown to the answer
    timed_judgements: int  # judgements whose time on task is known
    # In the window, by annotators who can no longer judge: said, never counted in rate or forecast.
    judgements_in_window_not_counted: int = 0
    annotators_in_window_not_counted: int = 0
    text: dict[str, str] = field(default_factory=dict)  # each figure said in words, for the page

    @property
    def percent_complete(self) -> float:
        return 100 * self.items_complete / self.items_total if self.items_total else 0.0

    def as_dict(self) -> dict:
        figures = asdict(self) | {"percent_complete": self.percent_complete}
        figures["finish_at"] = self.finish_at.isoformat() if self.finish_at else None
        return figures


def rate_window(first_judgement_at: datetime | None, now: datetime) -> timedelta:
    """The window the rate is taken over: the last ``RATE_WINDOW``, or the time since the first
    judgement when that is shorter (but never under ``SHORTEST_SPAN``)."""
    if first_judgement_at is None:
        return RATE_WINDOW
    return min(RATE_WINDOW, max(SHORTEST_SPAN, now - first_judgement_at))


def summarise_progress(
    *,
    items_total: int,
    items_complete: int,
    judgements_needed: int,
    judgements_done: int,
    first_judgement_at: datetime | None,
    judgements_in_window: int,
    annotators_in_window: int,
    seconds_on_task: Sequence[float],
    now: datetime,
    judgements_in_window_not_counted: int = 0,
    annotators_in_window_not_counted: int = 0,
) -> Progress:
    """Summarise a project's progress.

    ``judgements_needed`` is k summed over the items; ``judgements_in_window`` were submitted within
    ``rate_window(first_judgement_at, now)`` before ``now`` by ``annotators_in_window`` annotators
    who can still judge, the ``…_not_counted`` ones by annotators who cannot; ``seconds_on_task``
    are the known times from display to answer.
    """
    remaining = max(0, judgements_needed - judgements_done)
    window = rate_window(first_judgement_at, now)
    hours = window.total_seconds() / 3600
    rate = judgements_in_window / hours if judgements_done else None
    if remaining == 0:
        to_finish: float | None = 0.0
    elif rate:
        to_finish = remaining / rate
    else:
        to_finish = None
    median = statistics.median(seconds_on_task) if seconds_on_task else None
    progress = Progress(
        items_total=items_total,
        items_complete=items_complete,
        judgements_done=judgements_done,
        judgements_remaining=remaining,
        window_minutes=window.total_seconds() / 60,
        judgements_in_window=judgements_in_window,
        annotators_in_window=annotators_in_window,
        judgements_per_hour=rate,
        hours_to_finish=to_finish,
        finish_at=now + timedelta(hours=to_finish) if to_finish is not None else None,
        median_seconds_on_task=median,
        timed_judgements=len(seconds_on_task),
        judgements_in_window_not_counted=judgements_in_window_not_counted,
        annotators_in_window_not_counted=annotators_in_window_not_counted,
    )
    return replace(progress, text=describe(progress))


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def minutes_text(minutes: float) -> str:
    return f"{round(minutes)} min"


def duration_text(hours: float) -> str:
    """A time to finish as people say it: "under a minute", "25 min", "3.5 h", "4.2 days"."""
    minutes = hours * 60
    if minutes < 1:
        return "under a minute"
    if minutes < 59.5:
        return minutes_text(minutes)
    if hours < 48:
        return f"{hours:,.1f} h"
    return f"{hours / 24:,.1f} days"


def describe(progress: Progress) -> dict[str, str]:
    """Each figure in words, its window and count said, ``unknown`` where there is no basis for it."""
    window = f"the last {minutes_text(progress.window_minutes)}"
    not_counted = ""
    if progress.judgements_in_window_not_counted:
        others = plural(progress.annotators_in_window_not_counted, "annotator")
        not_counted = (
            f" ({plural(progress.judgements_in_window_not_counted, 'judgement')} from {others} who can "
            "no longer judge, not counted)"
        )
    if progress.judgements_per_hour is None:
        rate = "unknown: no judgements yet"
    elif progress.judgements_in_window == 0:
        who = " by annotators who can still judge" if not_counted else ""
        rate = f"0 per hour: no judgements in {window}{who}{not_counted}"
    else:
        annotators = plural(progress.annotators_in_window, "annotator")
        judgements = plural(progress.judgements_in_window, "judgement")
        rate = (
            f"{progress.judgements_per_hour:,.1f} per hour: "
            f"{judgements} in {window}, from {annotators}{not_counted}"
        )
    if progress.median_seconds_on_task is None:
        on_task = "unknown: no judgement timed from the task being shown yet"
    else:
        on_task = (
            f"{progress.median_seconds_on_task:,.1f} s: the median of "
            f"{plural(progress.timed_judgements, 'judgement')}, from the task shown to the answer"
        )
    if progress.judgements_remaining == 0:
        forecast = "finished: no judgements left" if progress.items_total else "nothing to judge yet"
    elif progress.hours_to_finish is None:
        who = " by annotators who can still judge" if not_counted else ""
        forecast = (
            "unknown: no judgements yet"
            if progress.judgements_per_hour is None
            else f"unknown: no judgements in {window}{who}"
        )
    else:
        left = plural(progress.judgements_remaining, "judgement")
        forecast = (
            f"{duration_text(progress.hours_to_finish)}: {left} left "
            f"at {progress.judgements_per_hour:,.1f} per hour"
        )
    return {"rate": rate, "time_on_task": on_task, "forecast": forecast}


def task_counts(project: Project) -> dict[str, dict[str, int]]:
    """Per kind of task: how many (``total``), how many complete, and the judgements they need in
    all; one pass over the project's tasks for the page's counts and its progress alike."""
    rows = (
        project.tasks.order_by()  # the default order joins the project, for nothing here
        .values("kind")
        .annotate(
            total=Count("id"),
            complete=Count("id", filter=Q(completed=True)),
            needed=Sum("required_judgements"),
        )
    )
    return {
        row["kind"]: {"total": row["total"], "complete": row["complete"], "needed": row["needed"] or 0}
        for row in rows
    }


def project_progress_figures(
    project: Project, now: datetime | None = None, counts: dict[str, dict[str, int]] | None = None
) -> dict:
    """The project page's live numbers (``summarise_progress``) as a dict for the page and the API;
    ``counts``: the project's ``task_counts`` when the caller has them already."""
    now = now or timezone.now()
    counts = task_counts(project) if counts is None else counts
    items = counts.get(Task.Kind.ITEM, {"total": 0, "complete": 0, "needed": 0})
    judgements = Judgement.objects.of_items(project)
    overall = judgements.aggregate(done=Count("id"), first=Min("created_at"))
    since = now - rate_window(overall["first"], now)
    can_judge = eligible_memberships(project).values("annotator_id")
    recent = judgements.filter(created_at__gte=since, created_at__lte=now).aggregate(
        n=Count("id", filter=Q(annotator__in=can_judge)),
        annotators=Count("annotator", distinct=True, filter=Q(annotator__in=can_judge)),
        others=Count("id", filter=~Q(annotator__in=can_judge)),
        other_annotators=Count("annotator", distinct=True, filter=~Q(annotator__in=can_judge)),
    )
    timed = judgements.filter(seconds_on_task__isnull=False).values_list("seconds_on_task", flat=True)
    seconds = [value for value in timed.iterator() if value is not None]
    progress = summarise_progress(
        items_total=items["total"],
        items_complete=items["complete"],
        judgements_needed=items["needed"] or 0,
        judgements_done=overall["done"],
        first_judgement_at=overall["first"],
        judgements_in_window=recent["n"],
        annotators_in_window=recent["annotators"],
        seconds_on_task=seconds,
        now=now,
        judgements_in_window_not_counted=recent["others"],
        annotators_in_window_not_counted=recent["other_annotators"],
    )
    return progress.as_dict()


# -- series over time, for the charts ----------------------------------------------------------------


@dataclass(frozen=True)
class Timeline:
    """Judgements per bucket of time (an hour, or a day for longer campaigns), oldest first, every
    bucket from the first judgement's to the newest's, empty ones included."""

    unit: str  # "hour" or "day"
    starts: list[datetime]
    totals: list[int]
    # Each annotator's judgements so far at the end of each bucket.
    cumulative: dict[str, list[int]]


def timeline(hourly: Iterable[tuple[datetime, str, int]]) -> Timeline:
    """``hourly``: (hour it began, annotator, judgements in that hour) rows, in any order."""
    rows = list(hourly)
    if not rows:
        return Timeline("hour", [], [], {})
    first = min(hour for hour, _, _ in rows)
    last = max(hour for hour, _, _ in rows)
    hours = int((last - first).total_seconds() // 3600) + 1
    if hours <= MOST_HOURLY_BARS:
        unit, step = "hour", timedelta(hours=1)

        def bucket_of(moment: datetime) -> datetime:
            return moment
    else:
        unit, step = "day", timedelta(days=1)

        def bucket_of(moment: datetime) -> datetime:
            return moment.replace(hour=0, minute=0, second=0, microsecond=0)

    start = bucket_of(first)
    count = int((bucket_of(last) - start) / step) + 1
    starts = [start + step * index for index in range(count)]
    totals = [0] * count
    per_annotator: dict[str, list[int]] = {}
    for hour, annotator, n in rows:
        index = int((bucket_of(hour) - start) / step)
        totals[index] += n
        per_annotator.setdefault(annotator, [0] * count)[index] += n
    cumulative = {}
    for annotator, counts in per_annotator.items():
        running, total = [], 0
        for n in counts:
            total += n
            running.append(total)
        cumulative[annotator] = running
    return Timeline(unit, starts, totals, cumulative)


def bucket_label(moment: datetime, unit: str) -> str:
    return moment.strftime("%d %b %H:00" if unit == "hour" else "%d %b")


def timeline_charts(line: Timeline) -> dict[str, SafeString]:
    """The two SVG charts of the project page: judgements per hour (or day), and each annotator's
    judgements so far over the same buckets (the busiest ``NAMED_ANNOTATORS`` by name)."""
    if not line.starts:
        return {}
    labels = [bucket_label(start, line.unit) for start in line.starts]
    busiest = sorted(line.cumulative, key=lambda name: (-line.cumulative[name][-1], name))
    named = {name: line.cumulative[name] for name in busiest[:NAMED_ANNOTATORS]}
    others = [line.cumulative[name] for name in busiest[NAMED_ANNOTATORS:]]
    rate = charts.bar_chart(
        title=f"Judgements per {line.unit} (UTC)",
        labels=labels,
        values=line.totals,
        y_label=f"judgements per {line.unit}",
    )
    progress = charts.line_chart(
        title="Judgements by each annotator so far",
        labels=labels,
        series=named,
        background=others,
        background_label=f"{plural(len(others), 'other annotator')}" if others else "",
        y_label="judgements so far",
    )
    return {"rate": mark_safe(rate), "annotators": mark_safe(progress)}


def dashboard_charts(project: Project) -> dict[str, SafeString]:
    """The project page's charts over time, drawn as inline SVG (no script, nothing from elsewhere)."""
    rows = (
        Judgement.objects.of_items(project)
        .annotate(hour=TruncHour("created_at"))
        .values_list("hour", "annotator__username")
        .annotate(n=Count("id"))
        .order_by()
    )
    return timeline_charts(timeline(rows))
