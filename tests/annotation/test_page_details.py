"""What the judging and queue pages show, the admin for every model, and the database's own guards."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.db import IntegrityError, transaction
from django.urls import reverse

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Assignment, Judgement, Project, Task
from evaluation.collection.flow import import_collection
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db


def relevance_project(owner, annotators, **settings) -> Project:
    project = Project.objects.create(name="Heat", owner=owner, assignments_per_task=2, **settings)
    project.annotators.set(annotators)
    import_collection(
        project,
        topics=[{"id": "1", "title": "Heat transfer in a composite slab"}],
        documents=[{"id": "d1", "text": "Transient heat flow through a composite slab, measured."}],
        items=[{"topic": "1", "document": "d1"}],
    )
    return project


def judge_page(client, project, user) -> str:
    client.force_login(user)
    assert claim_next_task(project, user) is not None
    response = client.get(reverse("judge", args=[project.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_query_terms_are_marked_in_the_document(client, researcher, annotators):
    page = judge_page(client, relevance_project(researcher, annotators), annotators[0])
    assert "<mark>heat</mark>" in page  # case-insensitive: "Heat" in the topic
    assert "<mark>composite</mark> <mark>slab</mark>" in page
    assert "<mark>measured</mark>" not in page and "<mark>a</mark>" not in page


def test_the_page_shows_the_time_on_the_task_since_it_was_first_shown(client, researcher, annotators):
    project = relevance_project(researcher, annotators)
    page = judge_page(client, project, annotators[0])
    lease = Assignment.objects.get(task__project=project, annotator=annotators[0])
    # The page stamped when it first showed the task; the counter starts there, not at the lease.
    assert lease.shown_at is not None and lease.shown_at >= lease.created_at
    assert 'id="elapsed" data-seconds="0"' in page


def test_examples_are_shown_sanitised_even_without_instructions(client, researcher, annotators):
    examples = "**Relevant**: a document on slab heating.<script>alert(1)</script>"
    project = relevance_project(researcher, annotators, examples=examples)
    page = judge_page(client, project, annotators[0])
    assert "<h2>Examples</h2>" in page
    assert "<strong>Relevant</strong>" in page
    assert "<script>alert(1)" not in page


def test_a_required_rationale_has_its_box_and_is_enforced(client, researcher, annotators):
    project = relevance_project(researcher, annotators, config={"rationale_required": True})
    page = judge_page(client, project, annotators[0])
    assert 'name="rationale"' in page and "Why? (required)" in page
    lease = Assignment.objects.get(task__project=project, annotator=annotators[0])
    url = reverse("submit", args=[project.pk, lease.pk])
    response = client.post(url, {"label": "1", "rationale": " "}, follow=True)
    assert "rationale" in response.content.decode()
    assert not Judgement.objects.exists()
    client.post(url, {"label": "1", "rationale": "It is about slab heating."})
    assert Judgement.objects.get().answer == {"label": 1, "rationale": "It is about slab heating."}


def test_the_queue_shows_each_projects_progress_and_ones_own_count(client, researcher, annotators):
    project = make_project(researcher, annotators, k=1)
    total = Task.objects.filter(project=project, kind=Task.Kind.ITEM).count()
    for _ in range(2):
        lease = claim_next_task(project, annotators[0])
        submit_judgement(lease.pk, annotators[0], 1)
    client.force_login(annotators[0])
    page = client.get(reverse("home")).content.decode()
    assert f"<td>{project.name}</td><td>2</td>" in page
    assert f"2 of {total} items" in page
    client.force_login(annotators[1])
    page = client.get(reverse("home")).content.decode()
    assert f"<td>{project.name}</td><td>0</td>" in page and f"2 of {total} items" in page


def test_the_admin_opens_every_registered_model(client, django_user_model, researcher, annotators):
    project = make_project(researcher, annotators, k=1)
    lease = claim_next_task(project, annotators[0])
    submit_judgement(lease.pk, annotators[0], 1)
    client.force_login(django_user_model.objects.create_superuser("root", password="root-password"))
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        assert client.get(reverse("admin:{}_{}_changelist".format(*info))).status_code == 200, info
        row = model.objects.first()
        if row is not None:
            change = reverse("admin:{}_{}_change".format(*info), args=[row.pk])
            assert client.get(change).status_code == 200, info
    registered = {model._meta.model_name for model in admin.site._registry}
    assert {"project", "task", "assignment", "judgement", "rankedlist", "groundtruthsnapshot"} <= registered


def test_the_database_refuses_a_second_judgement_or_lease_and_more_than_k_slots(researcher, annotators):
    project = make_project(researcher, annotators, k=1)
    lease = claim_next_task(project, annotators[0])
    submit_judgement(lease.pk, annotators[0], 1)
    task = lease.task
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(task=task, annotator=annotators[0], expires_at=lease.expires_at)
    other = Assignment.objects.create(
        task=Task.objects.exclude(pk=task.pk).filter(kind=Task.Kind.ITEM).first(),
        annotator=annotators[0],
        expires_at=lease.expires_at,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgement.objects.create(
            project=project,
            task=task,
            annotator=annotators[0],
            assignment=other,
            label=0,
            answer={"label": 0},
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        Task.objects.filter(pk=task.pk).update(slots_taken=2)  # k = 1
