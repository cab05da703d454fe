"""Topics, documents, the pool and judgements as paginated, filtered API lists, and judgements made
elsewhere imported into a project: all or nothing, each problem named with its line."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Assignment, Judgement, JudgementRevision, Task
from evaluation.models import GroundTruthJob
from tests.annotation.factories import make_project
from tests.scoring.conftest import judge_everything
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(researcher, annotators):
    return make_project(researcher, annotators, k=3, pool_depth=2)


def get(user, name, project, **query):
    response = api(user).get(reverse(name, args=[project.pk]), query)
    assert response.status_code == 200, response.content
    return response.json()


def test_topics_and_documents_are_paged_and_filtered(researcher, project):
    topics = get(researcher, "topics-api", project)
    assert topics["count"] == 2 and [t["id"] for t in topics["results"]] == ["401", "402"]
    assert [t["id"] for t in get(researcher, "topics-api", project, q="GAS")["results"]] == ["402"]
    first = get(researcher, "documents-api", project, page_size=4)
    assert first["count"] == 6 and len(first["results"]) == 4 and first["next"]
    second = api(researcher).get(first["next"]).json()
    assert [d["id"] for d in first["results"] + second["results"]] == [f"d{i}" for i in range(1, 7)]
    assert get(researcher, "documents-api", project, id="d3")["results"][0]["text"] == "Text of document 3."
    assert get(researcher, "documents-api", project, q="document 5")["count"] == 1


def test_the_pool_lists_items_with_their_judgement_counts(researcher, annotators, project):
    pool = get(researcher, "pool-api", project)
    pairs = {(row["topic"], row["document"]) for row in pool["results"]}
    assert pairs == {("401", d) for d in ("d1", "d2", "d3", "d6")} | {("402", d) for d in ("d4", "d5", "d6")}
    assert all(row["judgements"] == 0 and row["completed"] is False for row in pool["results"])
    judge_everything(project, annotators)
    done = get(researcher, "pool-api", project, completed="true", topic="401")
    assert done["count"] == 4 and {row["judgements"] for row in done["results"]} == {3}
    assert (
        api(researcher).get(reverse("pool-api", args=[project.pk]), {"completed": "maybe"}).status_code == 400
    )


def test_judgements_are_listed_and_filtered(researcher, annotators, project):
    judge_everything(project, annotators)
    everything = get(researcher, "judgement-list-api", project, page_size=1000)
    assert everything["count"] == Judgement.objects.filter(project=project).count() == 21
    mine = get(researcher, "judgement-list-api", project, annotator="annotator1", topic="402")
    assert mine["count"] == 3 and {row["annotator"] for row in mine["results"]} == {"annotator1"}
    relevant = get(researcher, "judgement-list-api", project, label=1, document="d1")
    assert relevant["count"] == 2  # the dissenter said 0
    assert get(researcher, "judgement-list-api", project, since="2999-01-01T00:00:00Z")["count"] == 0


def test_lists_answer_only_the_owner(researcher, outsider_researcher, annotators, project):
    for name in ("topics-api", "documents-api", "pool-api", "judgement-list-api", "judgement-import-api"):
        url = reverse(name, args=[project.pk])
        assert api(outsider_researcher).get(url).status_code in {404, 405}, name
        assert api(annotators[0]).get(url).status_code == 403, name
        assert APIClient().get(url).status_code == 401, name


def post_judgements(researcher, project, judgements, **extra):
    return api(researcher).post(
        reverse("judgement-import-api", args=[project.pk]), {"judgements": judgements, **extra}, format="json"
    )


def test_judgements_made_elsewhere_are_imported(
    researcher, annotators, project, django_capture_on_commit_callbacks
):
    rows = [
        {"topic": "401", "document": "d1", "annotator": "annotator1", "label": 1, "seconds_spent": 12.5},
        {"topic": "401", "document": "d1", "annotator": "annotator2", "label": 0},
        {"topic": "401", "document": "d1", "annotator": "trec-assessor", "answer": {"label": 1}},
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = post_judgements(researcher, project, rows, create_annotators=True)
    assert response.status_code == 201, response.content
    assert response.json() == {"judgements_created": 3, "items": 1, "annotators": 3}
    item = Task.objects.get(project=project, topic__external_id="401", document__external_id="d1")
    assert item.completed and item.slots_taken == 3
    stored = Judgement.objects.filter(task=item).order_by("id")
    assert [(j.annotator.username, j.label) for j in stored] == [
        ("annotator1", 1),
        ("annotator2", 0),
        ("trec-assessor", 1),
    ]
    assert JudgementRevision.objects.filter(judgement__task=item).count() == 3
    assert Assignment.objects.filter(task=item, status=Assignment.Status.SUBMITTED).count() == 3
    assessor = stored.last().annotator
    assert not assessor.is_active and not assessor.has_usable_password()
    assert project.annotators.filter(pk=assessor.pk).exists()
    assert GroundTruthJob.objects.filter(project=project).exists()  # a new ground truth follows
    download = api(researcher).get(reverse("project-judgements", args=[project.pk]), {"as": "csv"})
    assert b"trec-assessor" in b"".join(download.streaming_content)


@pytest.mark.parametrize(
    ("row", "field", "words"),
    [
        (
            {"topic": "401", "document": "d9", "annotator": "annotator1", "label": 1},
            "judgements[1].document",
            "no item",
        ),
        (
            {"topic": "401", "document": "d2", "annotator": "annotator1", "label": 7},
            "judgements[1].label",
            "",
        ),
        (
            {"topic": "401", "document": "d2", "annotator": "nobody", "label": 1},
            "judgements[1].annotator",
            "nobody",
        ),
        (
            {"topic": "401", "document": "d1", "annotator": "annotator1", "label": 0},
            "judgements[1]",
            "already",
        ),
        (
            {"topic": "401", "document": "d2", "annotator": "annotator1", "lable": 1},
            "judgements[1].lable",
            "unknown",
        ),
        ({"task": 10**9, "annotator": "annotator1", "label": 1}, "judgements[1].task", "no item"),
    ],
)
def test_a_bad_line_is_named_and_nothing_is_imported(researcher, project, row, field, words):
    good = {"topic": "401", "document": "d1", "annotator": "annotator1", "label": 1}
    response = post_judgements(researcher, project, [good, row])
    assert response.status_code == 400 and field in response.json(), response.json()
    assert words in " ".join(response.json()[field])
    assert not Judgement.objects.filter(project=project).exists()
    assert not Task.objects.filter(project=project, slots_taken__gt=0).exists()


def test_more_judgements_than_k_or_a_strange_body_are_refused(researcher, project):
    four = [{"topic": "401", "document": "d1", "annotator": f"a{i}", "label": 1} for i in range(4)]
    response = post_judgements(researcher, project, four, create_annotators=True)
    assert response.status_code == 400 and "judgements[3]" in response.json()
    assert "than its 3 judgements" in response.json()["judgements[3]"][0]
    assert post_judgements(researcher, project, []).status_code == 400
    strange = api(researcher).post(
        reverse("judgement-import-api", args=[project.pk]), {"judgementz": []}, format="json"
    )
    assert strange.status_code == 400 and "judgementz" in strange.json()
    assert not Judgement.objects.filter(project=project).exists()


@pytest.mark.parametrize(
    "query", [{"task": "1.9"}, {"label": str(2**40)}, {"task": "-1"}, {"since": "yesterday"}]
)
def test_a_bad_filter_value_is_a_400_naming_it(researcher, project, query):
    """Found by schemathesis: ``task=1.9`` reached the database as a decimal (a 500)."""
    response = api(researcher).get(reverse("judgement-list-api", args=[project.pk]), query)
    assert response.status_code == 400 and list(response.json()) == list(query)


def test_the_api_is_versioned_by_media_type(researcher, project):
    url = reverse("topics-api", args=[project.pk])
    assert api(researcher).get(url, HTTP_ACCEPT="application/json; version=1").status_code == 200
    assert api(researcher).get(url).status_code == 200  # no version asked: version 1
    refused = api(researcher).get(url, HTTP_ACCEPT="application/json; version=2")
    assert refused.status_code == 406 and "version" in refused.json()["detail"].lower()


def test_every_download_answers_the_media_type_its_schema_names(researcher, scored):
    """Found by the client written from the OpenAPI document: ``Accept: application/zip`` on the
    bundle (and text/plain on qrels, text/csv on judgements…) was a 406, though the schema says the
    operation answers it. Asked by Accept alone, a download comes in that type; an error is JSON."""
    project, evaluation = scored.project, scored
    snapshot = evaluation.snapshot
    run = project.runs.first()
    cases = [
        (reverse("bundle-api", args=[project.pk]), "application/zip", b"PK"),
        (reverse("project-judgements", args=[project.pk]), "text/csv", b"judgement_id,"),
        (reverse("project-judgements", args=[project.pk]), "application/x-ndjson", b"{"),
        (reverse("snapshot-qrels-api", args=[project.pk, snapshot.version]), "text/plain", b""),
        (reverse("run-trec-api", args=[project.pk, run.pk]), "text/plain", b""),
        (reverse("leaderboard-api", args=[project.pk, evaluation.pk]), "text/csv", b"rank,run,"),
        (reverse("leaderboard-api", args=[project.pk, evaluation.pk]), "text/plain", b""),
    ]
    for url, media_type, start in cases:
        response = api(researcher).get(url, HTTP_ACCEPT=media_type)
        assert response.status_code == 200, (url, media_type, response.content[:200])
        assert response["Content-Type"].startswith(media_type), (url, response["Content-Type"])
        body = b"".join(response.streaming_content) if response.streaming else response.content
        assert body.startswith(start), (url, body[:80])
    trec = api(researcher).get(
        reverse("leaderboard-api", args=[project.pk, evaluation.pk]), HTTP_ACCEPT="text/plain"
    )
    assert trec.content.split(b"\n")[0].split()[0] in {b"runid", b"num_q", b"map"}, trec.content[:200]
    missing = api(researcher).get(
        reverse("bundle-api", args=[project.pk + 999]), HTTP_ACCEPT="application/zip"
    )
    assert missing.status_code == 404 and missing["Content-Type"] == "application/json"
    assert "detail" in missing.json()
