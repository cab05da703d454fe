"""A snapshot's fingerprint changes exactly when its inputs do, so reruns write nothing and every
real change (even one that bypassed the engine) writes a new version."""

from __future__ import annotations

import pytest

from annotation.models import Judgement, Membership
from evaluation.ground_truth.build import build_snapshot
from tests.groundtruth.builders import gold_items, items, judge, label_project, likert_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(researcher, annotators):
    project = label_project(researcher, annotators, items=3, gold=2)
    for position, task in enumerate(items(project)):
        for index, annotator in enumerate(annotators):
            judge(task, annotator, (position + index) % 2)
    assert build_snapshot(project.pk).version == 1
    return project


def test_a_rerun_on_the_same_inputs_writes_nothing(project):
    assert build_snapshot(project.pk) is None


def test_a_label_changed_without_touching_updated_at_still_counts(project):
    judgement = Judgement.objects.filter(task__project=project).first()
    Judgement.objects.filter(pk=judgement.pk).update(label=1 - judgement.label)  # no auto_now here
    assert build_snapshot(project.pk).version == 2


def test_blocking_an_annotator_changes_the_inputs_only_when_the_project_excludes_them(project, annotators):
    project.exclude_blocked_from_ground_truth = False
    project.save()
    Membership.objects.filter(project=project, annotator=annotators[0]).update(
        status=Membership.Status.BLOCKED
    )
    assert build_snapshot(project.pk).version == 2  # the setting itself is an input
    assert build_snapshot(project.pk) is None  # blocked, but not excluded: same judgements
    project.exclude_blocked_from_ground_truth = True
    project.save()
    snapshot = build_snapshot(project.pk)
    assert snapshot.version == 3 and snapshot.input_judgement_count == 6


def test_gold_answers_are_inputs_of_the_gold_weighted_vote_only(project, annotators):
    judge(gold_items(project)[0], annotators[0], 1)
    assert build_snapshot(project.pk) is None  # majority vote does not read gold
    project.ground_truth_method = "gold-weighted"
    project.save()
    assert build_snapshot(project.pk).version == 2
    judge(gold_items(project)[1], annotators[1], 1)
    assert build_snapshot(project.pk).version == 3


def test_a_changed_rating_on_any_dimension_counts(researcher, annotators):
    project = likert_project(researcher, annotators, items=2)
    for task in items(project):
        for annotator in annotators:
            judge(task, annotator, {"scores": {"fluency": 3, "coherence": 3}})
    assert build_snapshot(project.pk).version == 1
    judgement = Judgement.objects.filter(task__project=project).first()
    Judgement.objects.filter(pk=judgement.pk).update(answer={"scores": {"fluency": 3, "coherence": 4}})
    assert build_snapshot(project.pk).version == 2


def test_a_new_computation_version_writes_a_corrected_snapshot(project, monkeypatch):
    import evaluation.ground_truth.read as ground_truth

    monkeypatch.setattr(ground_truth, "COMPUTATION_VERSION", ground_truth.COMPUTATION_VERSION + 1)
    assert build_snapshot(project.pk).version == 2  # same judgements, but computed differently now
    assert build_snapshot(project.pk) is None
