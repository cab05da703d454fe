"""Runs of a project fused into a new stored run (evaluation.collection.fusion, POST
api/projects/<id>/runs/fuse/): what is stored is ``metrics.fusion.fuse`` of the stored runs, it can
be pooled like any run, bad input is a 400 naming the field with nothing stored, and only the owner
may fuse."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Task
from evaluation.collection.flow import import_collection
from evaluation.collection.fusion import fuse_project_runs
from evaluation.collection.runs import run_file, stored_run
from evaluation.metrics.fusion import fuse
from evaluation.metrics.trec.files import read_run
from evaluation.models import Run
from tests.annotation.factories import make_project
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(researcher, annotators):
    return make_project(researcher, annotators, k=3, pool_depth=2)


def run_ids(project, *tags):
    return [project.runs.get(tag=tag).pk for tag in tags]


def post_fuse(user, project, **body):
    return api(user).post(reverse("runs-fuse-api", args=[project.pk]), body, format="json")


def pairs(project):
    return set(
        project.tasks.filter(kind=Task.Kind.ITEM).values_list("topic__external_id", "document__external_id")
    )


def test_the_owner_fuses_two_runs_into_a_stored_run(researcher, project):
    sources = [stored_run(pk) for pk in run_ids(project, "runA", "runB")]
    response = post_fuse(researcher, project, runs=run_ids(project, "runA", "runB"))
    assert response.status_code == 201, response.content
    answer = response.json()
    assert answer["tag"] == "rrf" and answer["pool_depth"] == 0 and answer["items_created"] == 0
    run = Run.objects.get(pk=answer["id"], project=project)
    assert stored_run(run.pk) == fuse(sources, "rrf")
    assert answer["lines"] == sum(map(len, fuse(sources).values()))
    assert "RRF (k = 60) of runA, runB" in run.description


@pytest.mark.parametrize(("method", "normalisation"), [("combsum", "z-score"), ("combmnz", "min-max")])
def test_combsum_and_combmnz_with_a_tag_a_depth_and_k_are_stored_as_fused(
    researcher, project, method, normalisation
):
    sources = [stored_run(pk) for pk in run_ids(project, "runB", "runA")]
    response = post_fuse(
        researcher,
        project,
        runs=run_ids(project, "runB", "runA"),
        method=method,
        normalisation=normalisation,
        tag="together",
        depth=2,
    )
    assert response.status_code == 201, response.content
    run = project.runs.get(tag="together")
    expected = fuse(sources, method, normalisation, depth=2)
    assert stored_run(run.pk) == expected
    assert read_run(run_file(run).splitlines()) == (expected, "together")  # downloads as any run


def test_a_fused_run_is_pooled_in_its_own_order(researcher, project):
    # runC is stored unpooled: its documents for 401 are not items yet.
    import_collection(project, runs=["401 Q0 d4 1 9.0 runC\n401 Q0 d5 2 8.0 runC"], pool_depth=0)
    before = pairs(project)
    ids = run_ids(project, "runA", "runC")
    response = post_fuse(researcher, project, runs=ids, tag="pooled", pool_depth=3)
    assert response.status_code == 201, response.content
    fused = fuse([stored_run(pk) for pk in ids])
    top = {(topic, document) for topic, scores in fused.items() for document in list(scores)[:3]}
    assert pairs(project) == before | top
    assert response.json()["items_created"] == len(top - before) == 2  # d4 and d5 of topic 401
    assert project.runs.get(tag="pooled").pool_depth == 3


def test_the_service_fuses_three_runs_with_a_topic_one_lacks(project):
    import_collection(project, runs=["401 Q0 d2 1 1.0 runC\n401 Q0 d5 2 0.5 runC"], pool_depth=0)
    ids = run_ids(project, "runA", "runB", "runC")
    fused = fuse_project_runs(project, ids, method="combsum", normalisation="none", tag="three")
    assert stored_run(fused.run.pk) == fuse([stored_run(pk) for pk in ids], "combsum", "none")
    assert set(stored_run(fused.run.pk)) == {"401", "402"}


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"runs": ["A"]}, "runs", "at least 2"),
        ({"runs": ["A", "A"]}, "runs", "given twice"),
        ({"runs": ["A", 999_999]}, "runs", "run 999999 is not among the project's runs"),
        ({"runs": ["A", "B"], "tag": "runA"}, "tag", "a run tagged 'runA' already exists"),
        ({"runs": ["A", "B"], "tag": "two words"}, "tag", "whitespace"),
        ({"runs": ["A", "B"], "method": "borda"}, "method", "not a valid choice"),
        ({"runs": ["A", "B"], "normalisation": "max"}, "normalisation", "not a valid choice"),
        ({"runs": ["A", "B"], "depth": 0}, "depth", "greater than or equal to 1"),
        ({"runs": ["A", "B"], "weights": [1, 2]}, "weights", "unknown field"),
    ],
)
def test_bad_input_is_a_400_naming_the_field_and_stores_nothing(researcher, project, body, field, words):
    ids = dict(zip("AB", run_ids(project, "runA", "runB"), strict=True))
    body = {**body, "runs": [ids.get(run, run) for run in body["runs"]]}
    runs_before = Run.objects.count()
    response = post_fuse(researcher, project, **body)
    assert response.status_code == 400, response.content
    assert words in " ".join(response.json()[field])
    assert Run.objects.count() == runs_before


def test_a_run_of_another_project_is_refused_as_unknown(researcher, annotators, project):
    other = make_project(researcher, annotators)
    theirs = other.runs.get(tag="runA").pk
    response = post_fuse(researcher, project, runs=[run_ids(project, "runA")[0], theirs])
    assert response.status_code == 400
    assert response.json() == {"runs": [f"run {theirs} is not among the project's runs"]}


def test_runs_with_no_topic_in_common_are_refused_naming_them(researcher, project):
    import_collection(project, runs=["402 Q0 d1 1 1.0 only402"], pool_depth=0)
    import_collection(project, runs=["401 Q0 d1 1 1.0 only401"], pool_depth=0)
    response = post_fuse(researcher, project, runs=run_ids(project, "only401", "only402"))
    assert response.status_code == 400
    assert response.json() == {"runs": ["fusion of runs with no topic in common: only401, only402"]}
    assert not project.runs.filter(tag="rrf").exists()


def test_only_the_owner_may_fuse(researcher, outsider_researcher, annotators, project):
    ids = run_ids(project, "runA", "runB")
    assert post_fuse(outsider_researcher, project, runs=ids).status_code == 404
    assert post_fuse(annotators[0], project, runs=ids).status_code == 403
    url = reverse("runs-fuse-api", args=[project.pk])
    assert APIClient().post(url, {"runs": ids}, format="json").status_code == 401
    assert api(researcher).get(url).status_code == 405
    assert not project.runs.filter(tag="rrf").exists()
    assert post_fuse(researcher, project, runs=ids).status_code == 201


def test_the_runs_page_fuses_the_ticked_runs(client, researcher, project):
    client.force_login(researcher)
    page = client.get(reverse("runs-page", args=[project.pk])).content.decode()
    assert 'id="fuse-heading"' in page and reverse("runs-fuse", args=[project.pk]) in page
    ids = run_ids(project, "runA", "runB")
    form = {"runs": ids, "method": "combsum", "normalisation": "z-score", "tag": "from-page", "depth": "2"}
    response = client.post(reverse("runs-fuse", args=[project.pk]), form, follow=True)
    run = project.runs.get(tag="from-page")
    assert response.redirect_chain[-1][0] == reverse("run-page", args=[project.pk, run.pk])
    assert "Fused into run from-page." in response.content.decode()
    assert stored_run(run.pk) == fuse([stored_run(pk) for pk in ids], "combsum", "z-score", depth=2)


def test_the_runs_page_says_why_nothing_was_fused(client, researcher, project):
    client.force_login(researcher)
    url = reverse("runs-fuse", args=[project.pk])
    response = client.post(url, {"runs": run_ids(project, "runA"), "method": "rrf"}, follow=True)
    assert response.redirect_chain[-1][0].startswith(reverse("runs-page", args=[project.pk]))
    assert "Nothing was fused: runs: fusion needs at least two runs, got 1" in response.content.decode()
    response = client.post(url, {"runs": run_ids(project, "runA", "runB"), "depth": "many"}, follow=True)
    assert "depth: not a whole number: &#x27;many&#x27;" in response.content.decode()
    assert project.runs.count() == 2


def test_only_the_owner_may_fuse_from_the_page(client, researcher, outsider_researcher, annotators, project):
    url = reverse("runs-fuse", args=[project.pk])
    form = {"runs": run_ids(project, "runA", "runB")}
    for user in (outsider_researcher, annotators[0]):
        client.force_login(user)
        assert client.post(url, form).status_code == 404
    client.force_login(researcher)
    assert client.get(url).status_code == 405
    assert project.runs.count() == 2
