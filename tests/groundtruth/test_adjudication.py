"""Adjudication in the ground truth: a researcher's decision reaches the next snapshot (through the
signal and the debounced job, never in the request) and its qrels; the snapshot says how each
item was adjudicated, by an extra assessor or by a researcher (who, when, note); the ground-truth
page counts them; decisions are kept, withdrawn, and refused where they make no sense."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.adjudication.rules import AdjudicationError, settle
from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import AdjudicatedBy, Adjudication
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.downloads import qrels_text
from evaluation.ground_truth.read import fingerprint_inputs, read_inputs
from evaluation.jobs import embedded
from evaluation.models import GroundTruthJob, GroundTruthSnapshot
from tests.groundtruth.builders import gold_items, items, judge, label_project, likert_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def four(django_user_model):
    return [django_user_model.objects.create_user(f"assessor{i}", password="x") for i in range(1, 5)]


def disputed_project(owner, annotators, **settings):
    """Three items: d0 2 against 1 for relevant, d1 unanimous relevant, d2 unanimous not relevant."""
    project = label_project(owner, annotators, items=3, **settings)
    d0, d1, d2 = items(project)
    for annotator, label in zip(annotators[:3], [1, 1, 0], strict=True):
        judge(d0, annotator, label)
        judge(d1, annotator, 1)
        judge(d2, annotator, 0)
    return project


def row(snapshot: GroundTruthSnapshot, task):
    return snapshot.labels.get(task=task)


def test_a_hand_settled_label_is_in_the_next_snapshot_and_its_qrels(researcher, four):
    project = disputed_project(researcher, four)
    d0 = items(project)[0]
    first = build_snapshot(project.pk)
    assert row(first, d0).label == 1
    settle(d0, researcher, 0, "It only mentions gas flow in passing.")
    second = build_snapshot(project.pk)
    assert second.version == first.version + 1
    settled = row(second, d0)
    assert settled.label == 0 and settled.confidence == 1.0
    assert settled.adjudicated_by == AdjudicatedBy.RESEARCHER
    assert settled.aggregate_label == 1  # the annotators' majority, kept beside the decision
    assert settled.adjudication["researcher"] == "owner"
    assert settled.adjudication["note"] == "It only mentions gas flow in passing."
    assert settled.adjudication["at"].startswith(str(Adjudication.objects.get().created_at.date()))
    assert "1 0 d0 0" in qrels_text(second).splitlines()
    assert "1 0 d0 1" in qrels_text(first).splitlines()
    assert "|adjudicated:researcher=1|" in second.signature


def test_the_snapshot_says_which_items_an_extra_assessor_adjudicated_and_who(researcher, four):
    project = label_project(researcher, four, items=1, adjudication_rule="not_unanimous")
    for annotator, label in zip(four, [1, 0, 1, 0], strict=True):
        lease = claim_next_task(project, annotator)
        submit_judgement(lease.pk, annotator, label)
    snapshot = build_snapshot(project.pk)
    label = row(snapshot, items(project)[0])
    assert label.adjudicated_by == AdjudicatedBy.EXTRA_ASSESSOR
    assert label.adjudication["assessor"] == "assessor4"
    assert label.judgement_count == 4
    assert label.aggregate_label is None  # the aggregate itself counts the extra judgement


def test_an_item_settled_after_its_extra_assessor_says_both(researcher, four):
    project = label_project(researcher, four, items=1, adjudication_rule="not_unanimous")
    for annotator, label in zip(four, [1, 0, 1, 0], strict=True):
        lease = claim_next_task(project, annotator)
        submit_judgement(lease.pk, annotator, label)
    settle(items(project)[0], researcher, 1, "tie after four")
    label = row(build_snapshot(project.pk), items(project)[0])
    assert label.adjudicated_by == AdjudicatedBy.RESEARCHER and label.label == 1
    assert label.adjudication["extra_assessor"]["assessor"] == "assessor4"


def test_items_not_adjudicated_say_nothing(researcher, four):
    project = disputed_project(researcher, four)
    snapshot = build_snapshot(project.pk)
    assert set(snapshot.labels.values_list("adjudicated_by", flat=True)) == {""}
    assert "adjudicated" not in snapshot.signature


def test_a_decision_requests_a_job_through_the_signal_and_never_computes_in_the_request(
    client, researcher, four, django_capture_on_commit_callbacks
):
    project = disputed_project(researcher, four)
    build_snapshot(project.pk)
    d0 = items(project)[0]
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("item-adjudicate", args=[project.pk, d0.pk]), {"label": "0", "note": "checked"}
        )
    assert response.status_code == 302
    assert GroundTruthSnapshot.objects.filter(project=project).count() == 1  # nothing computed yet
    job = GroundTruthJob.objects.get(project=project)
    assert job.status == GroundTruthJob.Status.QUEUED
    embedded.run_queued()
    job.refresh_from_db()
    assert job.status == GroundTruthJob.Status.DONE and job.snapshot.version == 2
    assert row(job.snapshot, d0).label == 0


def test_a_decision_changes_the_fingerprint_and_none_leaves_old_fingerprints_alone(researcher, four):
    project = disputed_project(researcher, four)
    before = read_inputs(project.pk, None, "lower")
    assert before.fingerprint == fingerprint_inputs(
        project, before.method, "lower", [], _table(project), ([], [])
    )
    settle(items(project)[0], researcher, 0)
    after = read_inputs(project.pk, None, "lower")
    assert after.fingerprint != before.fingerprint


def _table(project):
    from evaluation.ground_truth.read import ground_truth_judgements, input_table

    read = list(
        ground_truth_judgements(project)
        .order_by("id")
        .values_list("id", "revision", "updated_at", "task_id", "annotator_id", "label")
    )
    return input_table(read, None)


def test_a_withdrawn_decision_gives_the_item_back_to_the_aggregate(researcher, four):
    project = disputed_project(researcher, four)
    d0 = items(project)[0]
    settle(d0, researcher, 0)
    assert row(build_snapshot(project.pk), d0).label == 0
    settle(d0, researcher, None)
    label = row(build_snapshot(project.pk), d0)
    assert label.label == 1 and label.adjudicated_by == ""
    assert list(d0.adjudications.order_by("created_at").values_list("label", flat=True)) == [0, None]


def test_the_newest_decision_is_in_force(researcher, four):
    project = disputed_project(researcher, four)
    d1 = items(project)[1]
    settle(d1, researcher, 0, "first thought")
    settle(d1, researcher, 1, "second thought")
    label = row(build_snapshot(project.pk), d1)
    assert label.label == 1 and label.adjudication["note"] == "second thought"


def test_decisions_that_make_no_sense_are_refused_with_the_reason(researcher, four):
    project = label_project(researcher, four, items=2, gold=1)
    judged, unjudged = items(project)
    judge(judged, four[0], 1)
    with pytest.raises(AdjudicationError, match="No one has judged this item yet"):
        settle(unjudged, researcher, 1)
    with pytest.raises(AdjudicationError, match="gold"):
        settle(gold_items(project)[0], researcher, 1)
    with pytest.raises(AdjudicationError, match="0 or 1, not 7"):
        settle(judged, researcher, 7)
    with pytest.raises(AdjudicationError, match="no decision to withdraw"):
        settle(judged, researcher, None)
    ratings = likert_project(researcher, four, items=1)
    judge(items(ratings)[0], four[0], {"scores": {"fluency": 3, "coherence": 4}})
    with pytest.raises(AdjudicationError, match="Only label projects"):
        settle(items(ratings)[0], researcher, 1)
    assert not Adjudication.objects.exists()


def test_a_graded_item_is_settled_to_one_of_its_levels(researcher, four):
    levels = [{"value": v, "label": name} for v, name in enumerate(["no", "partly", "fully"])]
    project = label_project(
        researcher, four, items=1, task_type="graded_relevance", config={"levels": levels}
    )
    task = items(project)[0]
    for annotator, label in zip(four[:3], [0, 1, 2], strict=True):
        judge(task, annotator, label)
    settle(task, researcher, 2)
    assert row(build_snapshot(project.pk), task).label == 2
    with pytest.raises(AdjudicationError, match="one of"):
        settle(task, researcher, 5)


def test_the_ground_truth_page_counts_adjudicated_items(client, researcher, four):
    project = label_project(researcher, four, items=2, adjudication_rule="not_unanimous")
    for annotator, label in zip(four, [1, 0, 1, 0], strict=True):
        lease = claim_next_task(project, annotator)
        submit_judgement(lease.pk, annotator, label)
    other = next(task for task in items(project) if task.judgements.count() < 4)
    for annotator in four[:3]:
        lease = claim_next_task(project, annotator)
        submit_judgement(lease.pk, annotator, 1)
    settle(other, researcher, 0)
    build_snapshot(project.pk)
    client.force_login(researcher)
    page = client.get(reverse("ground-truth", args=[project.pk])).content.decode()
    assert "1 by an extra assessor, 1 by a researcher" in page
