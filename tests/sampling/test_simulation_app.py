"""A sampling simulation through the app: asked for on the page or the API, run as a job with its
progress, its result the pure core's on the project's runs and the chosen truth, drawn on the page
(plot and table) and answered by the API; bad settings named, and no one else's project reachable."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.collection.runs import stored_run
from evaluation.jobs import embedded
from evaluation.metrics.trec.sampling_simulation import simulate
from evaluation.models import SamplingSimulation
from tests.sampling.test_simulation_core import collection
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db


def run_text(tag: str, run: dict) -> str:
    return "".join(
        f"{topic} Q0 {doc} {rank} {score} {tag}\n"
        for topic, docs in run.items()
        for rank, (doc, score) in enumerate(sorted(docs.items(), key=lambda item: -item[1]), start=1)
    )


@pytest.fixture
def project(researcher):
    runs, qrels = collection(3, runs=4, topics=5)
    project = Project.objects.create(name="Simulated", owner=researcher, assignments_per_task=1)
    import_collection(
        project,
        topics=[{"id": t, "title": f"topic {t}"} for t in qrels],
        documents=[{"id": f"d{i}", "text": f"document {i}"} for i in range(80)],
        runs=[run_text(name, run) for name, run in runs.items()],
        pool_depth=2,
    )
    project.external_qrels.create(name="official", judgements=qrels, judged_count=1, relevant_count=1)
    return project


def ask(user, project, capture, **body):
    with capture(execute=True):  # the job is sent once its row is committed
        response = api(user).post(reverse("sampling-simulations-api", args=[project.pk]), body, format="json")
    return response


def test_the_api_runs_a_simulation_whose_result_is_the_cores(
    researcher, project, django_capture_on_commit_callbacks
):
    response = ask(
        researcher, project, django_capture_on_commit_callbacks,
        truth="external:official", shares=[0.2, 0.5], samples=4, depth=30, top_depth=5, seed=2,
    )  # fmt: skip
    assert response.status_code == 202, response.content
    job = response.json()
    assert (
        job["status"] == "queued" and job["truth_name"] == "external qrels official" and job["plot"] is None
    )
    assert embedded.run_queued() == 1
    done = api(researcher).get(job["url"]).json()
    assert done["status"] == "done" and done["progress"] == 1.0, done
    runs = {run.tag: stored_run(run.pk) for run in project.runs.all()}
    expected = simulate(
        runs,
        project.external_qrels.get().judgements,
        shares=[0.2, 0.5],
        samples=4,
        depth=30,
        top_depth=5,
        seed=2,
    )
    assert done["result"]["truth_map"] == pytest.approx(expected.truth)
    for stored, outcome in zip(done["result"]["shares"], expected.shares, strict=True):
        assert stored["share"] == outcome.share and stored["design"] == outcome.design()
        assert stored["figures"] == {name: list(values) for name, values in outcome.figures.items()}
    assert done["plot"].endswith("plot.svg")
    listed = api(researcher).get(reverse("sampling-simulations-api", args=[project.pk])).json()
    assert [row["id"] for row in listed] == [job["id"]] and "result" not in listed[0]


def test_the_page_asks_for_one_shows_its_progress_and_draws_the_finished_one(
    researcher, project, django_capture_on_commit_callbacks
):
    client = Client()
    client.force_login(researcher)
    url = reverse("sampling-simulations", args=[project.pk])
    page = client.get(url).content.decode()
    assert 'value="external:official"' in page and "None yet." in page
    assert url in client.get(reverse("runs-page", args=[project.pk])).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url, {"truth": "external:official", "shares": "10, 30%", "samples": "3", "depth": "20"}
        )
    assert response.status_code == 302
    job = SamplingSimulation.objects.get(project=project)
    assert job.shares == [0.1, 0.3] and job.samples == 3 and job.depth == 20
    assert '<progress max="100" value="0">' in client.get(url).content.decode()
    embedded.run_queued()
    page = client.get(url).content.decode()
    plot = reverse("sampling-simulation-plot", args=[project.pk, job.pk, "svg"])
    assert f'src="{plot}"' in page and 'id="simulation-table"' in page
    assert page.count('<tr><th scope="row">') >= 3  # two shares in the table, one job in the list
    image = client.get(plot)
    assert image.status_code == 200 and image["Content-Type"].startswith("image/svg+xml")
    assert b"Kendall" in image.content
    assert client.get(reverse("sampling-simulation-plot", args=[project.pk, job.pk, "png"])).content[:4] == (
        b"\x89PNG"
    )


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"truth": "external:missing"}, "truth", "no external qrels named 'missing'"),
        ({"truth": "snapshot"}, "truth", "no snapshot"),
        ({"truth": "guess"}, "truth", "give snapshot"),
        ({"shares": [0]}, "shares", "in (0, 1]"),
        ({"samples": 0}, "samples", "greater than or equal to 1"),
        ({"depth": 20, "top_depth": 20}, "top_depth", "below the depth"),
    ],
)
def test_bad_settings_are_a_400_naming_the_field_and_nothing_is_queued(
    researcher, project, django_capture_on_commit_callbacks, body, field, words
):
    response = ask(
        researcher, project, django_capture_on_commit_callbacks, **{"truth": "external:official", **body}
    )
    assert response.status_code == 400, response.content
    assert any(words in message for message in response.json()[field]), response.json()
    assert not SamplingSimulation.objects.exists()


def test_the_page_names_a_bad_share(researcher, project):
    client = Client()
    client.force_login(researcher)
    url = reverse("sampling-simulations", args=[project.pk])
    page = client.post(url, {"truth": "external:official", "shares": "10, ten"}, follow=True).content.decode()
    assert "shares: &#x27;ten&#x27; is not a number" in page
    assert not SamplingSimulation.objects.exists()


def test_others_reach_nothing(
    researcher, outsider_researcher, annotators, project, django_capture_on_commit_callbacks
):
    ask(researcher, project, django_capture_on_commit_callbacks, truth="external:official", samples=1)
    job = SamplingSimulation.objects.get()
    for url in (
        reverse("sampling-simulations-api", args=[project.pk]),
        reverse("sampling-simulation-api", args=[project.pk, job.pk]),
    ):
        assert api(outsider_researcher).get(url).status_code == 404
        assert api(annotators[0]).get(url).status_code == 403
    client = Client()
    client.force_login(outsider_researcher)
    assert client.get(reverse("sampling-simulations", args=[project.pk])).status_code == 404
    assert (
        client.get(reverse("sampling-simulation-plot", args=[project.pk, job.pk, "svg"])).status_code == 404
    )
    assert (
        api(outsider_researcher)
        .post(reverse("sampling-simulations-api", args=[project.pk]), {}, format="json")
        .status_code
        == 404
    )
