"""A project whose runs are scored: judged by three annotators (one dissenting), a snapshot, and
an evaluation run by the embedded runner."""

from __future__ import annotations

import pytest

from annotation.judging.assignment import claim_next_task, submit_judgement
from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import embedded
from evaluation.scoring.jobs import request_evaluation
from tests.annotation.factories import make_project

# Every annotator's label per (topic, document): d1, d3 and d4 relevant by majority.
RELEVANT = {("401", "d1"), ("401", "d3"), ("402", "d4")}


def judge_everything(project, annotators, dissenter: int = 2):
    """Each annotator labels every task by ``RELEVANT``; the ``dissenter`` flips every label."""
    for index, annotator in enumerate(annotators):
        while (assignment := claim_next_task(project, annotator)) is not None:
            task = assignment.task
            label = int((task.topic.external_id, task.document.external_id) in RELEVANT)
            submit_judgement(assignment.pk, annotator, 1 - label if index == dissenter else label)


@pytest.fixture
def scored(researcher, annotators, django_capture_on_commit_callbacks):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    snapshot = build_snapshot(project.pk)
    with django_capture_on_commit_callbacks(execute=True):
        evaluation = request_evaluation(project, snapshot=snapshot)
    assert embedded.run_queued() == 1
    evaluation.refresh_from_db()
    return evaluation
