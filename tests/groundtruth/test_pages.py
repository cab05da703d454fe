"""Ground-truth and agreement pages and their JSON API: who may see what, what they show, and that
nothing an importer or annotator typed reaches the page unescaped."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from annotation.models import Judgement
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.report import agreement_report
from evaluation.ground_truth.tasks import compute_ground_truth
from evaluation.ground_truth.ties import tie_report
from evaluation.models import GroundTruthJob
from tests.groundtruth.builders import items, judge, label_project, likert_project

pytestmark = pytest.mark.django_db

VOTES = [(1, 1, 0), (0, 0, 0), (1, 1, 1), (0, 1, 1)]


@pytest.fixture
def project(researcher, annotators):
    project = label_project(researcher, annotators, items=4)
    for task, votes in zip(items(project), VOTES, strict=True):
        for annotator, label in zip(annotators, votes, strict=True):
            judge(task, annotator, label, seconds=4.0)
    build_snapshot(project.pk)
    return project


@pytest.fixture
def ratings(researcher, annotators):
    project = likert_project(researcher, annotators, items=3)
    for position, task in enumerate(items(project)):
        for index, annotator in enumerate(annotators):
            judge(task, annotator, {"scores": {"fluency": 1 + (position + index) % 5, "coherence": 3}})
    build_snapshot(project.pk)
    return project


@pytest.fixture
def sent(monkeypatch):
    monkeypatch.setitem(compute_ground_truth.app.conf, "task_always_eager", False)  # as with a broker
    calls = []
    monkeypatch.setattr(compute_ground_truth, "apply_async", lambda args, countdown: calls.append(args))
    return calls


def only_the_owner(client, url, researcher, outsider, annotator, *, method="get", api=False):
    """Outsider researcher 404, annotator 403 (API) or 404 (page), anonymous 401 or login; then the owner."""
    call = getattr(client, method)
    client.force_login(outsider)
    assert call(url).status_code == 404
    client.force_login(annotator)
    assert call(url).status_code == (403 if api else 404)
    client.logout()
    response = call(url)
    if api:
        assert response.status_code == 401
    else:
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    client.force_login(researcher)
    return call(url)


# -- ground-truth page -------------------------------------------------------------------------------


def test_the_ground_truth_page_shows_snapshots_runs_with_progress_and_the_forms(
    client, project, researcher, outsider_researcher, annotators
):
    GroundTruthJob.objects.create(
        project=project, status="running", stage="aggregation: majority", progress=0.5
    )
    url = reverse("ground-truth", args=[project.pk])
    response = only_the_owner(client, url, researcher, outsider_researcher, annotators[0])
    assert response.status_code == 200
    page = response.content.decode()
    assert f'data-jobs-url="/api/projects/{project.pk}/ground-truth/jobs/"' in page
    assert '<progress data-field="bar" max="1" value="0.500"' in page and "50 %" in page
    assert "aggregation: majority" in page
    assert reverse("ground-truth-download", args=[project.pk, 1, "qrels"]) in page
    assert f'action="{reverse("ground-truth-recompute", args=[project.pk])}"' in page
    assert '<th scope="col">Version</th>' in page
    assert "evaluation/ground_truth.js" in page


def test_recompute_queues_one_debounced_run_and_only_on_post(
    client, project, researcher, outsider_researcher, annotators, sent, django_capture_on_commit_callbacks
):
    url = reverse("ground-truth-recompute", args=[project.pk])
    client.force_login(researcher)
    assert client.get(url).status_code == 405
    with django_capture_on_commit_callbacks(execute=True):
        response = only_the_owner(client, url, researcher, outsider_researcher, annotators[0], method="post")
        again = client.post(url, follow=True)
    assert response.status_code == 302 and response["Location"] == reverse("ground-truth", args=[project.pk])
    run = GroundTruthJob.objects.get(project=project)
    assert sent == [(project.pk, run.pk)]
    assert f"Job {run.pk} is already waiting to start" in again.content.decode()


def test_the_diff_page_lists_the_changed_item_by_its_titles_and_labels_by_name(
    client, project, researcher, outsider_researcher, annotators
):
    # d3 had 0, 1, 1 (majority 1); the third annotator corrects to 0, so the majority becomes 0.
    changed = Judgement.objects.get(task=items(project)[3], annotator=annotators[2])
    changed.label = 0
    changed.save()
    assert build_snapshot(project.pk).version == 2
    url = reverse("ground-truth-diff", args=[project.pk]) + "?from=1&to=2"
    response = only_the_owner(client, url, researcher, outsider_researcher, annotators[0])
    page = response.content.decode()
    assert response.status_code == 200
    assert "1 changed, 0 added, 0 removed, 3 unchanged." in page
    assert '<th scope="row">gas flow — doc 3 (1 × d3)</th><td>relevant</td><td>not relevant</td>' in page
    assert client.get(reverse("ground-truth-diff", args=[project.pk]) + "?from=1&to=9").status_code == 404
    assert client.get(reverse("ground-truth-diff", args=[project.pk]) + "?from=x").status_code == 400


def test_qrels_download_for_label_projects(client, project, researcher, outsider_researcher, annotators):
    url = reverse("ground-truth-download", args=[project.pk, 1, "qrels"])
    response = only_the_owner(client, url, researcher, outsider_researcher, annotators[0])
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="project{project.pk}-v1.qrels"'
    assert response.content.decode().splitlines() == ["1 0 d0 1", "1 0 d1 0", "1 0 d2 1", "1 0 d3 1"]
    assert (
        client.get(reverse("ground-truth-download", args=[project.pk, 1, "ratings.csv"])).status_code == 404
    )


def test_rating_summaries_download_as_csv_and_json(
    client, ratings, researcher, outsider_researcher, annotators
):
    url = reverse("ground-truth-download", args=[ratings.pk, 1, "ratings.csv"])
    response = only_the_owner(client, url, researcher, outsider_researcher, annotators[0])
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 3 and rows[0]["document"] == "s0"
    assert float(rows[0]["fluency_median"]) == 2.0 and float(rows[0]["coherence_mean"]) == 3.0  # s0: 1, 2, 3
    body = json.loads(
        client.get(reverse("ground-truth-download", args=[ratings.pk, 1, "ratings.json"])).content
    )
    assert body["dimensions"] == ["fluency", "coherence"]
    assert body["items"][0]["scores"]["fluency"] == {
        "mean": 2.0,
        "median": 2.0,
        "std": pytest.approx(0.8165, abs=1e-4),
        "iqr": 1.0,
        "n": 3,
    }
    assert client.get(reverse("ground-truth-download", args=[ratings.pk, 1, "qrels"])).status_code == 404


def test_csv_cells_that_a_spreadsheet_would_run_are_defused(client, researcher, annotators):
    project = likert_project(researcher, annotators, items=0)
    from evaluation.collection.flow import import_collection

    import_collection(
        project,
        topics=[],
        documents=[{"id": "=HYPERLINK(1)", "text": "x"}],
        items=[{"topic": "src", "document": "=HYPERLINK(1)"}],
    )
    judge(items(project)[0], annotators[0], {"scores": {"fluency": 2, "coherence": 2}})
    build_snapshot(project.pk)
    client.force_login(researcher)
    body = client.get(reverse("ground-truth-download", args=[project.pk, 1, "ratings.csv"])).content.decode()
    assert "'=HYPERLINK(1)" in body and ",=HYPERLINK" not in body


# -- agreement page ----------------------------------------------------------------------------------


def test_the_agreement_page_shows_figures_annotators_matrices_and_a_heat_map_with_numbers(
    client, researcher, outsider_researcher, annotators
):
    # The fixture's votes three times over: 12 items, so every pair shares the 10 a kappa needs.
    project = label_project(researcher, annotators, items=12)
    for task, votes in zip(items(project), VOTES * 3, strict=True):
        for annotator, label in zip(annotators, votes, strict=True):
            judge(task, annotator, label, seconds=4.0)
    build_snapshot(project.pk)
    url = reverse("agreement-report", args=[project.pk])
    response = only_the_owner(client, url, researcher, outsider_researcher, annotators[0])
    assert response.status_code == 200
    page = response.content.decode()
    for name in ("Fleiss&#x27; kappa", "Mean Cohen&#x27;s kappa", "Krippendorff&#x27;s alpha (nominal)"):
        assert f'<th scope="row">{name}</th>' in page
    for annotator in annotators:
        assert f'<th scope="row">{annotator.username}</th>' in page
    assert '<th scope="col">Aggregate ↓ theirs →</th><th scope="col">not relevant</th>' in page
    report = agreement_report(project, project.snapshots.get())
    kappa = report["pairwise"][0]["kappa"][0][1]
    printed = f"{kappa:.2f}".replace("-", "−")  # a true minus sign
    assert f'>{printed}<span class="visually-hidden">, 12 shared items</span></td>' in page
    assert "background-color: #" in page
    assert "An empty cell: fewer than 10 shared items" in page
    assert '<th scope="row">PABAK (prevalence- and bias-adjusted kappa)</th>' in page
    assert "who share at least 10 items" in page and "each weighted by the items it shares" in page
    # 12 items: too few for an interval, and the table says why.
    assert "too few items for an interval (12; needs at least 30)" in page
    assert client.get(url + "?version=1").status_code == 200
    assert client.get(url + "?version=7").status_code == 404


def test_the_agreement_page_before_any_snapshot_still_lists_annotators(client, researcher, annotators):
    project = label_project(researcher, annotators, items=2)
    client.force_login(researcher)
    page = client.get(reverse("agreement-report", args=[project.pk])).content.decode()
    assert "No ground-truth snapshot yet" in page and annotators[0].username in page


def test_names_typed_by_people_are_escaped_on_every_page(client, researcher, django_user_model):
    hostile = django_user_model.objects.create_user("<script>alert(1)</script>", password="x")
    project = label_project(researcher, [hostile], items=0)
    from evaluation.collection.flow import import_collection

    import_collection(
        project,
        topics=[],
        documents=[{"id": "<img/src=x/onerror=alert(2)>", "text": "t"}, {"id": "d-ok", "text": "t"}],
        items=[
            {"topic": "1", "document": "<img/src=x/onerror=alert(2)>"},
            {"topic": "1", "document": "d-ok"},
        ],
    )
    first, second = items(project)
    judge(first, hostile, 1)
    judge(second, hostile, 0)
    build_snapshot(project.pk)
    Judgement.objects.filter(task=first).update(label=0)
    build_snapshot(project.pk)
    client.force_login(researcher)
    pages = [
        client.get(reverse("agreement-report", args=[project.pk])).content.decode(),
        client.get(reverse("ground-truth-diff", args=[project.pk]) + "?from=1&to=2").content.decode(),
        client.get(reverse("ground-truth", args=[project.pk])).content.decode(),
    ]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[0]
    assert "&lt;img/src=x/onerror=alert(2)&gt;" in pages[1]
    for page in pages:
        assert "<script>alert" not in page and "<img/src" not in page


# -- API -----------------------------------------------------------------------------------------------


def test_the_on_demand_api_is_debounced_and_returns_the_run_to_poll(
    client, project, researcher, outsider_researcher, annotators, sent, django_capture_on_commit_callbacks
):
    url = f"/api/projects/{project.pk}/ground-truth/"
    with django_capture_on_commit_callbacks(execute=True):
        first = only_the_owner(
            client, url, researcher, outsider_researcher, annotators[0], method="post", api=True
        )
        second = client.post(url)
    assert first.status_code == second.status_code == 202
    assert first.json()["queued"] is True and second.json()["queued"] is False
    run = first.json()["job"]
    assert second.json()["job"]["id"] == run["id"] and run["status"] == "queued"
    assert run["url"] == f"http://testserver/api/projects/{project.pk}/ground-truth/jobs/{run['id']}/"
    assert sent == [(project.pk, run["id"])]  # sent once, after the request's transaction committed


def test_runs_are_listed_newest_first_with_their_progress(
    client, project, researcher, outsider_researcher, annotators
):
    done = GroundTruthJob.objects.create(
        project=project,
        status="done",
        progress=1.0,
        snapshot=project.snapshots.get(),
        stage="wrote version 1",
    )
    running = GroundTruthJob.objects.create(
        project=project, status="running", progress=0.25, stage="agreement"
    )
    url = f"/api/projects/{project.pk}/ground-truth/jobs/"
    response = only_the_owner(client, url, researcher, outsider_researcher, annotators[0], api=True)
    results = response.json()["results"]
    assert [run["id"] for run in results] == [running.pk, done.pk]
    assert (results[0]["status"], results[0]["progress"], results[0]["snapshot_version"]) == (
        "running",
        0.25,
        None,
    )
    assert results[1]["snapshot_version"] == 1
    detail = only_the_owner(
        client, f"{url}{done.pk}/", researcher, outsider_researcher, annotators[0], api=True
    )
    assert detail.json()["stage"] == "wrote version 1" and detail.json()["snapshot_version"] == 1


def test_the_agreement_api_returns_the_report_the_page_shows(
    client, project, researcher, outsider_researcher, annotators
):
    url = f"/api/projects/{project.pk}/agreement/"
    response = only_the_owner(client, url, researcher, outsider_researcher, annotators[0], api=True)
    body = response.json()
    snapshot = project.snapshots.get()
    report = agreement_report(project, snapshot) | {"ties": tie_report(project, snapshot)}
    expected = json.loads(json.dumps(report))
    assert body == expected
    assert body["snapshot"]["version"] == 1 and len(body["annotators"]) == 3
    assert client.get(url + "?version=3").status_code == 404
    assert client.get(url + "?version=one").status_code == 400


def test_the_ratings_api_serves_rating_snapshots_only(
    client, ratings, project, researcher, outsider_researcher, annotators
):
    url = f"/api/projects/{ratings.pk}/snapshots/1/ratings/"
    response = only_the_owner(client, url, researcher, outsider_researcher, annotators[0], api=True)
    assert [item["document"] for item in response.json()["items"]] == ["s0", "s1", "s2"]
    assert client.get(f"/api/projects/{project.pk}/snapshots/1/ratings/").status_code == 404


def test_the_admin_lists_runs_read_only(client, project, django_user_model):
    run = GroundTruthJob.objects.create(project=project, status="failed", error="boom")
    admin = django_user_model.objects.create_superuser("admin", password="x")
    client.force_login(admin)
    assert client.get("/admin/evaluation/groundtruthjob/").status_code == 200
    assert "boom" in client.get(f"/admin/evaluation/groundtruthjob/{run.pk}/change/").content.decode()
    assert client.get("/admin/evaluation/groundtruthjob/add/").status_code == 403


def test_a_rating_snapshot_diff_is_the_same_on_the_page_and_in_the_api(client, ratings, researcher):
    """Every rating changed: the page and the API both list all three items as changed (the API
    once answered ``{"changed": [], "unchanged_count": 3}`` because it compared missing labels)."""
    Judgement.objects.filter(task__project=ratings).update(answer={"scores": {"fluency": 5, "coherence": 1}})
    assert build_snapshot(ratings.pk).version == 2
    client.force_login(researcher)
    page = client.get(reverse("ground-truth-diff", args=[ratings.pk]) + "?from=1&to=2").content.decode()
    body = client.get(f"/api/projects/{ratings.pk}/snapshots/2/diff/?against=1").json()
    assert "3 changed, 0 added, 0 removed, 0 unchanged." in page
    assert len(body["changed"]) == 3 and body["unchanged_count"] == 0
    first = body["changed"][0]
    assert first["new_label"] == "coherence 1, fluency 5" and first["old_label"] != first["new_label"]
    assert f"<td>{first['old_label']}</td><td>coherence 1, fluency 5</td>" in page
