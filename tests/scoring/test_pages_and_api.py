"""Runs, evaluations, the leaderboard and external qrels on pages and over the API: the owner sees
them, anyone else gets 404, bad parameters a 400 naming the parameter."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from evaluation.jobs import embedded
from evaluation.metrics.trec.files import read_run
from evaluation.models import Evaluation, ExternalQrels
from evaluation.scoring.external import crowd_against_external
from tests.annotation.factories import RUN_A

QRELS = "401 0 d1 1\n401 0 d2 1\n401 0 d3 0\n402 0 d4 1\n402 0 d9 1\n"


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def test_the_owner_sees_runs_and_downloads_them(client, scored, researcher):
    project = scored.project
    client.force_login(researcher)
    page = client.get(reverse("runs-page", args=[project.pk]))
    assert page.status_code == 200 and b"runA" in page.content and b"runB" in page.content
    run = project.runs.get(tag="runA")
    download = client.get(reverse("run-download", args=[project.pk, run.pk]))
    assert read_run(download.content.decode().splitlines())[0] == read_run(RUN_A.splitlines())[0]
    assert client.get(reverse("run-page", args=[project.pk, run.pk])).status_code == 200


def test_others_get_404_everywhere(client, scored, outsider_researcher):
    project = scored.project
    run = project.runs.first()
    client.force_login(outsider_researcher)
    for name, args in [
        ("runs-page", [project.pk]),
        ("run-page", [project.pk, run.pk]),
        ("run-download", [project.pk, run.pk]),
        ("evaluations-page", [project.pk]),
        ("leaderboard", [project.pk]),
        ("leaderboard-download", [project.pk, scored.pk, "csv"]),
        ("run-topics", [project.pk, scored.pk, run.pk]),
    ]:
        assert client.get(reverse(name, args=args)).status_code == 404, name
    other = api(outsider_researcher)
    for name, args in [
        ("runs-api", [project.pk]),
        ("run-trec-api", [project.pk, run.pk]),
        ("evaluations-api", [project.pk]),
        ("leaderboard-api", [project.pk, scored.pk]),
        ("external-agreement-api", [project.pk, scored.pk]),
        ("plot-data-api", [project.pk, scored.pk, "pr"]),
        ("systems-api", [project.pk]),
        ("external-qrels-api", [project.pk]),
    ]:
        assert other.get(reverse(name, args=args)).status_code == 404, name


def test_the_leaderboard_page_shows_scores_checks_and_downloads(client, scored, researcher):
    project = scored.project
    client.force_login(researcher)
    page = client.get(reverse("leaderboard", args=[project.pk]), {"measures": "map,P_5"})
    assert page.status_code == 200
    text = page.content.decode()
    for fragment in (
        "runA",
        "runB",
        scored.signature,
        "Pool bias",
        "Ranking stability",
        "Unjudged documents",
    ):
        assert fragment in text
    assert client.get(reverse("leaderboard", args=[project.pk]), {"measures": "nope"}).status_code == 400
    assert client.get(reverse("leaderboard", args=[project.pk]), {"test": "z"}).status_code == 400
    rows = list(csv.reader(io.StringIO(
        client.get(reverse("leaderboard-download", args=[project.pk, scored.pk, "csv"]), {"measures": "map"})
        .content.decode()
    )))  # fmt: skip
    assert rows[0] == ["rank", "run", "map", "map_low", "map_high", "note"]
    overall = {row.run.tag: row.overall["map"] for row in scored.scores.select_related("run")}
    assert {row[1]: float(row[2]) for row in rows[1:]} == pytest.approx(overall, abs=1e-6)
    text = client.get(reverse("leaderboard-download", args=[project.pk, scored.pk, "txt"])).content.decode()
    assert "runid                 \tall\trunA" in text and "map                   \tall\t" in text


def test_the_leaderboard_api_gives_intervals_and_pairs_with_their_reasons(scored, researcher):
    """Two topics: every mean, no interval and no verdict, each with its reason
    (tests/scoring/test_honest_leaderboard.py has the figures on enough topics)."""
    response = api(researcher).get(
        reverse("leaderboard-api", args=[scored.project.pk, scored.pk]), {"measures": "map,ndcg", "test": "t"}
    )
    assert response.status_code == 200, response.content
    data = response.json()
    means = [row["values"]["map"]["mean"] for row in data["rows"]]
    assert means == sorted(means, reverse=True)
    for row in data["rows"]:
        assert row["values"]["map"]["low"] is None and "too few topics" in row["values"]["map"]["reason"]
    (pair,) = data["pairs"]
    assert pair["p_value"] is None and "too few topics" in data["significance"]["reason"]
    bad = api(researcher).get(reverse("leaderboard-api", args=[scored.project.pk, scored.pk]), {"alpha": "2"})
    assert bad.status_code == 400 and "alpha" in bad.json()


def test_runs_added_over_the_api_are_pooled_and_scored(
    scored, researcher, django_capture_on_commit_callbacks
):
    project = scored.project
    client = api(researcher)
    run_c = "401 Q0 d5 1 9.0 runC\n402 Q0 d1 1 3.0 runC\n"
    preview = client.post(
        reverse("runs-api", args=[project.pk]),
        {"runs": [run_c], "pool_depth": 1, "dry_run": True},
        format="json",
    )
    assert preview.status_code == 200 and preview.json()["tasks_created"] == 2
    refused = client.post(
        reverse("runs-api", args=[project.pk]), {"runs": [run_c], "topics": []}, format="json"
    )
    assert refused.status_code == 400 and "topics" in refused.json()
    bad = client.post(
        reverse("runs-api", args=[project.pk]), {"runs": ["401 Q0 d5 1 high runC"]}, format="json"
    )
    assert bad.status_code == 400 and "runs[0]" in bad.json()
    with django_capture_on_commit_callbacks(execute=True):
        added = client.post(
            reverse("runs-api", args=[project.pk]), {"runs": [run_c], "pool_depth": 1}, format="json"
        )
    assert added.status_code == 201 and added.json()["tasks_created"] == 2
    assert embedded.run_queued() == 1  # a new evaluation of every run, the new one included
    newest = project.evaluations.order_by("-pk").first()
    assert newest.status == Evaluation.Status.DONE and newest.run_count == 3
    listed = client.get(reverse("runs-api", args=[project.pk])).json()
    assert listed["count"] == 3 and [run["tag"] for run in listed["results"]] == ["runA", "runB", "runC"]
    assert client.get(listed["results"][2]["download"]).content.decode().startswith("401 Q0 d5 1 ")
    only_c = client.get(reverse("runs-api", args=[project.pk]), {"tag": "runC", "page_size": 1}).json()
    assert [run["tag"] for run in only_c["results"]] == ["runC"]


def test_external_qrels_are_imported_scored_and_compared(
    client, scored, researcher, django_capture_on_commit_callbacks
):
    project = scored.project
    endpoint = reverse("external-qrels-api", args=[project.pk])
    bad = api(researcher).post(endpoint, {"name": "official", "qrels": "401 0 d1\n"}, format="json")
    assert bad.status_code == 400 and "line 1" in json.dumps(bad.json())
    unknown = api(researcher).post(endpoint, {"name": "official", "qrels": "999 0 d1 1\n"}, format="json")
    assert unknown.status_code == 400 and "999" in unknown.json()["qrels"][0]
    with django_capture_on_commit_callbacks(execute=True):
        created = api(researcher).post(endpoint, {"name": "official", "qrels": QRELS}, format="json")
    assert created.status_code == 201 and created.json()["relevant_count"] == 4
    assert (
        api(researcher).post(endpoint, {"name": "official", "qrels": QRELS}, format="json").status_code == 400
    )
    assert embedded.run_queued() == 1
    external = ExternalQrels.objects.get(project=project)
    against = project.evaluations.get(external_qrels=external)
    assert against.status == Evaluation.Status.DONE and against.signature.startswith("qrels:official|")
    # The leaderboard against the snapshot compares the crowd with the external qrels.
    client.force_login(researcher)
    text = client.get(reverse("leaderboard", args=[project.pk]), {"evaluation": scored.pk}).content.decode()
    # d9 (402) is relevant externally and was never pooled: 3 of its 4 relevant documents were judged.
    assert "holds 3 of the 4 documents" in text
    # The same comparison over the API, topic by topic: what crowd_against_external computes.
    agreement = api(researcher).get(reverse("external-agreement-api", args=[project.pk, scored.pk]))
    (compared,) = agreement.json()["external_qrels"]
    assert compared == crowd_against_external(scored.snapshot, external, scored.relevance_level)
    assert compared["reference_relevant"] == 4 and compared["reference_relevant_judged"] == 3
    assert [row["topic"] for row in compared["topics"]] == ["401", "402"]
    assert all(row["kappa"] is None and "too few" in row["reason"] for row in compared["topics"])
    assert api(researcher).get(reverse("external-agreement-api", args=[project.pk, against.pk])).json() == {
        "evaluation": against.pk,
        "external_qrels": [],  # scored against the external qrels themselves: nothing to compare
    }


def test_an_evaluation_is_requested_over_the_api(scored, researcher, django_capture_on_commit_callbacks):
    project = scored.project
    endpoint = reverse("evaluations-api", args=[project.pk])
    with django_capture_on_commit_callbacks(execute=True):
        response = api(researcher).post(endpoint, {"relevance_level": 1, "judged_only": True}, format="json")
    assert response.status_code == 202, response.content
    assert "J:yes" in response.json()["signature"]
    embedded.run_queued()
    detail = api(researcher).get(reverse("evaluation-api", args=[project.pk, response.json()["id"]])).json()
    assert detail["status"] == "done" and detail["progress"] == 1.0
    nope = api(researcher).post(endpoint, {"ground_truth": "snapshot:99"}, format="json")
    assert nope.status_code == 400 and "ground_truth" in nope.json()
    extra = api(researcher).post(endpoint, {"colour": "red"}, format="json")
    assert extra.status_code == 400
    # Listed newest first, paginated, filtered by status and by ground truth.
    listed = api(researcher).get(endpoint, {"page_size": 1}).json()
    assert listed["count"] == 2 and listed["next"] and listed["results"][0]["id"] == response.json()["id"]
    query = {"snapshot": scored.snapshot.version, "status": "done"}
    by_snapshot = api(researcher).get(endpoint, query).json()
    assert by_snapshot["count"] == 2
    assert api(researcher).get(endpoint, {"external_qrels": "official"}).json()["count"] == 0
    assert api(researcher).get(endpoint, {"status": "sleeping"}).status_code == 400
