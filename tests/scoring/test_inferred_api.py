"""A stratified sampled pool in the app (Yilmaz, Kanoulas & Aslam 2008): runs imported with
``pool_method`` ``stratified`` become items for the drawn documents only, every pooled document is
stored with its stratum and inclusion probability, the snapshot's sample qrels download is what
sample_eval.pl reads, and the inferred measures the API answers are the pure core's on that file."""

from __future__ import annotations

import io

import pytest
from django.test import Client
from django.urls import reverse

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.sampled import sample_qrels, sample_qrels_text
from evaluation.jobs import embedded
from evaluation.metrics.trec.files import read_run, write_run
from evaluation.metrics.trec.inferred import sample_eval
from evaluation.metrics.trec.sample_files import read_sample_qrels
from evaluation.metrics.trec.sampling import parse_strata, stratified_sample
from evaluation.metrics.trec.stat_ap import inclusion_probabilities, stat_ap
from evaluation.models import RunScore, SampledPoolMember
from evaluation.scoring.jobs import request_evaluation
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

STRATA = "1-5:1,6-40:0.2"


def run_text(tag: str, step: int) -> str:
    run = {topic: {f"d{(i * step) % 60}": 100.0 - i for i in range(40)} for topic in ("1", "2")}
    out = io.StringIO()
    write_run(run, out, tag)
    return out.getvalue()


RUNS = [run_text("alpha", 1), run_text("beta", 7)]


@pytest.fixture
def project(researcher, annotators):
    project = Project.objects.create(name="Sampled", owner=researcher, assignments_per_task=1)
    project.annotators.set(annotators[:1])
    import_collection(
        project,
        topics=[{"id": "1", "title": "one"}, {"id": "2", "title": "two"}],
        documents=[{"id": f"d{i}", "text": f"document {i}"} for i in range(60)],
    )
    return project


def post_runs(user, project, **body):
    return api(user).post(
        reverse("runs-api", args=[project.pk]), {"runs": RUNS, **body}, format="json"
    )  # fmt: skip


def test_only_the_drawn_documents_become_items_and_every_pooled_one_keeps_its_probability(
    researcher, project
):
    response = post_runs(researcher, project, pool_method="stratified", pool_strata=STRATA, pool_seed=3)
    assert response.status_code == 201, response.content
    expected = stratified_sample([read_run(text.splitlines())[0] for text in RUNS], parse_strata(STRATA), 3)
    stored = SampledPoolMember.objects.filter(project=project)
    assert {
        (m.topic_id, m.document_id, m.best_rank, m.stratum, m.probability, m.sampled) for m in stored
    } == {(m.topic, m.docno, m.best_rank, m.stratum, m.probability, m.sampled) for m in expected}
    assert {m.design for m in stored} == {f"{STRATA};seed=3"}
    drawn = {(m.topic, m.docno) for m in expected if m.sampled}
    assert response.json()["tasks_created"] == len(drawn) < len(expected)
    assert {(t.topic.external_id, t.document.external_id) for t in project.tasks.all()} == drawn
    assert set(project.runs.values_list("pool_depth", flat=True)) == {40}


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"pool_strata": "1-5:1,7-40:0.2"}, "pool_strata", "must start at rank 6"),
        ({"pool_strata": "1-5:0"}, "pool_strata", "the sampling rate must be in (0, 1]"),
        ({"pool_budget": 10}, "pool_budget", "a sampled pool has no budget"),
    ],
)
def test_a_bad_design_is_a_400_naming_its_field_and_nothing_is_stored(
    researcher, project, body, field, words
):
    response = post_runs(researcher, project, pool_method="stratified", **body)
    assert response.status_code == 400
    assert any(words in message for message in response.json()[field])
    assert not project.runs.exists() and not SampledPoolMember.objects.exists()


def test_a_second_sampled_pool_is_refused(researcher, project):
    assert post_runs(researcher, project, pool_method="stratified", pool_strata=STRATA).status_code == 201
    again = api(researcher).post(
        reverse("runs-api", args=[project.pk]),
        {"runs": [run_text("gamma", 11)], "pool_method": "stratified"},
        format="json",
    )
    assert again.status_code == 400
    assert "the project has a sampled pool already" in again.json()["pool_method"][0]


def judged_snapshot(project, annotator, unjudged: int = 0):
    """Relevant: even-numbered documents; the last ``unjudged`` tasks are left without a label."""
    open_tasks = project.tasks.count() - unjudged
    for _ in range(open_tasks):
        assignment = claim_next_task(project, annotator)
        assert assignment is not None
        submit_judgement(
            assignment.pk, annotator, int(int(assignment.task.document.external_id[1:]) % 2 == 0)
        )
    return build_snapshot(project.pk)


def test_the_sample_qrels_and_the_inferred_measures_are_sample_eval_s(researcher, annotators, project):
    post_runs(researcher, project, pool_method="stratified", pool_strata=STRATA, pool_seed=5)
    snapshot = judged_snapshot(project, annotators[0], unjudged=2)
    download = api(researcher).get(reverse("snapshot-sample-qrels-api", args=[project.pk, snapshot.version]))
    assert download.status_code == 200
    # The ground-truth page links each snapshot's sample qrels, and the link works with the page's login.
    page_client = Client()
    page_client.force_login(researcher)
    page = page_client.get(reverse("ground-truth", args=[project.pk])).content.decode()
    link = reverse("snapshot-sample-qrels-api", args=[project.pk, snapshot.version])
    assert f'href="{link}"' in page
    assert page_client.get(link).content == download.content
    text = download.content.decode()
    qrels = read_sample_qrels(text.splitlines())
    members = SampledPoolMember.objects.filter(project=project)
    assert sum(len(topic) for topic in qrels.values()) == members.count()
    labelled = sum(j.rel >= 0 for topic in qrels.values() for j in topic.values())
    assert labelled == members.filter(sampled=True).count() - 2  # drawn but unlabelled: -1
    assert all(
        j.rel == int(int(docno[1:]) % 2 == 0)
        for topic in qrels.values()
        for docno, j in topic.items()
        if j.rel >= 0
    )

    answer = api(researcher).get(reverse("inferred-api", args=[project.pk]))
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["snapshot"] == snapshot.version and body["design"] == f"{STRATA};seed=5"
    for row, text_run in zip(body["runs"], RUNS, strict=True):
        run = read_run(text_run.splitlines())[0]
        expected = sample_eval(qrels, run)
        assert row["xinfAP"] == expected.infAP and row["infNDCG"] == expected.infNDCG
        assert (row["iP10"], row["inum_rel"]) == (expected.precision[10], expected.inum_rel)
        stat = stat_ap(inclusion_probabilities(qrels), run)
        assert row["statMAP_on_valid_topics"] == stat.stat_map
        assert row["statAP"] == pytest.approx(
            sum(v.stat_ap for v in stat.topics.values()) / len(expected.topics)
        )
        assert 0 < row["xinfAP"] <= 1


def test_without_a_sampled_pool_both_answer_404_and_outsiders_never_see_them(
    researcher, outsider_researcher, annotators, project
):
    post_runs(researcher, project, pool_depth=5)
    snapshot = judged_snapshot(project, annotators[0])
    sample_url = reverse("snapshot-sample-qrels-api", args=[project.pk, snapshot.version])
    assert api(researcher).get(sample_url).status_code == 404
    page_client = Client()
    page_client.force_login(researcher)
    assert "sample qrels" not in page_client.get(reverse("ground-truth", args=[project.pk])).content.decode()
    assert api(researcher).get(reverse("inferred-api", args=[project.pk])).status_code == 404
    assert api(outsider_researcher).get(reverse("inferred-api", args=[project.pk])).status_code == 404


def test_the_runs_page_draws_a_sampled_pool_and_names_a_bad_design(client, researcher, project):
    client.force_login(researcher)
    url = reverse("runs-page", args=[project.pk])
    assert 'value="stratified"' in client.get(url).content.decode()
    files = [io.BytesIO(text.encode()) for text in RUNS]
    for name, handle in zip(("alpha.run", "beta.run"), files, strict=True):
        handle.name = name
    bad = client.post(url, {"files": files, "pool_method": "stratified", "pool_strata": "1-5:2", "add": ""})
    assert "pool_strata: stratum 1 (1-5:2): the sampling rate must be in (0, 1]" in bad.content.decode()
    for handle in files:
        handle.seek(0)
    client.post(
        url, {"files": files, "pool_method": "stratified", "pool_strata": STRATA, "pool_seed": 3, "add": ""}
    )
    assert SampledPoolMember.objects.filter(project=project, design=f"{STRATA};seed=3").exists()
    assert project.tasks.count() == SampledPoolMember.objects.filter(project=project, sampled=True).count()


def test_an_evaluation_of_the_snapshot_scores_the_inferred_measures_too(
    researcher, annotators, project, django_capture_on_commit_callbacks
):
    """Beside trec_eval's measures (whose infAP is trec_eval's, hence xinfAP for sample_eval.pl's), per
    topic too, so the leaderboard can rank and test the runs on them."""
    post_runs(researcher, project, pool_method="stratified", pool_strata=STRATA, pool_seed=5)
    snapshot = judged_snapshot(project, annotators[0])
    with django_capture_on_commit_callbacks(execute=True):
        evaluation = request_evaluation(project, snapshot=snapshot)
    assert embedded.run_queued() == 1
    evaluation.refresh_from_db()
    assert f"|sample:{STRATA};seed=5|version:" in evaluation.signature
    qrels = read_sample_qrels(sample_qrels_text(sample_qrels(snapshot)).splitlines())
    for score in RunScore.objects.filter(evaluation=evaluation).select_related("run"):
        run = read_run(RUNS[["alpha", "beta"].index(score.run.tag)].splitlines())[0]
        expected = sample_eval(qrels, run)
        assert score.overall["xinfAP"] == expected.infAP and score.overall["infNDCG"] == expected.infNDCG
        assert score.per_topic["xinfAP"] == {topic: v.infAP for topic, v in expected.topics.items()}
        assert "infAP" in score.overall and set(score.per_topic["statAP"]) == set(expected.topics)
    board = api(researcher).get(
        reverse("leaderboard-api", args=[project.pk, evaluation.pk]), {"measures": "xinfAP,statAP,map"}
    )
    assert board.status_code == 200, board.content
