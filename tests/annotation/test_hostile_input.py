"""Careless and hostile input is a 400 naming the field, never a 500 or a silent success (issue 14's
cases that concern the import and project API, the Import page and the judgement download)."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotation.models import Project, Topic
from evaluation.collection.flow import import_collection
from evaluation.models import Run
from tests.annotation.test_import_api import client_for, import_url

pytestmark = pytest.mark.django_db

TOPIC = {"id": "1", "title": "gas flow"}
DOCUMENT = {"id": "d1", "text": "a text"}


@pytest.fixture
def project(researcher):
    return Project.objects.create(name="P", owner=researcher, assignments_per_task=1)


def post(researcher, project, body):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(researcher)
    return client.post(import_url(project), body, format="json")


def test_a_misspelt_key_is_named_not_ignored(researcher, project):
    response = post(researcher, project, {"topics": [{"id": "1", "titel": "x", "title": "y"}]})
    assert response.status_code == 400
    assert "topics[0].titel" in response.json()
    response = post(researcher, project, {"topcs": [TOPIC], "pool_dept": 5})
    assert response.status_code == 400 and {"topcs", "pool_dept"} <= set(response.json())
    assert not Topic.objects.exists()


def test_an_empty_import_is_refused_with_the_reason(researcher, project):
    response = post(researcher, project, {})
    assert response.status_code == 400
    assert "nothing to import" in response.json()["non_field_errors"][0]


@pytest.mark.parametrize("encoding", ["form", "multipart"])
def test_a_body_that_is_not_json_is_refused(researcher, project, encoding):
    client = client_for(researcher)
    if encoding == "form":
        response = client.post(
            import_url(project), "topics=x", content_type="application/x-www-form-urlencoded"
        )
    else:
        response = client.post(import_url(project), {"topics": "x"}, format="multipart")
    assert response.status_code == 415
    assert not Topic.objects.exists()


def test_numbers_beyond_the_database_are_a_400(researcher, project):
    response = post(researcher, project, {"topics": [TOPIC], "documents": [DOCUMENT], "pool_depth": 2**31})
    assert response.status_code == 400 and "pool_depth" in response.json()
    tag = "t" * 201
    run = f"1 Q0 d1 1 1.0 {tag}\n"
    response = post(researcher, project, {"topics": [TOPIC], "documents": [DOCUMENT], "runs": [run]})
    assert response.status_code == 400 and "at most 200 characters" in response.json()["runs[0]"][0]
    assert not Run.objects.exists()


def test_json_nested_thousands_deep_is_a_400_on_the_api_and_the_page(client, researcher, project):
    deep = "[" * 5000 + "]" * 5000
    api = client_for(researcher).post(import_url(project), deep, content_type="application/json")
    assert api.status_code == 400 and "nested" in api.json()["detail"]
    client.force_login(researcher)
    page = client.post(reverse("project-import", args=[project.pk]), {"body": deep})
    assert page.status_code == 200 and "nested more than" in page.content.decode()


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"assignments_per_task": 0}, "assignments_per_task"),
        ({"config": ["levels"]}, "config"),
        (
            {"task_type": "graded_relevance", "config": {"levels": [{"value": 0}, {"value": 40000}]}},
            "config",
        ),
        ({"name": "P", "colour": "red"}, "colour"),
    ],
)
def test_project_settings_the_database_cannot_hold_are_a_400(researcher, bad, field):
    body = {"name": "P", **bad}
    response = client_for(researcher).post("/api/projects/", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert not Project.objects.exists()


@pytest.mark.parametrize("bad_id", ["two words", "line\nbreak", "zero\u200bwidth", "tab\there", ""])
def test_ids_with_whitespace_or_invisible_characters_are_refused(researcher, project, bad_id):
    response = post(researcher, project, {"topics": [{"id": bad_id, "title": "t"}]})
    assert response.status_code == 400
    assert "topics[0].id" in response.json()


def test_two_spellings_of_one_id_are_one_id(researcher, project):
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    assert post(researcher, project, {"topics": [{"id": composed, "title": "t"}]}).status_code == 201
    response = post(researcher, project, {"topics": [{"id": decomposed, "title": "t"}]})
    assert response.status_code == 400 and "already exists" in response.json()["topics[0].id"][0]
    run = f"{decomposed} Q0 d1 1 1.0 sys\n"
    response = post(researcher, project, {"documents": [DOCUMENT], "runs": [run], "pool_depth": 1})
    assert response.status_code == 201, response.content  # the run's NFD topic id meets the NFC one


def test_the_judgement_download_escapes_what_a_spreadsheet_would_run(client, researcher, django_user_model):
    from annotation.judging.assignment import claim_next_task, submit_judgement

    project = Project.objects.create(name="P", owner=researcher, assignments_per_task=1)
    annotator = django_user_model.objects.create_user("=HYPERLINK(1)", password="x")
    project.annotators.set([annotator])
    import_collection(
        project,
        topics=[{"id": "+1+1", "title": "t"}],
        documents=[{"id": "-2+3", "text": "x"}],
        items=[{"topic": "+1+1", "document": "-2+3"}],
    )
    submit_judgement(claim_next_task(project, annotator).pk, annotator, 1)
    client.force_login(researcher)
    response = client.get(reverse("judgements-download", args=[project.pk, "csv"]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert (rows[0]["annotator"], rows[0]["topic"], rows[0]["document"]) == (
        "'=HYPERLINK(1)",
        "'+1+1",
        "'-2+3",
    )
    assert rows[0]["label"] == "1"


def test_the_api_docs_load_nothing_from_another_site(client, researcher):
    client.force_login(researcher)
    page = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in page
    assert "cdn." not in page and "https://" not in page.replace("https://swagger.io", "")


@pytest.mark.parametrize("password", ["12345678", "password1"])
def test_numeric_and_common_passwords_are_refused(password):
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        validate_password(password)
