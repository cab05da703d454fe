"""Ground-truth snapshots: Fleiss' kappa as statsmodels computes it, majority labels, idempotent reruns."""

from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Judgement, Task
from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import embedded
from evaluation.models import GroundTruthSnapshot
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db

# Labels each annotator gives, by the task's (topic, docno).
ANSWERS = {
    ("401", "d1"): (1, 1, 1),
    ("401", "d2"): (1, 0, 0),
    ("401", "d3"): (1, 1, 0),
    ("401", "d6"): (0, 0, 0),
    ("402", "d4"): (0, 1, 1),
    ("402", "d5"): (0, 0, 1),
    ("402", "d6"): (1, 0, 1),
}


def judge_everything(project, annotators):
    for index, annotator in enumerate(annotators):
        while (assignment := claim_next_task(project, annotator)) is not None:
            key = (assignment.task.topic.external_id, assignment.task.document.external_id)
            submit_judgement(assignment.pk, annotator, ANSWERS[key][index])


@pytest.fixture
def judged_project(researcher, annotators):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    return project


def expected_kappa() -> float:
    table, _ = aggregate_raters(np.array(list(ANSWERS.values())))
    return fleiss_kappa(table, method="fleiss")


def test_the_snapshot_holds_statsmodels_fleiss_kappa_and_majority_labels(judged_project):
    snapshot = build_snapshot(judged_project.pk)
    assert snapshot.version == 1
    assert snapshot.input_judgement_count == 21
    assert snapshot.agreement["fleiss_kappa"] == pytest.approx(expected_kappa(), abs=1e-12)
    assert snapshot.agreement["n_items"] == 7
    assert snapshot.agreement["n_annotators"] == 3
    labels = {
        (row.task.topic.external_id, row.task.document.external_id): (row.label, row.confidence)
        for row in snapshot.labels.select_related("task__topic", "task__document")
    }
    assert labels == {
        key: (int(sum(votes) >= 2), pytest.approx(max(sum(votes), 3 - sum(votes)) / 3))
        for key, votes in ANSWERS.items()
    }


def test_a_rerun_on_unchanged_judgements_writes_nothing(judged_project):
    assert build_snapshot(judged_project.pk) is not None
    assert build_snapshot(judged_project.pk) is None
    assert GroundTruthSnapshot.objects.count() == 1


def test_new_judgements_give_a_new_version(researcher, annotators):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    assignment = claim_next_task(project, annotators[0])
    submit_judgement(assignment.pk, annotators[0], 1)
    first = build_snapshot(project.pk)
    assignment = claim_next_task(project, annotators[1])
    submit_judgement(assignment.pk, annotators[1], 1)
    second = build_snapshot(project.pk)
    assert (first.version, second.version) == (1, 2)
    assert (first.input_judgement_count, second.input_judgement_count) == (1, 2)


def test_submitting_through_the_page_triggers_the_job(
    client, researcher, annotators, django_capture_on_commit_callbacks
):
    # No worker in tests (no REDIS_URL): on commit the job is queued for the embedded runner,
    # never computed inside the annotator's request.
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    client.force_login(annotators[0])
    client.post(reverse("claim", args=[project.pk]))
    assignment = annotators[0].assignments.get()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("submit", args=[project.pk, assignment.pk]), {"label": "1"})
    assert not GroundTruthSnapshot.objects.filter(project=project).exists()
    assert embedded.run_queued() == 1
    assert GroundTruthSnapshot.objects.get(project=project).input_judgement_count == 1


def test_export_qrels_writes_the_newest_snapshot(judged_project):
    build_snapshot(judged_project.pk)
    out = io.StringIO()
    call_command("export_qrels", str(judged_project.pk), stdout=out)
    expected = [
        f"{topic} 0 {docno} {int(sum(votes) >= 2)}" for (topic, docno), votes in sorted(ANSWERS.items())
    ]
    assert out.getvalue().splitlines() == expected


def test_export_qrels_explains_a_missing_snapshot(researcher, annotators):
    project = make_project(researcher, annotators)
    with pytest.raises(CommandError, match="no ground-truth snapshot yet"):
        call_command("export_qrels", str(project.pk))


def test_the_owner_downloads_qrels_from_the_api_and_others_cannot(
    client, judged_project, researcher, outsider_researcher
):
    build_snapshot(judged_project.pk)
    url = f"/api/projects/{judged_project.pk}/snapshots/1/qrels/"
    client.force_login(researcher)
    response = client.get(url)
    assert response.status_code == 200
    assert len(response.content.decode().splitlines()) == len(ANSWERS)
    client.force_login(outsider_researcher)
    assert client.get(url).status_code == 404


def test_annotators_cannot_read_ground_truth(client, judged_project, annotators):
    build_snapshot(judged_project.pk)
    client.force_login(annotators[0])
    assert client.get(f"/api/projects/{judged_project.pk}/snapshots/1/qrels/").status_code == 403
    download = reverse("ground-truth-download", args=[judged_project.pk, 1, "qrels"])
    assert client.get(download).status_code == 404
    assert client.get(reverse("project-page", args=[judged_project.pk])).status_code == 404


def test_judgements_are_counted_once_per_task_and_annotator(judged_project):
    assert Judgement.objects.count() == 21
    assert Task.objects.filter(completed=True).count() == 7


def test_a_dawid_skene_project_gets_dawid_skene_labels_and_all_agreement_figures(judged_project):
    from annotation.crowd.aggregation.dawid_skene import dawid_skene
    from annotation.crowd.agreement.cohen import cohen_kappa_pairs
    from annotation.crowd.agreement.krippendorff import krippendorff_alpha

    judged_project.ground_truth_method = "dawid-skene"
    judged_project.save()
    snapshot = build_snapshot(judged_project.pk)
    triples = list(Judgement.objects.values_list("task_id", "annotator_id", "label"))
    expected = dawid_skene(triples)
    assert snapshot.method == "dawid-skene"
    assert {row.task_id: row.label for row in snapshot.labels.all()} == expected.labels
    # Seven items: no pair shares the 10 a kappa needs (annotation.crowd.minimums), so no mean.
    assert cohen_kappa_pairs(triples).mean is not None
    assert cohen_kappa_pairs(triples, min_shared=10).mean is None
    assert snapshot.agreement["cohen_kappa_mean"] is None and snapshot.agreement["cohen_kappa_pairs"] == 0
    assert snapshot.agreement["krippendorff_alpha"] == pytest.approx(krippendorff_alpha(triples).value)
    assert snapshot.signature.startswith("cranfield-gt|method:dawid-skene|")
    assert "tolerance:1e-05" in snapshot.signature
