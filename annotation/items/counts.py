"""Facts about a project's tasks that every annotator request needs, cached between changes.

Item counts: counting a project's items is a scan of its tasks (2 ms at 2,000 items, far more at
100,000), and every judging page shows them. Whether it has a qualification test: asked by every
claim and submission. An import forgets the cached facts after it commits; a completed item does
not (the counter would then move right after an item's submission but not after a gold item's,
telling annotators which was which): the count catches up within ``ITEM_COUNTS_SECONDS``, as it
does after anything else (an edit in the admin).
"""

from __future__ import annotations

from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, Q

from annotation.models import Task

ITEM_COUNTS_SECONDS = 30


def _counts_key(project_id: int) -> str:
    return f"project-item-counts:{project_id}"


def _qualification_key(project_id: int) -> str:
    return f"project-has-qualification:{project_id}"


def item_counts(project_id: int) -> tuple[int, int]:
    """(items, items complete) of the project, from the cache when it has them."""
    counts = cache.get(_counts_key(project_id))
    if counts is None:
        found = Task.objects.filter(project_id=project_id, kind=Task.Kind.ITEM).aggregate(
            total=Count("id"), complete=Count("id", filter=Q(completed=True))
        )
        counts = (found["total"], found["complete"])
        cache.set(_counts_key(project_id), counts, ITEM_COUNTS_SECONDS)
    return tuple(counts)


def has_qualification_items(project_id: int) -> bool:
    found = cache.get(_qualification_key(project_id))
    if found is None:
        found = Task.objects.filter(project_id=project_id, kind=Task.Kind.QUALIFICATION).exists()
        cache.set(_qualification_key(project_id), found, ITEM_COUNTS_SECONDS)
    return found


def forget_task_facts(project_id: int) -> None:
    """Drop the cached facts once the current transaction commits (at once outside one)."""
    keys = [_counts_key(project_id), _qualification_key(project_id)]
    transaction.on_commit(lambda: cache.delete_many(keys))
