"""Each researcher page at size asks the database the same number of questions whatever the project's
size (issue 28, item 6): the item browser under each filter, an item's page, the adjudication queue, the
leaderboard, the project page and the Annotators page, counted on a campaign and on one three times as
large in items, runs, annotators and judgements. A count that grows with the project is a query per row
(an N+1) that a 1,000,000-item project would pay a million times."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.judging.assignment import RecordedJudgement, record_judgements
from annotation.models import Project, Task
from evaluation.collection.flow import import_collection
from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import embedded
from evaluation.scoring.jobs import request_evaluation

pytestmark = pytest.mark.django_db


def campaign(owner, django_user_model, size: int, capture) -> Project:
    """``size`` × 2 topics, × 10 documents, × 2 runs and 3 + ``size`` annotators; every pooled item
    judged by three of them (some disputed and referred to the researcher), a snapshot and an
    evaluation of every run."""
    rng = random.Random(size)
    project = Project.objects.create(
        name=f"size {size}",
        owner=owner,
        assignments_per_task=3,
        adjudication_rule=Project.AdjudicationRule.NOT_UNANIMOUS,
        adjudicated_by="researcher",
    )
    people = [django_user_model.objects.create_user(f"s{size}-a{i}") for i in range(3 + size)]
    project.annotators.set(people)
    topics = [{"id": f"{size}t{t}", "title": f"topic {t}"} for t in range(2 * size)]
    documents = [{"id": f"{size}d{i}", "text": f"text {i}"} for i in range(10 * size)]
    runs = [
        "\n".join(
            f"{topic['id']} Q0 {document['id']} {rank} {100 - rank} run{size}{r}"
            for topic in topics
            for rank, document in enumerate(rng.sample(documents, 5), start=1)
        )
        for r in range(2 * size)
    ]
    import_collection(project, topics=topics, documents=documents, runs=runs, pool_depth=3)
    items = list(Task.objects.filter(project=project, kind=Task.Kind.ITEM))
    record_judgements(
        project,
        [
            RecordedJudgement(task, person, int(rng.random() < 0.4))
            for task in items
            for person in rng.sample(people, 3)
        ],
    )
    snapshot = build_snapshot(project.pk)
    with capture(execute=True):
        request_evaluation(project, snapshot=snapshot)
    assert embedded.run_queued() == 1
    return project


def pages(project: Project) -> dict[str, str]:
    item = Task.objects.filter(project=project, kind=Task.Kind.ITEM).order_by("id").first()
    annotator = project.annotators.order_by("username").first()
    items = reverse("items-page", args=[project.pk])
    return {
        "item browser": items,
        "item browser, searched": f"{items}?q=text",
        "item browser, one topic": f"{items}?topic={project.topics.first().external_id}",
        "item browser, complete": f"{items}?status=complete",
        "item browser, disputed": f"{items}?disagreement=true",
        "item browser, gold": f"{items}?gold=true",
        "item browser, by an annotator": f"{items}?annotator={annotator.username}",
        "adjudication queue": f"{items}?adjudicated=pending",
        "an item's page": reverse("item-page", args=[project.pk, item.pk]),
        "leaderboard": reverse("leaderboard", args=[project.pk]),
        "project page": reverse("project-page", args=[project.pk]),
        "Annotators page": reverse("project-annotators", args=[project.pk]),
    }


def statements(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    # A filter the page refuses would show nothing and count nothing: each must be understood.
    assert b'class="error" role="alert"' not in response.content, url
    return len(queries)


def test_every_page_asks_as_many_questions_of_a_large_project_as_of_a_small_one(
    client, researcher, django_user_model, django_capture_on_commit_callbacks
):
    small = campaign(researcher, django_user_model, 1, django_capture_on_commit_callbacks)
    large = campaign(researcher, django_user_model, 3, django_capture_on_commit_callbacks)
    assert large.tasks.count() > 2 * small.tasks.count()
    client.force_login(researcher)
    small_pages, large_pages = pages(small), pages(large)
    for name in small_pages:
        statements(client, small_pages[name])  # caches warmed alike for both
        statements(client, large_pages[name])
    counts = {
        name: (statements(client, small_pages[name]), statements(client, large_pages[name]))
        for name in small_pages
    }
    grown = {name: pair for name, pair in counts.items() if pair[0] != pair[1]}
    assert not grown, f"statements (small, large) that grow with the project: {grown}"
