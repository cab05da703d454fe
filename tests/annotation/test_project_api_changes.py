"""Projects over the API: changed (PATCH) and archived (DELETE) by their owner, and their judgements and
progress read with a token — not only in a browser session."""

from __future__ import annotations

import csv
import io
import json

from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from tests.annotation.factories import make_project


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def judge_one(project, annotator, label=1):
    submit_judgement(claim_next_task(project, annotator).pk, annotator, label)


def test_the_owner_changes_and_archives_a_project(researcher, annotators):
    project = make_project(researcher, annotators)
    url = reverse("project-detail", args=[project.pk])
    changed = api(researcher).patch(url, {"name": "Renamed", "assignments_per_task": 2}, format="json")
    assert changed.status_code == 200, changed.content
    project.refresh_from_db()
    assert (project.name, project.assignments_per_task) == ("Renamed", 2)
    assert api(researcher).patch(url, {"assignments_per_task": 0}, format="json").status_code == 400
    assert api(researcher).patch(url, {"colour": "red"}, format="json").status_code == 400
    archived = api(researcher).delete(url)
    assert archived.status_code == 204
    project.refresh_from_db()
    assert project.active is False and project.tasks.exists()  # archived, nothing deleted


def test_an_annotator_no_username_can_name_is_a_400_not_a_database_error(researcher, annotators):
    project = make_project(researcher, annotators)
    url = reverse("project-detail", args=[project.pk])
    for name in ("anno\x00tator1", "a" * 151):
        for body, form in (({"annotators": [name]}, "json"), ({"annotators": name}, "multipart")):
            refused = api(researcher).patch(url, body, format=form)
            assert refused.status_code == 400 and "no account has this username" in str(refused.json())
    kept = api(researcher).patch(
        url, {"annotators": ["annotator1", "annotator2", "annotator3"]}, format="json"
    )
    assert kept.status_code == 200, kept.content


def test_the_task_type_is_fixed_once_anything_is_judged(researcher, annotators):
    project = make_project(researcher, annotators)
    url = reverse("project-detail", args=[project.pk])
    judge_one(project, annotators[0])
    graded = {
        "levels": [{"value": 0, "label": "no"}, {"value": 1, "label": "partly"}, {"value": 2, "label": "yes"}]
    }
    body = {"task_type": Project.TaskType.GRADED_RELEVANCE, "config": graded}
    refused = api(researcher).patch(url, body, format="json")
    assert refused.status_code == 400 and "task_type" in refused.json()
    assert Project.objects.get(pk=project.pk).task_type == Project.TaskType.BINARY_RELEVANCE


def test_judgements_and_progress_with_a_token(researcher, annotators, outsider_researcher):
    project = make_project(researcher, annotators)
    judge_one(project, annotators[0], 1)
    judge_one(project, annotators[1], 0)
    client = api(researcher)
    url = reverse("project-judgements", args=[project.pk])
    lines = b"".join(client.get(url).streaming_content).decode().splitlines()
    assert [json.loads(line)["label"] for line in lines] == [1, 0]
    text = b"".join(client.get(url, {"as": "csv"}).streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [row["annotator"] for row in rows] == [annotators[0].username, annotators[1].username]
    assert client.get(reverse("project-judgements", args=[project.pk]), {"as": "xml"}).status_code == 400
    progress = client.get(reverse("project-progress-api", args=[project.pk]))
    assert progress.status_code == 200 and progress.json()["judgements_done"] == 2
    other = api(outsider_researcher)
    for name in ("project-judgements", "project-progress-api", "project-detail"):
        assert other.get(reverse(name, args=[project.pk])).status_code == 404
    assert other.delete(reverse("project-detail", args=[project.pk])).status_code == 404
