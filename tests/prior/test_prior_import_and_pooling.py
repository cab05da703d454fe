"""Prior judgements in (API, page, command line, ir_datasets) and pooling that reuses them: the pairs
a prior set judges are left out of a pool unless asked for again, and the dry run counts what that
saves."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Project, Task
from evaluation.collection.flow import import_collection
from evaluation.models import PriorJudgement, PriorQrels
from evaluation.prior.importing import import_prior_qrels
from tests.annotation.factories import DOCUMENTS, RUN_A, RUN_B, TOPICS, make_project

pytestmark = pytest.mark.django_db

# d1, d3 (401) and d4 (402) are in the depth-2 pool of RUN_A and RUN_B; d5 (402) is in it too;
# d2 (401) is judged but only RUN_A's third... RUN_A's rank 2, so pooled as well. d9 is nowhere.
PRIOR = "401 0 d1 1\n401 0 d3 0\n402 0 d4 1\n402 0 d2 0\n"


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture
def project(researcher, annotators):
    """Topics and documents, no runs yet, k = 3."""
    project = Project.objects.create(name="reused", owner=researcher, assignments_per_task=3)
    project.annotators.set(annotators)
    import_collection(project, topics=TOPICS, documents=DOCUMENTS)
    return project


def pairs(project) -> set[tuple[str, str]]:
    return set(
        Task.objects.filter(project=project, kind=Task.Kind.ITEM).values_list(
            "topic__external_id", "document__external_id"
        )
    )


def post_prior(user, project, **body):
    payload = {"name": "trec", "source": "TREC-1", "date": "1992-11-01", "assessor": "NIST assessors"}
    return api(user).post(
        reverse("prior-qrels-api", args=[project.pk]), payload | {"qrels": PRIOR} | body, format="json"
    )


def test_the_owner_imports_a_prior_set_with_its_source_date_and_assessor(researcher, project):
    answer = post_prior(researcher, project)
    assert answer.status_code == 201
    body = answer.json()
    assert (body["name"], body["source"], body["date"], body["assessor"]) == (
        "trec",
        "TREC-1",
        "1992-11-01",
        "NIST assessors",
    )
    assert (body["judged_count"], body["relevant_count"]) == (4, 2)
    rows = PriorJudgement.objects.filter(prior_qrels_id=body["id"]).values_list(
        "topic__external_id", "document__external_id", "relevance"
    )
    assert sorted(rows) == [("401", "d1", 1), ("401", "d3", 0), ("402", "d2", 0), ("402", "d4", 1)]
    listed = api(researcher).get(reverse("prior-qrels-api", args=[project.pk])).json()
    assert [row["name"] for row in listed["results"]] == ["trec"]


def test_another_researcher_gets_404_and_an_annotator_403(project, outsider_researcher, annotators):
    endpoint = reverse("prior-qrels-api", args=[project.pk])
    settings = reverse("prior-settings-api", args=[project.pk])
    assert post_prior(outsider_researcher, project).status_code == 404
    assert api(outsider_researcher).get(endpoint).status_code == 404
    assert api(outsider_researcher).get(settings).status_code == 404
    assert post_prior(annotators[0], project).status_code == 403
    assert api(annotators[0]).get(endpoint).status_code == 403
    assert api(annotators[0]).put(settings, {"precedence": "crowd-wins"}, format="json").status_code == 403
    assert not PriorQrels.objects.exists()


@pytest.mark.parametrize(
    ("qrels", "words"),
    [
        ("401 0 d1 1\n999 0 d1 1\n", "line 2: topic '999' is not among the project's topics"),
        (
            "401 0 d1 1\n401 0 d2 0\n\n402 0 d77 1\n",
            "line 4: document 'd77' is not among the project's documents",
        ),
        ("401 0 d1\n", "line 1"),
        ("# only a comment\n", "no lines"),
    ],
)
def test_qrels_naming_what_the_project_lacks_are_a_400_naming_the_line_and_nothing_is_stored(
    researcher, project, qrels, words
):
    answer = post_prior(researcher, project, qrels=qrels)
    assert answer.status_code == 400
    assert words in answer.json()["qrels"][0]
    assert not PriorQrels.objects.exists() and not PriorJudgement.objects.exists()


def test_a_name_taken_is_a_400_naming_the_name(researcher, project):
    assert post_prior(researcher, project).status_code == 201
    again = post_prior(researcher, project)
    assert again.status_code == 400 and "already has prior judgements named 'trec'" in again.json()["name"][0]
    assert PriorJudgement.objects.count() == 4


def test_reuse_saves_exactly_the_judged_pairs(researcher, project):
    assert post_prior(researcher, project).status_code == 201
    runs = reverse("runs-api", args=[project.pk])
    body = {"runs": [RUN_A, RUN_B], "pool_depth": 2}
    full_pool = {
        ("401", "d1"),
        ("401", "d2"),
        ("401", "d3"),
        ("401", "d6"),
        ("402", "d4"),
        ("402", "d5"),
        ("402", "d6"),
    }
    judged = {("401", "d1"), ("401", "d3"), ("402", "d4")}  # the prior pairs in the pool (402/d2 is not)
    preview = api(researcher).post(runs, body | {"dry_run": True}, format="json").json()
    assert preview["dry_run"] is True
    assert (preview["prior_judged"], preview["prior_skipped"], preview["judgements_saved"]) == (3, 3, 9)
    assert preview["tasks_created"] == len(full_pool) - len(judged)
    assert {(t, d) for t, docs in preview["judging_order"].items() for d in docs} == full_pool - judged
    assert not pairs(project)  # a dry run stores nothing
    created = api(researcher).post(runs, body, format="json")
    assert created.status_code == 201 and created.json()["prior_skipped"] == 3
    assert pairs(project) == full_pool - judged


def test_judged_pairs_are_judged_again_on_request(researcher, project):
    assert post_prior(researcher, project).status_code == 201
    runs = reverse("runs-api", args=[project.pk])
    body = {"runs": [RUN_A, RUN_B], "pool_depth": 2, "judge_prior": True}
    preview = api(researcher).post(runs, body | {"dry_run": True}, format="json").json()
    assert (preview["prior_judged"], preview["prior_skipped"], preview["judgements_saved"]) == (3, 0, 0)
    assert api(researcher).post(runs, body, format="json").status_code == 201
    assert {("401", "d1"), ("401", "d3"), ("402", "d4")} <= pairs(project)
    assert len(pairs(project)) == 7


def test_a_project_without_prior_sets_pools_as_before(researcher, project):
    answer = (
        api(researcher)
        .post(
            reverse("runs-api", args=[project.pk]), {"runs": [RUN_A, RUN_B], "pool_depth": 2}, format="json"
        )
        .json()
    )
    assert (answer["tasks_created"], answer["prior_judged"], answer["judgements_saved"]) == (7, 0, 0)


def test_a_collection_import_stores_its_prior_set_before_pooling(researcher):
    project = Project.objects.create(name="at once", owner=researcher, assignments_per_task=2)
    summary = import_collection(
        project,
        topics=TOPICS,
        documents=DOCUMENTS,
        runs=[RUN_A, RUN_B],
        pool_depth=2,
        prior={"qrels": PRIOR, "name": "earlier", "assessor": "earlier crowd"},
    )
    assert (summary.prior_created, summary.prior_skipped, summary.judgements_saved) == (4, 3, 6)
    assert len(pairs(project)) == 4
    assert project.prior_qrels.get().assessor == "earlier crowd"


def test_the_page_form_imports_a_prior_set_for_the_owner_only(
    client, researcher, project, outsider_researcher
):
    page = reverse("evaluations-page", args=[project.pk])
    client.force_login(researcher)
    assert b"Import prior judgements" in client.get(page).content
    form = {"name": "nist", "source": "TREC", "date": "1999-01-02", "assessor": "NIST assessors"}
    upload = SimpleUploadedFile("prior.qrels", PRIOR.encode())
    assert client.post(reverse("prior-qrels", args=[project.pk]), form | {"file": upload}).status_code == 302
    prior = PriorQrels.objects.get()
    assert (prior.name, str(prior.judged_on), prior.judged_count) == ("nist", "1999-01-02", 4)
    assert b"nist: 4 judgements, 2 relevant, by NIST assessors" in client.get(page).content
    bad = SimpleUploadedFile("bad.qrels", b"401 0 nope 1\n")
    client.post(reverse("prior-qrels", args=[project.pk]), form | {"name": "bad", "file": bad})
    assert "line 1: document &#x27;nope&#x27;" in client.get(page).content.decode()
    assert PriorQrels.objects.count() == 1
    client.force_login(outsider_researcher)
    upload = SimpleUploadedFile("prior.qrels", PRIOR.encode())
    assert (
        client.post(
            reverse("prior-qrels", args=[project.pk]), form | {"name": "x", "file": upload}
        ).status_code
        == 404
    )
    assert (
        client.post(reverse("prior-precedence", args=[project.pk]), {"precedence": "crowd-wins"}).status_code
        == 404
    )


def test_the_command_line_imports_a_prior_set(project, tmp_path):
    path = tmp_path / "prior.qrels"
    path.write_text(PRIOR)
    out = io.StringIO()
    call_command(
        "import_prior_qrels", project.pk, str(path), "--name", "llm", "--assessor", "LLM", stdout=out
    )
    assert "prior judgements 'llm', 4 judgements, 2 relevant" in out.getvalue()
    path.write_text("401 0 d1 1\n402 0 zz 1\n")
    with pytest.raises(CommandError, match="line 2: document 'zz'"):
        call_command("import_prior_qrels", project.pk, str(path), "--name", "bad")
    assert list(PriorQrels.objects.values_list("name", "assessor")) == [("llm", "LLM")]


def test_the_ir_datasets_export_holds_each_prior_set_as_trec_qrels(researcher, project):
    import zipfile

    from evaluation.irds.export import write_export
    from evaluation.metrics.trec.files import read_qrels

    assert post_prior(researcher, project).status_code == 201
    buffer = io.BytesIO()
    metadata = write_export(project, buffer)
    entry = next(q for q in metadata["qrels"] if q.get("prior_qrels") == "trec")
    assert (entry["file"], entry["date"], entry["assessor"]) == (
        "qrels/prior-trec.qrels",
        "1992-11-01",
        "NIST assessors",
    )
    with zipfile.ZipFile(buffer) as archive:
        text = archive.read(entry["file"]).decode()
    assert read_qrels(text.splitlines()) == read_qrels(PRIOR.splitlines())


def test_the_runs_pages_preview_says_what_the_prior_sets_save(client, researcher, project):
    assert post_prior(researcher, project).status_code == 201
    client.force_login(researcher)
    files = [SimpleUploadedFile("a.run", RUN_A.encode()), SimpleUploadedFile("b.run", RUN_B.encode())]
    page = client.post(
        reverse("runs-page", args=[project.pk]), {"files": files, "pool_depth": "2", "preview": ""}
    )
    text = page.content.decode()
    assert (
        "would create 2 runs, 4 new items, 3 pooled pairs left out as judged before (9 judgements saved)"
        in text
    )
    files = [SimpleUploadedFile("a.run", RUN_A.encode()), SimpleUploadedFile("b.run", RUN_B.encode())]
    again = {"files": files, "pool_depth": "2", "preview": "", "judge_prior": "on"}
    text = client.post(reverse("runs-page", args=[project.pk]), again).content.decode()
    assert "would create 2 runs, 7 new items, 3 pooled pairs judged before, judged again" in text


def test_topics_and_documents_a_prior_set_judged_cannot_be_deleted_and_nothing_is_lost(
    researcher, annotators
):
    """Deleting a topic or document cascades to what judges it: a prior set's judgements count as
    the crowd's do (``annotation.signals.judged_elsewhere``), so the deletion is refused naming them."""
    project = make_project(researcher, annotators, k=1, pool_depth=2)
    import_collection(
        project,
        topics=[{"id": "403", "title": "judged before only"}],
        documents=[{"id": "d7", "text": "judged before only"}, {"id": "d8", "text": "never judged"}],
    )
    import_prior_qrels(project, "nist", "403 0 d7 1\n403 0 d8 0\n401 0 d7 0\n")
    client = APIClient()
    client.force_authenticate(researcher)
    refused = client.post(reverse("documents-delete-api", args=[project.pk]), {"ids": ["d7"]}, format="json")
    assert refused.status_code == 409
    assert "document 'd7' has 2 prior judgements" in refused.json()["detail"][0]
    topic = client.post(reverse("topics-delete-api", args=[project.pk]), {"ids": ["403"]}, format="json")
    assert topic.status_code == 409 and "topic '403' has 2 prior judgements" in topic.json()["detail"][0]
    assert PriorJudgement.objects.filter(prior_qrels__project=project).count() == 3
    assert project.documents.filter(external_id__in=["d7", "d8"]).count() == 2
