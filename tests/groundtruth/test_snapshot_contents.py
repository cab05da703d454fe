"""What a snapshot stores beyond labels: per-label agreement and bootstrap intervals, Dawid–Skene's
confusion matrices, z-score means for normalised rating projects — each equal to the pure function
it comes from, and shown on the agreement page."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse
from sklearn.metrics import cohen_kappa_score

from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.crowd.agreement.report import agreement_summary
from annotation.crowd.quality.annotators import dawid_skene_annotators
from annotation.crowd.ratings.normalisation import zscore_per_annotator
from annotation.models import Project
from evaluation.ground_truth.build import build_snapshot
from tests.groundtruth.builders import items, judge, label_project, likert_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(researcher, annotators):
    # 36 items: above the 30 an agreement interval needs (annotation.crowd.minimums).
    project = label_project(researcher, annotators, items=36)
    rng = random.Random(4)
    triples = []
    for task in items(project):
        truth = rng.random() < 0.5
        for annotator in annotators:
            label = int(truth if rng.random() < 0.8 else not truth)
            judge(task, annotator, label)
            triples.append((task.pk, annotator.pk, label))
    return project, triples


def test_the_snapshot_keeps_the_whole_agreement_report_with_intervals(judged):
    project, triples = judged
    snapshot = build_snapshot(project.pk)
    expected = agreement_summary(triples, intervals=True, resamples=1000, seed=0)
    for key in ("fleiss_kappa", "cohen_kappa_mean", "krippendorff_alpha", "per_label", "bootstrap"):
        assert (
            snapshot.agreement[key] == pytest.approx(expected[key])
            if isinstance(expected[key], float)
            else snapshot.agreement[key] == expected[key]
        )
    for figure in ("fleiss_kappa", "cohen_kappa_mean", "krippendorff_alpha"):
        interval, wanted = snapshot.agreement[f"{figure}_ci"], expected[f"{figure}_ci"]
        assert (interval["low"], interval["high"]) == pytest.approx((wanted["low"], wanted["high"]))
        assert interval["low"] <= interval["high"]


def test_a_dawid_skene_snapshot_carries_each_annotators_estimated_confusion_matrix(judged):
    project, triples = judged
    project.ground_truth_method = Project.GroundTruthMethod.DAWID_SKENE
    project.save()
    snapshot = build_snapshot(project.pk)
    model = dawid_skene_annotators(dawid_skene(triples))
    for row in model["annotators"]:
        stored = snapshot.annotator_report["annotators"][str(row["annotator"])]
        assert stored["reliability"] == pytest.approx(row["reliability"])
        for stored_row, expected_row in zip(stored["dawid_skene_confusion"], row["confusion"], strict=True):
            assert stored_row == pytest.approx(expected_row)
        assert all(sum(r) == pytest.approx(1) for r in stored["dawid_skene_confusion"])


def test_the_agreement_page_shows_per_label_agreement_intervals_and_dawid_skene_matrices(
    client, judged, researcher
):
    project, _ = judged
    project.ground_truth_method = Project.GroundTruthMethod.DAWID_SKENE
    project.save()
    build_snapshot(project.pk)
    client.force_login(researcher)
    page = client.get(reverse("agreement-report", args=[project.pk])).content.decode()
    assert "Agreement on each label" in page and "Specific agreement" in page
    assert "95% interval" in page and " to " in page
    assert "Dawid–Skene&#x27;s estimate" in page or "Dawid–Skene's estimate" in page


def test_a_normalised_rating_project_stores_the_mean_z_score_of_each_item(researcher, annotators):
    project = likert_project(researcher, annotators, items=5, rating_normalisation="zscore")
    rng = random.Random(2)
    dimension = project.config["dimensions"][0]
    rows = []
    for task in items(project):
        for annotator in annotators:
            scores = {d: rng.randint(1, 5) for d in project.config["dimensions"]}
            judge(task, annotator, {"scores": scores})
            rows.append((annotator.pk, task.pk, scores[dimension]))
    snapshot = build_snapshot(project.pk)
    z = zscore_per_annotator(rows)
    for label in snapshot.labels.all():
        mine = [value for (_, task), value in z.items() if task == label.task_id]
        assert label.details[dimension]["z_mean"] == pytest.approx(sum(mine) / len(mine))
    assert snapshot.parameters["normalisation"] == "zscore"


def test_switching_normalisation_on_writes_a_new_version(researcher, annotators):
    project = likert_project(researcher, annotators, items=2)
    for task in items(project):
        judge(task, annotators[0], {"scores": {d: 3 for d in project.config["dimensions"]}})
    assert build_snapshot(project.pk).version == 1
    assert build_snapshot(project.pk) is None
    project.rating_normalisation = "zscore"
    project.save()
    assert build_snapshot(project.pk).version == 2


def test_a_rating_projects_weighted_kappa_spans_the_whole_scale(researcher, annotators):
    # No one gave 3 or 4 for fluency: on the 1–5 scale a 2 against a 5 is three steps, as
    # scikit-learn counts them when told the scale's labels.
    project = likert_project(researcher, annotators, items=12)
    fluency = [(1, 2), (2, 5), (5, 5), (1, 1)] * 3  # 12 items: a pair's kappa needs 10
    for task, pair in zip(items(project), fluency, strict=True):
        for annotator, score in zip(annotators[:2], pair, strict=True):
            judge(task, annotator, {"scores": {"fluency": score, "coherence": 3}})
    stored = build_snapshot(project.pk).agreement["dimensions"]["fluency"]
    first, second = zip(*fluency, strict=True)
    expected = cohen_kappa_score(first, second, weights="quadratic", labels=[1, 2, 3, 4, 5])
    assert stored["cohen_kappa_mean"] == pytest.approx(expected, abs=1e-12)
    assert expected != pytest.approx(cohen_kappa_score(first, second, weights="quadratic"))
