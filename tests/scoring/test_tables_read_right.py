"""Tables a researcher reads: one evaluation per ground truth and settings in every list (the ones
replaced when runs were added are left out, and counted), topics in natural order (2 before 10),
and measures chosen by ir_measures' names as well as trec_eval's."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import embedded
from evaluation.models import Evaluation
from evaluation.scoring.jobs import request_evaluation
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

TOPIC_IDS = ["10", "2", "1", "225", "q9", "q10"]


def add_run(researcher, project, tag: str, capture) -> None:
    run = "".join(f"{t} Q0 d{t}-1 1 2.0 {tag}\n{t} Q0 d{t}-2 2 1.0 {tag}\n" for t in TOPIC_IDS)
    with capture(execute=True):
        added = api(researcher).post(
            reverse("runs-api", args=[project.pk]), {"runs": [run], "pool_depth": 0}, format="json"
        )
    assert added.status_code == 201, added.content
    embedded.run_queued()


@pytest.fixture
def project(researcher, annotators, django_capture_on_commit_callbacks):
    project = Project.objects.create(name="Many topics", owner=researcher, assignments_per_task=1)
    project.annotators.set(annotators[:1])
    documents = [{"id": f"d{t}-{n}", "text": f"document {n} on {t}"} for t in TOPIC_IDS for n in (1, 2)]
    runs = [
        "".join(f"{t} Q0 d{t}-{n} {n} {3 - n}.0 runA\n" for t in TOPIC_IDS for n in (1, 2)),
        "".join(f"{t} Q0 d{t}-{n} {3 - n} {n}.0 runB\n" for t in TOPIC_IDS for n in (1, 2)),
    ]
    import_collection(
        project,
        topics=[{"id": t, "title": f"topic {t}"} for t in TOPIC_IDS],
        documents=documents,
        runs=runs,
        pool_depth=2,
    )
    while (lease := claim_next_task(project, annotators[0])) is not None:
        submit_judgement(lease.pk, annotators[0], int(lease.task.document.external_id.endswith("-1")))
    snapshot = build_snapshot(project.pk)
    with django_capture_on_commit_callbacks(execute=True):
        request_evaluation(project, snapshot=snapshot)
    assert embedded.run_queued() == 1
    return project


def test_lists_show_one_evaluation_per_ground_truth_and_settings(
    client, researcher, project, django_capture_on_commit_callbacks
):
    first = project.evaluations.get()
    add_run(researcher, project, "runC", django_capture_on_commit_callbacks)
    add_run(researcher, project, "runD", django_capture_on_commit_callbacks)
    done = list(project.evaluations.filter(status=Evaluation.Status.DONE).order_by("pk"))
    assert len(done) == 3 and [e.run_count for e in done] == [2, 3, 4]
    newest = done[-1]
    # Another setting of the same ground truth is another evaluation; a new request waits.
    strict = request_evaluation(project, snapshot=first.snapshot, judged_only=True)
    waiting = request_evaluation(project, snapshot=first.snapshot)
    assert waiting.status == Evaluation.Status.QUEUED
    client.force_login(researcher)
    page = client.get(reverse("evaluations-page", args=[project.pk])).content.decode()
    listed = [int(pk) for pk in re.findall(r'<tr id="evaluation-(\d+)"', page)]
    assert listed == [waiting.pk, strict.pk, newest.pk]  # newest first
    assert "2 older evaluations are left out" in page
    board = client.get(reverse("leaderboard", args=[project.pk])).content.decode()
    chooser = re.search(r'<select id="other-evaluation".*?</select>', board, re.S).group(0)
    assert re.findall(r'<option value="(\d+)"', chooser) == [str(newest.pk)]
    run = project.runs.get(tag="runA")
    detail = client.get(reverse("run-page", args=[project.pk, run.pk])).content.decode()
    assert detail.count("ground truth v1") == 1
    endpoint = reverse("evaluations-api", args=[project.pk])
    assert api(researcher).get(endpoint).json()["count"] == 5
    current = api(researcher).get(endpoint, {"current": "true"}).json()["results"]
    assert [e["id"] for e in current] == listed
    replaced = api(researcher).get(endpoint, {"current": "false"}).json()["results"]
    assert [e["id"] for e in replaced] == [done[1].pk, done[0].pk]


def test_topics_are_listed_in_natural_order(client, researcher, project):
    expected = ["1", "2", "10", "225", "q9", "q10"]
    evaluation = project.evaluations.get()
    run = project.runs.get(tag="runA")
    client.force_login(researcher)
    detail = client.get(reverse("run-page", args=[project.pk, run.pk])).content.decode()
    assert re.findall(r'<tr><th scope="row">([^<]+)</th><td>2</td>', detail) == expected
    drill = client.get(reverse("run-topics", args=[project.pk, evaluation.pk, run.pk])).content.decode()
    assert re.findall(r'<tr><th scope="row">([^<]+)</th>', drill) == [*expected, "all"]
    items = client.get(reverse("items-page", args=[project.pk])).content.decode()
    assert re.findall(r'<option value="([^"]+)">topic', items) == expected


def test_measures_are_chosen_by_trec_eval_or_ir_measures_names_and_shown_as_trec_eval_prints_them(
    client, researcher, project
):
    evaluation = project.evaluations.get()
    url = reverse("leaderboard-api", args=[project.pk, evaluation.pk])
    by_alias = api(researcher).get(url, {"measures": "nDCG@10,AP,P@5,RR"}).json()
    assert by_alias["measures"] == ["ndcg_cut_10", "map", "P_5", "recip_rank"]
    by_name = api(researcher).get(url, {"measures": "ndcg_cut_10,map,P_5,recip_rank"}).json()
    assert by_alias["rows"] == by_name["rows"]
    unknown = api(researcher).get(url, {"measures": "ERR@10"})
    assert unknown.status_code == 400 and "nDCG@10" in unknown.json()["measures"][0]
    client.force_login(researcher)
    page = client.get(reverse("leaderboard", args=[project.pk]), {"measures": "nDCG@10"}).content.decode()
    assert 'value="ndcg_cut_10"' in page
    plot = client.get(
        reverse("evaluation-plot", args=[project.pk, evaluation.pk, "per-topic", "svg"]),
        {"measure": "nDCG@10"},
    )
    assert plot.status_code == 200 and b"ndcg_cut_10" in plot.content


def test_roc_and_det_are_folded_with_what_they_say_and_averaged_over_topics(client, researcher, project):
    evaluation = project.evaluations.get()
    client.force_login(researcher)
    page = client.get(reverse("leaderboard", args=[project.pk])).content.decode()
    folded = re.search(r'<details id="binary-curves".*?</details>', page, re.S).group(0)
    for said in ("positive class", "unjudged documents are left out", "averaged", "near 0.5"):
        assert said in folded, said
    assert folded.count('loading="lazy"') == 2 and 'id="plot-roc"' in folded and 'id="plot-det"' in folded
    for kind in ("roc", "det"):
        image = client.get(reverse("evaluation-plot", args=[project.pk, evaluation.pk, kind, "svg"]))
        assert image.status_code == 200 and b"averaged over topics" in image.content
