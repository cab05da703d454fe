"""ir_datasets in and out from the three doors: the API (with its personas), the Import page's form and
the management commands; bad input refused before anything is queued, naming the field."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.test import TestCase
from django.urls import reverse

from annotation.models import Project
from evaluation.jobs import embedded
from evaluation.models import ImportJob
from tests.irds.local_datasets import DEMO_RUN
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(researcher):
    return Project.objects.create(name="to fill", owner=researcher)


def post_import(user, project, body):
    with TestCase.captureOnCommitCallbacks(execute=True):
        return api(user).post(reverse("ir-datasets-import-api", args=[project.pk]), body, format="json")


def test_the_owner_imports_by_api_and_follows_the_job(researcher, project, demo_dataset):
    body = {"dataset": demo_dataset, "title_field": "title", "topics": ["3", "19"], "max_documents": 100}
    response = post_import(researcher, project, body)
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["kind"] == "irds" and job["status"] == "queued" and job["project"] == project.pk
    embedded.run_queued()
    done = api(researcher).get(job["url"]).json()
    assert done["status"] == "done" and done["progress"] == 1.0
    assert done["summary"]["topics_created"] == 2 and done["summary"]["documents_created"] == 100
    assert sorted(project.topics.values_list("external_id", flat=True)) == ["19", "3"]
    assert project.external_qrels.get().name == demo_dataset  # named after the dataset by default


def test_another_researcher_gets_404_and_an_annotator_403(
    outsider_researcher, annotators, project, demo_dataset
):
    body = {"dataset": demo_dataset}
    assert post_import(outsider_researcher, project, body).status_code == 404
    assert post_import(annotators[0], project, body).status_code == 403
    export = reverse("ir-datasets-export-api", args=[project.pk])
    assert api(outsider_researcher).get(export).status_code == 404
    assert api(annotators[0]).get(export).status_code == 403
    assert not ImportJob.objects.exists()


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (
            {"dataset": "no-such-dataset/anywhere"},
            "dataset",
            "'no-such-dataset/anywhere' is not an ir_datasets id",
        ),
        ({"doc_fields": ["title", "body"]}, "doc_fields", "documents have no field 'body'"),
        ({"title_field": "headline"}, "title_field", "documents have no field 'headline'"),
        ({"query_field": "narrative"}, "query_field", "queries have no field 'narrative'"),
        ({"topics": ["3", "9999", "abc"]}, "topics", "has no query '9999', 'abc'"),
        ({"qrels": "both"}, "qrels", "is not a valid choice"),
        ({"max_documents": 0}, "max_documents", "greater than or equal to 1"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_nothing_is_queued(
    researcher, project, demo_dataset, change, field, words
):
    response = post_import(researcher, project, {"dataset": demo_dataset, **change})
    assert response.status_code == 400
    errors = response.json()
    assert list(errors) == [field] and words in errors[field][0]
    assert not ImportJob.objects.exists() and not project.topics.exists()


def test_a_dataset_without_scoreddocs_or_qrels_says_so(researcher, project, tmp_path):
    from tests.irds.local_datasets import register

    name = register(
        "test-bare", tmp_path, docs=[{"doc_id": "d1", "title": "", "text": "x"}], queries=[("q1", "y")]
    )
    assert post_import(
        researcher, project, {"dataset": name, "scoreddocs": True, "qrels": "none"}
    ).json() == {"scoreddocs": ["'test-bare' has no scoreddocs"]}
    assert post_import(researcher, project, {"dataset": name}).json() == {
        "qrels": ["'test-bare' has no qrels: ask for \"none\""]
    }


def test_the_import_page_has_the_form_and_queues_the_job(client, researcher, project, demo_dataset):
    client.force_login(researcher)
    page = client.get(reverse("project-import", args=[project.pk]))
    assert (
        b'name="dataset"' in page.content
        and reverse("project-import-ir-datasets", args=[project.pk]).encode() in page.content
    )
    url = reverse("project-import-ir-datasets", args=[project.pk])
    form = {
        "dataset": demo_dataset,
        "doc_fields": "title, text",
        "topics": "3 19",
        "qrels": "none",
        "pool_depth": "0",
    }
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = client.post(url, form)
    assert response.status_code == 302 and response.url == url
    embedded.run_queued()
    job = ImportJob.objects.get()
    assert job.status == "done" and job.options["doc_fields"] == ["title", "text"]
    listed = client.get(url).content.decode()  # the page follows the job: its state and what it made
    assert f'<th scope="row">{job.pk}</th><td>{demo_dataset}</td><td>Done</td>' in listed
    assert "2 topics, " in listed and "100 %" in listed
    document = project.documents.get(external_id="2")
    assert document.text.startswith("simple shear flow past a flat plate") and "\n\n" in document.text
    assert not project.external_qrels.exists()


def test_the_import_page_lists_bad_input_and_keeps_what_was_typed(
    client, researcher, outsider_researcher, project, demo_dataset
):
    url = reverse("project-import-ir-datasets", args=[project.pk])
    client.force_login(researcher)
    response = client.post(url, {"dataset": demo_dataset, "doc_fields": "body", "topics": "3"})
    assert response.status_code == 400
    assert (
        b"doc_fields: &#x27;cranfield-demo-subset&#x27;&#x27;s documents have no field &#x27;body&#x27;"
        in response.content
    )
    assert b'value="body"' in response.content and not ImportJob.objects.exists()
    client.force_login(outsider_researcher)
    assert client.post(url, {"dataset": demo_dataset}).status_code == 404
    assert client.get(reverse("project-export-ir-datasets", args=[project.pk])).status_code == 404


def test_the_management_command_creates_a_project_and_imports_into_it(researcher, demo_dataset):
    out = io.StringIO()
    call_command(
        "import_ir_datasets",
        demo_dataset,
        "--create",
        "Cranfield from ir_datasets",
        "--owner",
        "owner",
        "--title-field",
        "title",
        "--topics",
        "3,19,29",
        "--scoreddocs",
        "--run-tag",
        DEMO_RUN,
        "--pool-depth",
        "5",
        stdout=out,
    )
    project = Project.objects.get(name="Cranfield from ir_datasets", owner=researcher)
    assert project.topics.count() == 3 and project.runs.get().tag == DEMO_RUN
    assert project.tasks.exists() and f"project {project.pk}: 3 topics" in out.getvalue()
    with pytest.raises(CommandError, match="topics: 'cranfield-demo-subset' has no query '77777'"):
        call_command("import_ir_datasets", demo_dataset, "--project", str(project.pk), "--topics", "77777")
    with pytest.raises(CommandError, match="dataset: 'nope' is not an ir_datasets id"):
        call_command("import_ir_datasets", "nope", "--project", str(project.pk))
    assert project.topics.count() == 3


def test_the_export_downloads_from_page_api_and_command(client, researcher, project, demo_dataset, tmp_path):
    from evaluation.collection.flow import import_collection

    import_collection(
        project, topics=[{"id": "q1", "title": "wing flutter"}], documents=[{"id": "d1", "text": "x"}]
    )
    client.force_login(researcher)
    page = client.get(reverse("project-export-ir-datasets", args=[project.pk]))
    by_api = api(researcher).get(reverse("ir-datasets-export-api", args=[project.pk]))
    for response in (page, by_api):
        assert response.status_code == 200 and response["Content-Type"] == "application/zip"
        with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as archive:
            assert archive.read("queries.tsv") == b"q1\twing flutter\n"
    call_command(
        "export_ir_datasets", str(project.pk), str(tmp_path / "out"), "--folder", stderr=io.StringIO()
    )
    assert (tmp_path / "out" / "docs.jsonl").read_text() == '{"doc_id": "d1", "title": "", "text": "x"}\n'


def test_a_dataset_whose_files_cannot_be_read_is_a_400_naming_the_dataset(researcher, project, tmp_path):
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import GenericDoc, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    name = f"test-unreadable-{tmp_path.name}"
    missing = tmp_path / "not-downloaded"
    ir_datasets.registry.register(
        name,
        Dataset(
            TsvDocs(LocalDownload(missing / "docs.tsv"), GenericDoc),
            TsvQueries(LocalDownload(missing / "q.tsv")),
        ),
    )
    response = post_import(researcher, project, {"dataset": name, "qrels": "none"})
    assert response.status_code == 400
    [message] = response.json()["dataset"]
    assert (
        message.startswith(f"ir_datasets could not read {name!r}'s queries") and "IR_DATASETS_HOME" in message
    )
    assert not ImportJob.objects.exists()


def test_the_page_lists_a_job_the_worker_refused_with_its_errors(client, researcher, project, tmp_path):
    from tests.irds.local_datasets import register

    docs = [{"doc_id": "has space", "title": "", "text": "words"}]
    name = register("test-page-refused", tmp_path, docs=docs, queries=[("q1", "a query")])
    url = reverse("project-import-ir-datasets", args=[project.pk])
    client.force_login(researcher)
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert client.post(url, {"dataset": name, "qrels": "none"}).status_code == 302
    embedded.run_queued()
    listed = client.get(url).content.decode()
    assert "<td>Failed</td><td>refused: nothing was imported</td>" in listed
    assert "<li>documents[has space].id: " in listed and not project.topics.exists()


def test_a_second_import_under_the_same_qrels_name_or_run_tag_is_refused_at_once(
    researcher, project, demo_dataset
):
    body = {"dataset": demo_dataset, "topics": ["3"], "scoreddocs": True}
    assert post_import(researcher, project, body).status_code == 202
    embedded.run_queued()
    again = {"dataset": demo_dataset, "topics": ["19"], "scoreddocs": True}
    assert post_import(researcher, project, again).json() == {
        "qrels_name": [f"the project already has external qrels named {demo_dataset!r}"]
    }
    answer = post_import(researcher, project, {**again, "qrels_name": "second"}).json()
    assert answer == {"run_tag": [f"a run tagged '{demo_dataset}-scoreddocs' already exists in this project"]}
    assert ImportJob.objects.count() == 1
