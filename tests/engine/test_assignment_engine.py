"""The assignment engine beyond plain claiming: gold mixing, attention checks, serving order,
qualification, blocking, skipping and corrections."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from django.utils import timezone

from annotation.judging.assignment import (
    AssignmentError,
    block_annotator,
    claim_next_task,
    correct_judgement,
    skip_task,
    submit_judgement,
    unblock_annotator,
)
from annotation.models import Assignment, Judgement, JudgementRevision, Project, Task
from annotation.quality.qualification import QualificationError, grade_qualification
from evaluation.collection.flow import import_collection
from tests.annotation.factories import make_gold_project, make_likert_project, make_project

pytestmark = pytest.mark.django_db


def answer_for(task: Task) -> dict:
    return {"label": task.pk % 2}


def judge_everything(project, annotator, rng=None, answer=answer_for) -> list[Assignment]:
    served = []
    while (assignment := claim_next_task(project, annotator, rng=rng)) is not None:
        served.append(assignment)
        submit_judgement(assignment.pk, annotator, answer(assignment.task))
    return served


def test_gold_items_are_mixed_in_at_about_the_projects_rate(researcher, annotators):
    project = make_gold_project(researcher, annotators[:1], items=60, gold=40, k=1, gold_rate=0.25)
    served = judge_everything(project, annotators[0], rng=random.Random(3))
    kinds = Counter(a.task.kind for a in served)
    assert kinds[Task.Kind.ITEM] == 60
    # P(gold) = 0.25 per claim while items remain: about a quarter of what was served.
    share = kinds[Task.Kind.GOLD] / len(served)
    assert 0.12 < share < 0.38, kinds


def test_gold_items_use_no_item_slots_and_k_is_never_exceeded(researcher, annotators):
    project = make_gold_project(researcher, annotators, items=15, gold=6, k=2, gold_rate=0.5)
    for annotator in annotators:
        judge_everything(project, annotator, rng=random.Random(annotator.pk))
    per_item = Counter(Judgement.objects.filter(task__kind=Task.Kind.ITEM).values_list("task_id", flat=True))
    assert set(per_item.values()) == {2} and len(per_item) == 15
    assert Task.objects.filter(kind=Task.Kind.ITEM, completed=False).count() == 0
    pairs = list(Assignment.objects.values_list("task_id", "annotator_id"))
    assert len(pairs) == len(set(pairs)), "an annotator got the same task twice"
    assert set(Task.objects.filter(kind=Task.Kind.GOLD).values_list("slots_taken", flat=True)) == {0}


def test_gold_is_never_served_once_no_item_is_left(researcher, annotators):
    project = make_gold_project(researcher, annotators[:1], items=3, gold=10, k=1, gold_rate=0.0)
    judge_everything(project, annotators[0])
    project.gold_rate = 1.0
    project.save()
    assert claim_next_task(project, annotators[0]) is None


def test_gold_feedback_tells_the_expected_answer_only_when_the_project_enables_it(researcher, annotators):
    project = make_gold_project(researcher, annotators[:1], items=5, gold=3, k=1, gold_rate=1.0)
    assignment = claim_next_task(project, annotators[0], rng=random.Random(0))
    assert assignment.task.kind == Task.Kind.GOLD
    quiet = submit_judgement(assignment.pk, annotators[0], 0)
    assert quiet.gold_feedback is None
    project.gold_feedback = True
    project.save()
    assignment = claim_next_task(project, annotators[0], rng=random.Random(0))
    expected = assignment.task.gold_answer["label"]
    told = submit_judgement(assignment.pk, annotators[0], expected)
    assert told.gold_feedback.startswith("Correct")
    assert ("“relevant”" if expected == 1 else "“not relevant”") in told.gold_feedback
    assert "Because." in told.gold_feedback


def test_a_blocked_annotator_gets_no_more_tasks_and_their_lease_returns_to_the_pool(researcher, annotators):
    project = make_project(researcher, annotators, k=1)
    held = claim_next_task(project, annotators[0])
    assert block_annotator(project, annotators[0], "fails gold") == 1
    assert Task.objects.get(pk=held.task_id).slots_taken == 0
    with pytest.raises(AssignmentError, match="no longer take tasks"):
        claim_next_task(project, annotators[0])
    # Told why, not that their time ran out (their lease ended when they were blocked).
    with pytest.raises(AssignmentError, match="no longer take tasks"):
        submit_judgement(held.pk, annotators[0], 1)
    # The returned slot goes to someone else.
    assert claim_next_task(project, annotators[1]).task_id == held.task_id
    unblock_annotator(project, annotators[0])
    assert claim_next_task(project, annotators[0]) is not None


def qualification_project(researcher, annotators) -> Project:
    project = Project.objects.create(
        name="Q", owner=researcher, assignments_per_task=1, qualification_pass_rate=0.75
    )
    project.annotators.set(annotators)
    import_collection(
        project,
        topics=[{"id": "1", "title": "jet noise"}],
        documents=[{"id": f"d{i}", "text": f"text {i}"} for i in range(8)],
        items=[{"topic": "1", "document": f"d{i}"} for i in range(4)],
        qualification=[{"topic": "1", "document": f"d{i}", "answer": {"label": i % 2}} for i in range(4, 8)],
    )
    return project


def qualification_form(project, right: int) -> dict:
    """Form fields answering the qualification questions, the first ``right`` of them correctly."""
    form = {}
    for number, task in enumerate(project.tasks.filter(kind=Task.Kind.QUALIFICATION).order_by("id")):
        expected = task.gold_answer["label"]
        form[f"q{task.pk}-label"] = str(expected if number < right else 1 - expected)
    return form


def test_an_annotator_must_pass_the_qualification_test_before_judging(researcher, annotators):
    project = qualification_project(researcher, annotators)
    with pytest.raises(AssignmentError, match="qualification"):
        claim_next_task(project, annotators[0])
    failed = grade_qualification(project, annotators[0], qualification_form(project, right=2))
    assert (failed.correct, failed.total, failed.passed) == (2, 4, False)
    with pytest.raises(AssignmentError, match="qualification"):
        claim_next_task(project, annotators[0])
    passed = grade_qualification(project, annotators[0], qualification_form(project, right=3))
    assert passed.passed and passed.score == 0.75
    assert claim_next_task(project, annotators[0]).task.kind == Task.Kind.ITEM


def test_qualification_attempts_are_limited_and_every_question_must_be_answered(researcher, annotators):
    project = qualification_project(researcher, annotators)
    form = qualification_form(project, right=4)
    first_key = next(iter(form))
    with pytest.raises(QualificationError, match="Question 1: field 'label'"):
        grade_qualification(project, annotators[0], {k: v for k, v in form.items() if k != first_key})
    for _ in range(project.qualification_attempts_allowed):
        grade_qualification(project, annotators[0], qualification_form(project, right=0))
    with pytest.raises(QualificationError, match="every attempt"):
        grade_qualification(project, annotators[0], form)


def test_random_order_serves_by_serve_key_and_pool_order_by_rank(researcher, annotators):
    project = make_gold_project(researcher, annotators, items=30, gold=0, k=1)
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM)
    by_rank = list(items.order_by("pool_rank", "id").values_list("pk", flat=True))
    by_key = list(items.order_by("serve_key", "id").values_list("pk", flat=True))
    assert by_rank != by_key  # 30 random keys in rank order would be a 1-in-30! coincidence
    first = claim_next_task(project, annotators[0])
    assert first.task_id == by_rank[0]
    project.serve_order = Project.ServeOrder.RANDOM
    project.save()
    second = claim_next_task(project, annotators[1])
    # k = 1 and annotator 0 holds the first item by rank, so it is skipped if it is also first by key.
    expected = by_key[0] if by_key[0] != by_rank[0] else by_key[1]
    assert second.task_id == expected


def test_a_skipped_task_returns_to_the_pool_and_never_comes_back_to_the_skipper(researcher, annotators):
    project = make_project(researcher, annotators, k=1)
    first = claim_next_task(project, annotators[0])
    skip_task(first.pk, annotators[0])
    assert Task.objects.get(pk=first.task_id).slots_taken == 0
    served = [a.task_id for a in judge_everything(project, annotators[0])]
    assert first.task_id not in served
    assert claim_next_task(project, annotators[1]).task_id == first.task_id
    with pytest.raises(AssignmentError, match="skipped"):
        submit_judgement(first.pk, annotators[0], 1)


def test_answers_are_checked_against_the_task_type(researcher, annotators):
    project = make_likert_project(researcher, annotators, items=3)
    assignment = claim_next_task(project, annotators[0])
    with pytest.raises(AssignmentError, match=r"scores\.coherence"):
        submit_judgement(assignment.pk, annotators[0], {"scores": {"quality": 4}})
    with pytest.raises(AssignmentError, match="between 1 and 5"):
        submit_judgement(assignment.pk, annotators[0], {"scores": {"quality": 9, "coherence": 2}})
    stored = submit_judgement(assignment.pk, annotators[0], {"scores": {"quality": 4, "coherence": 2}})
    assert stored.judgement.label is None
    assert stored.judgement.answer == {"scores": {"quality": 4, "coherence": 2}}


def test_a_correction_keeps_every_earlier_version(researcher, annotators):
    project = make_project(researcher, annotators, k=1)
    assignment = claim_next_task(project, annotators[0])
    judgement = submit_judgement(assignment.pk, annotators[0], 1).judgement
    correct_judgement(judgement.pk, annotators[0], 0)
    correct_judgement(judgement.pk, annotators[0], 0)  # unchanged: no new version
    correct_judgement(judgement.pk, annotators[0], 1)
    judgement.refresh_from_db()
    assert (judgement.label, judgement.revision) == (1, 3)
    assert list(JudgementRevision.objects.filter(judgement=judgement).values_list("number", "label")) == [
        (1, 1),
        (2, 0),
        (3, 1),
    ]


def test_corrections_are_refused_for_others_and_once_the_project_is_closed(researcher, annotators):
    project = make_project(researcher, annotators, k=1)
    assignment = claim_next_task(project, annotators[0])
    judgement = submit_judgement(assignment.pk, annotators[0], 1).judgement
    with pytest.raises(AssignmentError, match="not one of your"):
        correct_judgement(judgement.pk, annotators[1], 0)
    project.active = False
    project.save()
    with pytest.raises(AssignmentError, match="closed"):
        correct_judgement(judgement.pk, annotators[0], 0)


def likert_answer(task: Task) -> dict:
    return {"scores": {"quality": 4, "coherence": 4}}


def test_rating_projects_get_repeats_and_degraded_outputs_as_attention_checks(researcher, annotators):
    project = make_likert_project(researcher, annotators[:1], items=10, k=1, attention_rate=0.3)
    checks = Task.objects.filter(project=project, kind__in=[Task.Kind.REPEAT, Task.Kind.DEGRADED])
    assert Counter(checks.values_list("kind", flat=True)) == {Task.Kind.REPEAT: 3, Task.Kind.DEGRADED: 3}
    degraded = checks.filter(kind=Task.Kind.DEGRADED).select_related("document", "source_task__document")
    for check in degraded:
        assert check.document.text != check.source_task.document.text
        assert set(check.document.text.split()) <= set(check.source_task.document.text.split())

    served = []
    rng = random.Random(5)
    while (assignment := claim_next_task(project, annotators[0], rng=rng)) is not None:
        task = assignment.task
        if task.kind == Task.Kind.REPEAT:
            # A repeat comes only after the annotator rated the item it repeats.
            assert Judgement.objects.filter(task=task.source_task, annotator=annotators[0]).exists()
        served.append(task.kind)
        submit_judgement(assignment.pk, annotators[0], likert_answer(task))
    assert served.count(Task.Kind.ITEM) == 10
    assert served.count(Task.Kind.DEGRADED) + served.count(Task.Kind.REPEAT) > 0


def test_a_lease_on_a_gold_item_expires_without_touching_item_slots(researcher, annotators):
    project = make_gold_project(researcher, annotators[:1], items=3, gold=2, k=1, gold_rate=1.0)
    assignment = claim_next_task(project, annotators[0], rng=random.Random(0))
    assert assignment.task.kind == Task.Kind.GOLD
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now())
    served = judge_everything(project, annotators[0], rng=random.Random(1))
    assert Counter(a.task.kind for a in served)[Task.Kind.ITEM] == 3
    assert set(Task.objects.values_list("slots_taken", flat=True)) <= {0, 1}


def test_attention_results_separate_attentive_from_careless_raters(researcher, annotators):
    from annotation.quality.attention_results import attention_results

    project = make_likert_project(researcher, annotators[:2], items=10, k=2, attention_rate=0.3)

    def attentive(task: Task) -> dict:
        low = task.kind == Task.Kind.DEGRADED
        return {"scores": {"quality": 1 if low else 4, "coherence": 1 if low else 4}}

    def careless(task: Task) -> dict:
        value = 5 if task.kind == Task.Kind.DEGRADED else 1 + task.pk % 5
        if task.kind == Task.Kind.REPEAT:  # far from their own first rating, whatever the row ids
            first = Judgement.objects.get(task=task.source_task, annotator=annotators[1])
            value = 5 if first.answer["scores"]["quality"] <= 3 else 1
        return {"scores": {"quality": value, "coherence": value}}

    for annotator, rate in ((annotators[0], attentive), (annotators[1], careless)):
        rng = random.Random(11)
        while (assignment := claim_next_task(project, annotator, rng=rng)) is not None:
            submit_judgement(assignment.pk, annotator, rate(assignment.task))
    results = attention_results(project)
    good, bad = results[annotators[0].pk], results[annotators[1].pk]
    assert good.total > 0 and good.pass_rate == 1.0
    assert bad.total > 0 and bad.pass_rate < 0.5
    # One annotator's results alone (what a study link's screen-out reads) are theirs in the whole.
    for annotator in annotators[:2]:
        assert attention_results(project, annotator.pk) == {annotator.pk: results[annotator.pk]}
    assert attention_results(project, annotators[2].pk) == {}
