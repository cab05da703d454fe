"""Judgements made away from the judging page (the demo's simulated crowd) go through the engine's
bookkeeping: submitted leases, first revisions, slots, completion, and the same refusals."""

from __future__ import annotations

import pytest

from annotation.judging.assignment import (
    AssignmentError,
    RecordedJudgement,
    block_annotator,
    claim_next_task,
    record_judgements,
)
from annotation.models import Assignment, Judgement, JudgementRevision, Task
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db


def items(project) -> list[Task]:
    return list(Task.objects.filter(project=project, kind=Task.Kind.ITEM).order_by("pool_rank", "id"))


def test_recorded_judgements_look_like_submitted_ones_and_complete_their_tasks(
    researcher, annotators, django_capture_on_commit_callbacks
):
    # The 1–1 split below completes under the lower-label tie rule (k = 2's default would refer it
    # to a third annotator: tests/engine/test_tie_referrals.py).
    project = make_project(researcher, annotators, k=2, tie_rule="lower")
    first, second = items(project)[:2]
    with django_capture_on_commit_callbacks() as announced:
        stored = record_judgements(
            project,
            [
                RecordedJudgement(first, annotators[0], 1, seconds_spent=12.5),
                RecordedJudgement(first, annotators[1], {"label": 0}),
                RecordedJudgement(second, annotators[0], 0),
            ],
        )
    assert [j.label for j in stored] == [1, 0, 0]
    assert len(announced) == 1  # one "judgements changed" for the whole batch
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.slots_taken, first.completed) == (2, True)
    assert (second.slots_taken, second.completed) == (1, False)
    assert set(Assignment.objects.values_list("status", flat=True)) == {Assignment.Status.SUBMITTED}
    assert JudgementRevision.objects.filter(number=1).count() == 3
    assert Judgement.objects.get(task=first, annotator=annotators[0]).seconds_spent == 12.5
    # The engine serves what is left as usual, and never the completed task or a task had twice.
    assert claim_next_task(project, annotators[0]).task_id not in (first.pk, second.pk)
    assert claim_next_task(project, annotators[2]).task_id == second.pk


@pytest.mark.parametrize(
    "problem",
    ["twice by one annotator", "more than k", "an outsider", "a blocked annotator", "a bad answer"],
)
def test_a_batch_with_any_problem_is_refused_whole(researcher, annotators, django_user_model, problem):
    project = make_project(researcher, annotators, k=2)
    task, other = items(project)[:2]
    batch = [RecordedJudgement(other, annotators[0], 1), RecordedJudgement(task, annotators[0], 1)]
    if problem == "twice by one annotator":
        batch.append(RecordedJudgement(task, annotators[0], 0))
    elif problem == "more than k":
        batch += [RecordedJudgement(task, annotators[1], 0), RecordedJudgement(task, annotators[2], 0)]
    elif problem == "an outsider":
        batch.append(RecordedJudgement(task, django_user_model.objects.create_user("stranger"), 0))
    elif problem == "a blocked annotator":
        block_annotator(project, annotators[1])
        batch.append(RecordedJudgement(task, annotators[1], 0))
    else:
        batch.append(RecordedJudgement(task, annotators[1], {"label": 7}))
    with pytest.raises(AssignmentError):
        record_judgements(project, batch)
    assert not Judgement.objects.exists() and not Assignment.objects.exists()
    assert set(Task.objects.values_list("slots_taken", flat=True)) == {0}


def test_an_annotator_who_already_holds_the_task_cannot_have_it_recorded(researcher, annotators):
    project = make_project(researcher, annotators, k=3)
    lease = claim_next_task(project, annotators[0])
    with pytest.raises(AssignmentError):
        record_judgements(project, [RecordedJudgement(lease.task, annotators[0], 1)])
    assert Task.objects.get(pk=lease.task_id).slots_taken == 1
