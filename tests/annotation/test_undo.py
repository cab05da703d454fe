"""Mistakes on the collecting side can be undone: unjudged topics and documents deleted (judged ones
refused, naming each), the project archived and unarchived, an abandoned lease released by hand;
each from a confirmation page that says what will go and from the API with a dry run, and each in
the project's history (page and API)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.judging.assignment import AssignmentError, claim_next_task, submit_judgement
from annotation.models import Assignment, Document, Project, ProjectEvent, QualificationAttempt, Task, Topic
from evaluation.collection.flow import import_collection
from tests.annotation.factories import make_project, project_form
from tests.stored_runs import run_lines

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def project(researcher, annotators):
    """Topics 401 and 402 pooled from runA and runB (k = 1), and topic 403 with document d7 added
    by mistake (403 × d7 is an item nobody judged)."""
    project = make_project(researcher, annotators, k=1, pool_depth=2)
    import_collection(
        project,
        topics=[{"id": "403", "title": "a topic imported by mistake"}],
        documents=[{"id": "d7", "text": "A document imported by mistake."}],
        items=[{"topic": "403", "document": "d7"}],
    )
    return project


def judge_first_item(project, annotator) -> Task:
    lease = claim_next_task(project, annotator)
    submit_judgement(lease.pk, annotator, 1)
    return lease.task


def test_an_unjudged_topic_is_deleted_from_its_confirmation_page_and_recorded(client, researcher, project):
    client.force_login(researcher)
    listed = client.get(reverse("topics-page", args=[project.pk])).content.decode()
    assert 'name="ids" value="403"' in listed
    confirm = client.get(reverse("topics-delete", args=[project.pk]) + "?ids=403")
    assert confirm.status_code == 200
    text = confirm.content.decode()
    assert "Delete 1 topic: 403 (a topic imported by mistake), with 1 item." in text
    assert "The runs&#x27; lines for them stay" in text
    assert Topic.objects.filter(project=project, external_id="403").exists()  # GET changes nothing
    done = client.post(reverse("topics-delete", args=[project.pk]), {"ids": ["403"]}, follow=True)
    assert "Done. Delete 1 topic: 403" in done.content.decode()
    assert not Topic.objects.filter(project=project, external_id="403").exists()
    assert not Task.objects.filter(project=project, topic__external_id="403").exists()
    event = ProjectEvent.objects.get(project=project)
    assert (event.action, event.actor, event.details["topics"]) == (
        "topics_deleted",
        researcher,
        [{"id": "403", "title": "a topic imported by mistake"}],
    )


def test_a_judged_topic_is_refused_naming_it_and_nothing_is_deleted(client, researcher, annotators, project):
    judged = judge_first_item(project, annotators[0])
    topic = judged.topic.external_id
    client.force_login(researcher)
    confirm = client.get(reverse("topics-delete", args=[project.pk]) + f"?ids=403&ids={topic}")
    assert f"topic &#x27;{topic}&#x27; has 1 judgement" in confirm.content.decode()
    assert "<button" not in confirm.content.decode().split('id="refusal"')[1].split("</main>")[0]
    refused = api(researcher).post(
        reverse("topics-delete-api", args=[project.pk]), {"ids": ["403", topic]}, format="json"
    )
    assert refused.status_code == 409
    assert f"topic '{topic}' has 1 judgement" in refused.json()["detail"][0]
    assert (
        Topic.objects.filter(project=project, external_id__in=["403", topic]).count() == 2
    )  # all or nothing
    unknown = api(researcher).post(
        reverse("topics-delete-api", args=[project.pk]), {"ids": ["999"]}, format="json"
    )
    assert unknown.status_code == 400 and "ids[0]: no topic '999'" in unknown.json()["detail"][0]
    refused_page = client.post(reverse("topics-delete", args=[project.pk]), {"ids": [topic]}, follow=True)
    assert "Nothing was changed: Judged topics cannot be deleted" in refused_page.content.decode()
    nothing_chosen = client.get(reverse("topics-delete", args=[project.pk])).content.decode()
    assert "no topic was chosen: tick the topics to delete" in nothing_chosen
    assert not ProjectEvent.objects.exists()


def test_documents_delete_with_their_items_and_the_runs_keep_their_lines(researcher, annotators, project):
    url = reverse("documents-delete-api", args=[project.pk])
    plan = api(researcher).post(url, {"ids": ["d7", "d6"], "dry_run": True}, format="json")
    assert plan.status_code == 200 and plan.json()["done"] is False
    assert plan.json()["details"]["tasks"] == {"item": 3}  # 403×d7, and 401×d6 and 402×d6
    assert Document.objects.filter(project=project, external_id="d6").exists()
    lines_before = [line for line in run_lines(project=project) if line[2] == "d6"]
    done = api(researcher).post(url, {"ids": ["d7", "d6"]}, format="json")
    assert done.status_code == 200 and done.json()["event"] is not None
    assert not Document.objects.filter(project=project, external_id__in=["d6", "d7"]).exists()
    assert [line for line in run_lines(project=project) if line[2] == "d6"] == lines_before != []
    judged = judge_first_item(project, annotators[0])
    refused = api(researcher).post(url, {"ids": [judged.document.external_id]}, format="json")
    assert refused.status_code == 409 and "has 1 judgement" in refused.json()["detail"][0]


def test_an_answered_qualification_question_counts_as_judged(researcher, annotators):
    project = Project.objects.create(name="Qualified", owner=researcher, assignments_per_task=1)
    import_collection(
        project,
        topics=[{"id": "1", "title": "t"}],
        documents=[{"id": "q1", "text": "a question"}],
        qualification=[{"topic": "1", "document": "q1", "answer": {"label": 1}}],
    )
    question = Task.objects.get(project=project, kind=Task.Kind.QUALIFICATION)
    QualificationAttempt.objects.create(
        project=project,
        annotator=annotators[0],
        answers={str(question.pk): {"label": 1}},
        correct=1,
        total=1,
        passed=True,
    )
    refused = api(researcher).post(
        reverse("topics-delete-api", args=[project.pk]), {"ids": ["1"]}, format="json"
    )
    assert refused.status_code == 409 and "topic '1' has 1 judgement" in refused.json()["detail"][0]


def test_archiving_stops_the_project_ends_its_leases_and_unarchiving_undoes_it(
    client, researcher, annotators, project
):
    lease = claim_next_task(project, annotators[0])
    client.force_login(researcher)
    confirm = client.get(reverse("project-archive", args=[project.pk])).content.decode()
    assert (
        "it stops serving tasks and leaves the home page of its 3 annotators; 1 lease held now ends"
        in confirm
    )
    assert "Nothing is deleted" in confirm
    client.post(reverse("project-archive", args=[project.pk]))
    project.refresh_from_db()
    assert not project.active
    lease.refresh_from_db()
    assert lease.status == Assignment.Status.EXPIRED
    assert Task.objects.get(pk=lease.task_id).slots_taken == 0
    with pytest.raises(AssignmentError, match="closed"):
        claim_next_task(project, annotators[1])
    client.force_login(annotators[1])
    assert "You are not annotating any project yet" in client.get(reverse("home")).content.decode()
    again = api(researcher).post(reverse("archive-api", args=[project.pk]), {}, format="json")
    assert again.status_code == 409 and "archived already" in again.json()["detail"][0]

    dry = api(researcher).post(reverse("unarchive-api", args=[project.pk]), {"dry_run": True}, format="json")
    assert (
        dry.json()["done"] is False
        and "serves tasks again to its 3 active annotators" in dry.json()["summary"]
    )
    assert (
        api(researcher).post(reverse("unarchive-api", args=[project.pk]), {}, format="json").status_code
        == 200
    )
    project.refresh_from_db()
    assert project.active and claim_next_task(project, annotators[1]) is not None
    assert [e.action for e in ProjectEvent.objects.filter(project=project)] == [
        "project_unarchived",
        "project_archived",
    ]


def test_archiving_by_delete_or_by_the_settings_is_recorded_too(client, researcher, annotators, project):
    assert api(researcher).delete(reverse("project-detail", args=[project.pk])).status_code == 204
    project.refresh_from_db()
    assert not project.active
    client.force_login(researcher)
    form = project_form(name=project.name, assignments_per_task="1", annotator_usernames="annotator1")
    client.post(reverse("project-settings", args=[project.pk]), form)
    project.refresh_from_db()
    assert project.active
    assert [(e.action, e.actor) for e in ProjectEvent.objects.filter(project=project)] == [
        ("project_unarchived", researcher),
        ("project_archived", researcher),
    ]


def test_an_abandoned_lease_is_released_by_hand_for_someone_else(client, researcher, annotators, project):
    lease = claim_next_task(project, annotators[0])
    client.force_login(researcher)
    page = client.get(reverse("project-page", args=[project.pk])).content.decode()
    release = reverse("lease-release", args=[project.pk, lease.pk])
    assert release in page and "annotator1" in page.split('id="leases"')[1]
    confirm = client.get(release).content.decode()
    assert "Release annotator1&#x27;s lease on “" in confirm and "goes back to the pool" in confirm
    client.post(release)
    lease.refresh_from_db()
    assert lease.status == Assignment.Status.EXPIRED
    assert Task.objects.get(pk=lease.task_id).slots_taken == 0
    # The item goes to someone else; its former holder never gets it again.
    assert claim_next_task(project, annotators[1]).task_id == lease.task_id
    assert claim_next_task(project, annotators[0]).task_id != lease.task_id
    with pytest.raises(AssignmentError):
        submit_judgement(lease.pk, annotators[0], 1)
    refused = api(researcher).post(
        reverse("lease-release-api", args=[project.pk, lease.pk]), {}, format="json"
    )
    assert refused.status_code == 409 and "nothing to release" in refused.json()["detail"][0]
    event = ProjectEvent.objects.get(project=project)
    assert event.action == "lease_released" and event.details["annotator"] == "annotator1"


def test_the_history_lists_every_change_newest_first_on_its_page_and_in_the_api(
    client, researcher, annotators, project
):
    lease = claim_next_task(project, annotators[0])
    assert (
        api(researcher).get(reverse("leases-api", args=[project.pk])).json()["results"][0]["annotator"]
        == "annotator1"
    )
    api(researcher).post(reverse("lease-release-api", args=[project.pk, lease.pk]), {}, format="json")
    api(researcher).post(reverse("topics-delete-api", args=[project.pk]), {"ids": ["403"]}, format="json")
    listed = api(researcher).get(reverse("events-api", args=[project.pk])).json()
    assert [row["action"] for row in listed["results"]] == ["topics_deleted", "lease_released"]
    assert listed["results"][0]["actor"] == "owner" and listed["results"][0]["summary"].startswith(
        "Delete 1 topic"
    )
    client.force_login(researcher)
    page = client.get(reverse("events-page", args=[project.pk])).content.decode()
    assert page.index("Topics deleted") < page.index("Lease released")
    # Only the owner: another researcher's request is a 404, an annotator's a 403.
    assert api(annotators[0]).get(reverse("events-api", args=[project.pk])).status_code == 403
