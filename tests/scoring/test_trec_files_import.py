"""A collection imported from TREC files: a topic file (classic or XML) and a qrels file, beside or
instead of JSON, on the Import page (uploaded or pasted), over the API and as an import job. The
qrels become the reference the runs are scored against; every error names the file and line, and a
failed import stores nothing."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import TestCase
from django.urls import reverse

from annotation.models import Project, Task, Topic
from evaluation.jobs import embedded
from evaluation.models import Evaluation, ExternalQrels
from tests.scoring.test_import_jobs_and_bundles import send_job
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

TOPICS = """<top>
<num> Number: 301
<title> International Organized Crime
<desc> Description:
Identify organizations that participate in international
criminal activity.
<narr> Narrative:
A relevant document must identify the organization.
</top>

<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio
<desc> Description:
Is the disease under control?
</top>
"""
QRELS = "301 0 d1 1\n301 0 d2 0\n302 0 d3 2\n302 0 d9 1\n"
DOCUMENTS = [{"id": f"d{i}", "text": f"document {i}"} for i in range(1, 5)]
RUNS = ["301 Q0 d1 1 3.0 sysA\n301 Q0 d2 2 2.0 sysA\n302 Q0 d3 1 1.0 sysA\n302 Q0 d4 2 0.5 sysA\n"]


@pytest.fixture
def project(researcher):
    return Project.objects.create(name="TREC collection", owner=researcher)


def test_the_api_imports_topics_and_qrels_from_trec_files_and_scores_the_runs_against_the_qrels(
    researcher, project, django_capture_on_commit_callbacks
):
    body = {
        "trec_topics": TOPICS,
        "documents": DOCUMENTS,
        "runs": RUNS,
        "qrels": QRELS,
        "qrels_name": "official",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = api(researcher).post(reverse("import-api", args=[project.pk]), body, format="json")
    assert response.status_code == 201, response.content
    summary = response.json()
    assert summary["topics_created"] == 2 and summary["qrels_created"] == 4 and summary["tasks_created"] == 4
    crime = Topic.objects.get(project=project, external_id="301")
    assert crime.title == "International Organized Crime"
    assert crime.description == (
        "Identify organizations that participate in international criminal activity.\n\n"
        "Narrative: A relevant document must identify the organization."
    )
    assert (
        Topic.objects.get(project=project, external_id="302").description == "Is the disease under control?"
    )
    reference = ExternalQrels.objects.get(project=project, name="official")
    assert reference.judgements == {"301": {"d1": 1, "d2": 0}, "302": {"d3": 2, "d9": 1}}
    assert embedded.run_queued() >= 1
    scored = project.evaluations.get(external_qrels=reference)
    assert scored.status == Evaluation.Status.DONE
    # d1 at rank 1 of 301 relevant; 302: d3 relevant at rank 1 of the two relevant (d9 not retrieved).
    assert scored.scores.get().overall["map"] == pytest.approx((1.0 + 0.5) / 2)


def test_json_topics_and_a_topic_file_go_together_and_a_clash_names_the_files_line(researcher, project):
    client = api(researcher)
    url = reverse("import-api", args=[project.pk])
    clash = {"topics": [{"id": "302", "title": "also 302"}], "trec_topics": TOPICS}
    response = client.post(url, clash, format="json")
    assert response.status_code == 400
    assert response.json() == {"trec_topics": ["line 11, id: '302' appears twice in this import"]}
    together = {"topics": [{"id": "1", "title": "json topic"}], "trec_topics": TOPICS}
    assert client.post(url, together, format="json").json()["topics_created"] == 3


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        (
            {"trec_topics": TOPICS.replace("</top>\n\n<top>", "\n<top>", 1)},
            "trec_topics",
            "line 10: a new <top>",
        ),
        (
            {"trec_topics": TOPICS.replace("Number: 302", "Number:")},
            "trec_topics",
            "line 11: the topic has no",
        ),
        (
            {"trec_topics": TOPICS.replace("302", "30 2")},
            "trec_topics",
            "line 12: a topic number is one word",
        ),
        ({"trec_topics": TOPICS, "qrels": "301 0 d1\n"}, "qrels", "line 1"),
        ({"trec_topics": TOPICS, "qrels": "301 0 d1 1\n999 0 d1 1\n"}, "qrels", "'999' is not among"),
        ({"trec_topics": TOPICS, "qrels": QRELS, "qrels_name": "has space"}, "qrels_name", "space"),
        (
            {"trec_topics": "<top><num> 9 <title> x </top>", "topics": "not a list"},
            "topics.non_field_errors",
            "list",
        ),
    ],
)
def test_a_bad_file_is_a_400_naming_the_file_and_line_and_nothing_is_stored(
    researcher, project, body, field, says
):
    response = api(researcher).post(reverse("import-api", args=[project.pk]), body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json() and says in " ".join(response.json()[field]), response.json()
    assert not Topic.objects.filter(project=project).exists()
    assert not ExternalQrels.objects.filter(project=project).exists()


def test_an_import_job_takes_the_same_files(researcher, project):
    body = {"trec_topics": TOPICS, "documents": DOCUMENTS, "runs": RUNS, "qrels": QRELS}
    response = send_job(api(researcher), project, json.dumps(body).encode())
    assert response.status_code == 202
    embedded.run_queued()
    job = api(researcher).get(response.json()["url"]).json()
    assert job["status"] == "done", job
    assert job["summary"]["topics_created"] == 2 and job["summary"]["qrels_created"] == 4
    assert ExternalQrels.objects.get(project=project).name == "reference"


def test_the_import_page_takes_uploaded_or_pasted_trec_files(client, researcher, project):
    client.force_login(researcher)
    url = reverse("project-import", args=[project.pk])
    page = client.get(url).content.decode()
    assert 'name="topics_file"' in page and 'name="qrels_file"' in page and 'name="trec_topics"' in page
    with TestCase.captureOnCommitCallbacks(execute=True):
        done = client.post(
            url,
            {
                "topics_file": SimpleUploadedFile("topics.301-302", TOPICS.encode()),
                "qrels": QRELS,
                "qrels_name": "nist",
                "body": json.dumps({"documents": DOCUMENTS, "runs": RUNS}),
            },
        )
    assert done.status_code == 302, done.content.decode()[:2000]
    assert Topic.objects.filter(project=project).count() == 2
    assert ExternalQrels.objects.get(project=project).name == "nist"
    assert Task.objects.filter(project=project, kind=Task.Kind.ITEM).count() == 4


def test_the_import_page_keeps_pasted_files_and_names_the_line_on_an_error(client, researcher, project):
    client.force_login(researcher)
    url = reverse("project-import", args=[project.pk])
    broken = TOPICS.replace("<title> Poliomyelitis and Post-Polio\n", "")
    response = client.post(url, {"trec_topics": broken, "qrels": QRELS})
    text = response.content.decode()
    assert "trec_topics: line 11: topic 302 has no title" in text
    assert "what you pasted is still in the boxes below" in text
    assert "Poliomyelitis" not in text and "International Organized Crime" in text  # the pasted file, kept
    assert not Topic.objects.filter(project=project).exists()
    both = client.post(url, {"trec_topics": TOPICS, "body": json.dumps({"trec_topics": TOPICS})})
    assert "given both in the JSON and as a file" in both.content.decode()
