"""POST /api/projects/{id}/import/: token auth, pooling into tasks, all-or-nothing errors."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Document, Project, Task, Topic
from evaluation.models import Run
from tests.annotation.factories import DOCUMENTS, RUN_A, RUN_B, TOPICS
from tests.stored_runs import run_lines

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


@pytest.fixture
def project(researcher):
    return Project.objects.create(name="P", owner=researcher, assignments_per_task=3)


def import_url(project) -> str:
    return f"/api/projects/{project.pk}/import/"


def test_it_creates_topics_documents_runs_and_pooled_tasks(researcher, project):
    response = client_for(researcher).post(
        import_url(project),
        {"topics": TOPICS, "documents": DOCUMENTS, "runs": [RUN_A, RUN_B], "pool_depth": 2},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json() == {
        "topics_created": 2,
        "documents_created": 6,
        "runs_created": 2,
        "tasks_created": 7,
        "tasks_total": 7,
        "gold_created": 0,
        "qualification_created": 0,
        "attention_checks_created": 0,
        "references_created": 0,
        "qrels_created": 0,
        "prior_created": 0,
        "prior_judged": 0,
        "prior_skipped": 0,
        "judgements_saved": 0,
        "dry_run": False,
        "judging_order": {},
    }
    pooled = {(t.topic.external_id, t.document.external_id): t.pool_rank for t in Task.objects.all()}
    # Depth-2 pool: runA {401: d1, d2; 402: d4, d5}, runB {401: d3, d6; 402: d6}; best rank kept.
    assert pooled == {
        ("401", "d1"): 1,
        ("401", "d2"): 2,
        ("401", "d3"): 1,
        ("401", "d6"): 2,
        ("402", "d4"): 1,
        ("402", "d5"): 2,
        ("402", "d6"): 1,
    }
    assert all(t.required_judgements == 3 for t in Task.objects.all())
    assert len(run_lines(tag="runA")) == 5


def test_it_ranks_run_lines_by_score_not_by_the_rank_column(researcher, project):
    run = "401 Q0 d1 1 1.0 r\n401 Q0 d2 2 5.0 r\n401 Q0 d3 3 5.0 r\n"
    response = client_for(researcher).post(
        import_url(project),
        {"topics": TOPICS, "documents": DOCUMENTS, "runs": [run], "pool_depth": 2},
        format="json",
    )
    assert response.status_code == 201
    # trec_eval order: score descending, ties by docid descending → d3, d2, d1.
    assert [(line[2], line[3]) for line in run_lines()] == [("d3", 1), ("d2", 2), ("d1", 3)]
    assert set(Task.objects.values_list("document__external_id", flat=True)) == {"d3", "d2"}


def test_a_malformed_run_line_is_a_400_naming_the_run_and_line_and_nothing_is_stored(researcher, project):
    bad_run = "401 Q0 d1 1 9.0 r\n401 Q0 d2 2 not-a-number r\n"
    response = client_for(researcher).post(
        import_url(project), {"topics": TOPICS, "documents": DOCUMENTS, "runs": [bad_run]}, format="json"
    )
    assert response.status_code == 400
    message = response.json()["runs[0]"][0]
    assert "line 2" in message
    assert "score" in message.lower()
    assert (
        Topic.objects.count() == Document.objects.count() == Run.objects.count() == Task.objects.count() == 0
    )


def test_a_run_naming_an_unknown_document_is_rejected_whole(researcher, project):
    response = client_for(researcher).post(
        import_url(project),
        {"topics": TOPICS, "documents": DOCUMENTS, "runs": [RUN_A, "401 Q0 nope 1 1.0 r"]},
        format="json",
    )
    assert response.status_code == 400
    assert "'nope'" in response.json()["runs[1]"][0]
    assert Topic.objects.count() == Run.objects.count() == 0


def test_a_missing_field_is_a_400_naming_it(researcher, project):
    response = client_for(researcher).post(
        import_url(project), {"topics": [{"id": "1"}], "documents": []}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"topics[0].title": ["This field is required."]}


def test_a_duplicate_id_is_a_400_naming_the_item(researcher, project):
    response = client_for(researcher).post(
        import_url(project), {"topics": [TOPICS[0], TOPICS[0]], "documents": []}, format="json"
    )
    assert response.status_code == 400
    assert "appears twice" in response.json()["topics[1].id"][0]


def test_it_requires_authentication(project):
    response = APIClient().post(import_url(project), {}, format="json")
    assert response.status_code == 401


def test_it_hides_other_researchers_projects(outsider_researcher, project):
    response = client_for(outsider_researcher).post(
        import_url(project), {"topics": TOPICS, "documents": DOCUMENTS}, format="json"
    )
    assert response.status_code == 404
    assert Topic.objects.count() == 0


def test_annotators_may_not_import(annotators, project):
    response = client_for(annotators[0]).post(import_url(project), {"topics": TOPICS}, format="json")
    assert response.status_code == 403


def test_a_researcher_lists_only_their_own_projects(researcher, outsider_researcher, project):
    Project.objects.create(name="Theirs", owner=outsider_researcher)
    names = [p["name"] for p in client_for(researcher).get("/api/projects/").json()["results"]]
    assert names == ["P"]


def test_a_researcher_creates_a_project_with_annotators(researcher, annotators):
    response = client_for(researcher).post(
        "/api/projects/",
        {"name": "New", "assignments_per_task": 2, "annotators": ["annotator1", "annotator2"]},
        format="json",
    )
    assert response.status_code == 201, response.content
    project = Project.objects.get(name="New")
    assert project.owner == researcher
    assert project.assignments_per_task == 2
    assert sorted(project.annotators.values_list("username", flat=True)) == ["annotator1", "annotator2"]


def test_the_openapi_schema_is_served_and_documents_the_import(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert "post" in schema["paths"]["/api/projects/{project_pk}/import/"]


def test_the_openapi_schema_generates_without_warnings(tmp_path):
    from django.core.management import call_command

    call_command("spectacular", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert "/api/projects/{project_pk}/ground-truth/" in (tmp_path / "schema.yaml").read_text()
