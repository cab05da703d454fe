"""The judging page's cached item counts follow every change that can move them."""

from __future__ import annotations

import pytest
from django.db.models import Count, Q

from annotation.items.counts import item_counts
from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Task
from evaluation.collection.flow import import_collection
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db(transaction=True)  # the cache is forgotten on commit


def counted(project) -> tuple[int, int]:
    found = Task.objects.filter(project=project, kind=Task.Kind.ITEM).aggregate(
        total=Count("id"), complete=Count("id", filter=Q(completed=True))
    )
    return found["total"], found["complete"]


def test_counts_follow_imports_at_once_and_completions_within_the_timeout(researcher, annotators):
    from django.core.cache import cache

    project = make_project(researcher, annotators, k=1)
    assert item_counts(project.pk) == counted(project) == (counted(project)[0], 0)
    for _ in range(3):
        lease = claim_next_task(project, annotators[0])
        submit_judgement(lease.pk, annotators[0], 1)
        # A completion does not move the counter at once: it would tell items from gold items.
        assert item_counts(project.pk)[1] == 0
    cache.clear()  # the timeout passing
    assert item_counts(project.pk) == counted(project)
    assert item_counts(project.pk)[1] == 3
    import_collection(
        project,
        topics=[{"id": "900", "title": "new"}],
        documents=[{"id": "n1", "text": "new document"}],
        items=[{"topic": "900", "document": "n1"}],
    )
    assert item_counts(project.pk) == counted(project)


def test_cached_counts_are_served_without_a_query(researcher, annotators, django_assert_num_queries):
    project = make_project(researcher, annotators, k=1)
    expected = item_counts(project.pk)
    with django_assert_num_queries(0):
        assert item_counts(project.pk) == expected


def test_the_qualification_flag_follows_an_import_of_qualification_items(researcher, annotators):
    from annotation.items.counts import has_qualification_items
    from annotation.judging.assignment import work_refusal

    project = make_project(researcher, annotators, k=1)
    assert has_qualification_items(project.pk) is False
    assert work_refusal(project, annotators[0]) is None
    import_collection(
        project,
        topics=[],
        documents=[{"id": "q1", "text": "a qualification question"}],
        qualification=[{"topic": "401", "document": "q1", "answer": {"label": 1}}],
    )
    assert has_qualification_items(project.pk) is True
    assert "qualification" in work_refusal(project, annotators[0])
