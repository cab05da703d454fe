"""Live progress of a project: throughput, time per judgement and the work left.

``summarise_progress`` is pure arithmetic on plain values; ``project_progress_figures`` reads them."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.db.models import Count, Q, Sum
from django.utils import timezone

from .models import Judgement, Project, Task

RECENT = timedelta(hours=1)


@dataclass(frozen=True)
class Progress:
    items_total: int
    items_complete: int
    judgements_done: int
    judgements_remaining: int
    judgements_last_hour: int
    judgements_per_hour: float | None  # over the last hour if any arrived, else since the first
    median_seconds_per_judgement: float | None
    hours_to_finish: float | None  # at the current rate
    annotator_hours_remaining: float | None  # remaining judgements × median time each

    @property
    def percent_complete(self) -> float:
        return 100 * self.items_complete / self.items_total if self.items_total else 0.0

    def as_dict(self) -> dict:
        return asdict(self) | {"percent_complete": self.percent_complete}


def summarise_progress(
    *,
    items_total: int,
    items_complete: int,
    judgements_needed: int,
    judgement_times: Sequence[datetime],
    seconds_spent: Sequence[float],
    now: datetime,
) -> Progress:
    """Summarise a project's progress.

    ``judgements_needed`` is k summed over the items; ``judgement_times`` are when each item
    judgement was first submitted; ``seconds_spent`` the time each took (lease to submission).
    The rate is the last hour's when judgements arrived in it (what a researcher watching the
    page wants), else the average since the first judgement; the estimate is remaining / rate.
    """
    done = len(judgement_times)
    remaining = max(0, judgements_needed - done)
    last_hour = sum(1 for moment in judgement_times if now - moment <= RECENT)
    rate: float | None = None
    if last_hour:
        rate = float(last_hour)
    elif done:
        elapsed_hours = max((now - min(judgement_times)).total_seconds() / 3600, 1 / 60)
        rate = done / elapsed_hours
    median = statistics.median(seconds_spent) if seconds_spent else None
    return Progress(
        items_total=items_total,
        items_complete=items_complete,
        judgements_done=done,
        judgements_remaining=remaining,
        judgements_last_hour=last_hour,
        judgements_per_hour=rate,
        median_seconds_per_judgement=median,
        hours_to_finish=(remaining / rate) if rate else (0.0 if remaining == 0 else None),
        annotator_hours_remaining=(remaining * median / 3600) if median is not None else None,
    )


def project_progress_figures(project: Project) -> dict:
    """The project page's live numbers: items, judgements, rates and the forecast (``summarise_progress``)."""
    items = project.tasks.filter(kind=Task.Kind.ITEM).aggregate(
        total=Count("id"), complete=Count("id", filter=Q(completed=True)), needed=Sum("required_judgements")
    )
    judgements = Judgement.objects.filter(task__project=project, task__kind=Task.Kind.ITEM)
    times, seconds = [], []
    for created_at, spent in judgements.values_list("created_at", "seconds_spent").iterator():
        times.append(created_at)
        if spent is not None:
            seconds.append(spent)
    progress = summarise_progress(
        items_total=items["total"],
        items_complete=items["complete"],
        judgements_needed=items["needed"] or 0,
        judgement_times=times,
        seconds_spent=seconds,
        now=timezone.now(),
    )
    return progress.as_dict()
