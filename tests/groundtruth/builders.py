"""Builders for ground-truth tests: projects with items and gold, and judgements written directly.

Judgements are stored as ``submit_judgement`` stores them (lease, judgement, first revision), but
without the serving engine, so each test decides exactly who answers what.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from annotation.judging.assignment import correct_judgement
from annotation.models import Assignment, Judgement, JudgementRevision, Project, Task
from evaluation.collection.flow import import_collection

LIKERT_CONFIG = {"dimensions": ["fluency", "coherence"], "scale": [1, 5]}


def label_project(owner, annotators, *, items: int, gold: int = 0, **settings) -> Project:
    """Binary relevance: items d0…, and gold items g0… whose expected label is 1 for even numbers."""
    project = Project.objects.create(name="Relevance", owner=owner, **settings)
    project.annotators.set(annotators)
    import_collection(
        project,
        topics=[{"id": "1", "title": "gas flow"}],
        documents=[{"id": f"d{i}", "text": f"doc {i}"} for i in range(items)]
        + [{"id": f"g{i}", "text": f"gold {i}"} for i in range(gold)],
        items=[{"topic": "1", "document": f"d{i}"} for i in range(items)],
        gold=[{"topic": "1", "document": f"g{i}", "answer": {"label": int(i % 2 == 0)}} for i in range(gold)],
    )
    return project


def likert_project(owner, annotators, *, items: int, **settings) -> Project:
    project = Project.objects.create(
        name="Ratings",
        owner=owner,
        task_type=Project.TaskType.LIKERT,
        config=LIKERT_CONFIG,
        **settings,
    )
    project.annotators.set(annotators)
    import_collection(
        project,
        topics=[{"id": "src", "title": "a dialogue"}],
        documents=[{"id": f"s{i}", "text": f"summary {i}"} for i in range(items)],
        items=[{"topic": "src", "document": f"s{i}"} for i in range(items)],
    )
    return project


def items(project: Project) -> list[Task]:
    return list(project.tasks.filter(kind=Task.Kind.ITEM).order_by("document__external_id"))


def gold_items(project: Project) -> list[Task]:
    return list(project.tasks.filter(kind=Task.Kind.GOLD).order_by("document__external_id"))


def judge(task: Task, annotator, answer: dict | int, seconds: float | None = None) -> Judgement:
    """Store a submitted judgement with its first revision, as the engine does."""
    answer = {"label": answer} if isinstance(answer, int) else answer
    assignment = Assignment.objects.create(
        task=task,
        annotator=annotator,
        status=Assignment.Status.SUBMITTED,
        expires_at=timezone.now() + timedelta(hours=1),
    )
    judgement = Judgement.objects.create(
        project_id=task.project_id,
        task=task,
        annotator=annotator,
        assignment=assignment,
        label=answer.get("label"),
        answer=answer,
        seconds_spent=seconds,
        seconds_on_task=seconds,
    )
    JudgementRevision.objects.create(judgement=judgement, number=1, label=judgement.label, answer=answer)
    return judgement


def correct(judgement: Judgement, answer: dict | int) -> Judgement:
    """A later correction through the engine: a new revision; the judgement row holds the newest answer."""
    return correct_judgement(judgement.pk, judgement.annotator, answer)
