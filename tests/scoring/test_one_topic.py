"""A pilot with one topic (issue 27: its leaderboard answered 500, "a paired test needs at least two
topics"): the page, the API in every form and with every test, the downloads and its bundle all answer,
showing the scores and why there is no interval and no test."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.jobs import embedded
from evaluation.scoring.jobs import request_evaluation
from tests.annotation.factories import DOCUMENTS, RUN_A, RUN_B, TOPICS
from tests.scoring.test_import_jobs_and_bundles import bundle_of, import_bundle
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db


@pytest.fixture
def one_topic(researcher, annotators, django_capture_on_commit_callbacks):
    project = Project.objects.create(name="Pilot", owner=researcher, assignments_per_task=1)
    project.annotators.set(annotators)
    runs = ["\n".join(line for line in run.splitlines() if line.startswith("401 ")) for run in (RUN_A, RUN_B)]
    import_collection(project, topics=TOPICS[:1], documents=DOCUMENTS, runs=runs, pool_depth=2)
    official = project.external_qrels.create(
        name="official", judgements={"401": {"d1": 1, "d2": 0, "d3": 1}}, judged_count=3, relevant_count=2
    )
    with django_capture_on_commit_callbacks(execute=True):
        evaluation = request_evaluation(project, external_qrels=official)
    embedded.run_queued()
    evaluation.refresh_from_db()
    assert evaluation.status == "done", evaluation.error
    return evaluation


def test_a_one_topic_leaderboard_shows_its_scores_and_why_there_is_no_test(client, researcher, one_topic):
    project = one_topic.project
    client.force_login(researcher)
    page = client.get(reverse("leaderboard", args=[project.pk]), {"evaluation": one_topic.pk})
    assert page.status_code == 200
    text = page.content.decode()
    assert "runA" in text and "runB" in text
    assert "too few topics for a significance test (1; needs at least 10)" in text

    for test in ("t", "wilcoxon", "bootstrap", "randomisation"):
        response = api(researcher).get(
            reverse("leaderboard-api", args=[project.pk, one_topic.pk]), {"test": test}
        )
        assert response.status_code == 200, (test, response.content)
        significance = response.json()["significance"]
        assert significance["reason"].startswith("too few topics for a significance test (1"), significance
    for fmt in ("csv", "json", "txt"):
        download = client.get(reverse("leaderboard-download", args=[project.pk, one_topic.pk, fmt]))
        assert download.status_code == 200, (fmt, download.content[:300])
        assert b"runA" in b"".join(download) if download.streaming else b"runA" in download.content
    csv = api(researcher).get(
        reverse("leaderboard-api", args=[project.pk, one_topic.pk]), {"as": "csv", "test": "wilcoxon"}
    )
    assert csv.status_code == 200 and b"runB" in csv.content


def test_a_one_topic_project_travels_in_a_bundle_and_its_copy_answers_too(
    client, researcher, one_topic, django_capture_on_commit_callbacks
):
    job = import_bundle(
        researcher, bundle_of(researcher, one_topic.project), django_capture_on_commit_callbacks
    )
    assert job["status"] == "done", job
    copy = Project.objects.get(pk=job["summary"]["project"])
    evaluation = copy.evaluations.get(status="done")
    response = api(researcher).get(
        reverse("leaderboard-api", args=[copy.pk, evaluation.pk]), {"test": "wilcoxon"}
    )
    assert response.status_code == 200, response.content
