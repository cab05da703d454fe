"""50 annotators in parallel threads over 1,000 items with k = 3, on PostgreSQL.

Each thread has its own database connection (Django opens one per thread) and closes it at the
end. Proves: exactly k judgements per item, never more, no annotator twice on an item, none lost.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.db.models import F

from annotation.judging.assignment import AssignmentError, ItemsBusy, claim_next_task, submit_judgement
from annotation.models import Document, Judgement, Project, Task, Topic
from tests.engine.parallel import together

ITEMS = 1000
GOLD = 20
ANNOTATORS = 50
K = 3


def open_for(project: Project, user) -> bool:
    """Is there still an item this annotator may take (ignoring row locks)?"""
    return (
        Task.objects.filter(
            project=project, kind=Task.Kind.ITEM, completed=False, slots_taken__lt=F("required_judgements")
        )
        .exclude(assignments__annotator=user)
        .exists()
    )


@pytest.mark.django_db(transaction=True)
def test_fifty_annotators_thousand_items_k3_give_exactly_3000_judgements(postgres_required, researcher):
    assert connection.vendor == "postgresql"
    users = [
        get_user_model().objects.create_user(username=f"load{i}", password="x") for i in range(ANNOTATORS)
    ]
    # Gold items mixed in at 10% must neither take item slots nor disturb the k rule.
    project = Project.objects.create(name="Load", owner=researcher, assignments_per_task=K, gold_rate=0.1)
    project.annotators.set(users)
    topic = Topic.objects.create(project=project, external_id="1", title="t")
    documents = Document.objects.bulk_create(
        Document(project=project, external_id=f"d{i}", text=f"text {i}") for i in range(ITEMS)
    )
    Task.objects.bulk_create(
        Task(project=project, topic=topic, document=d, pool_rank=i, required_judgements=K)
        for i, d in enumerate(documents)
    )
    gold_documents = Document.objects.bulk_create(
        Document(project=project, external_id=f"g{i}", text=f"gold {i}") for i in range(GOLD)
    )
    Task.objects.bulk_create(
        Task(
            project=project,
            kind=Task.Kind.GOLD,
            topic=topic,
            document=d,
            pool_rank=0,
            required_judgements=0,
            gold_answer={"label": 1},
        )
        for d in gold_documents
    )

    rejected: Counter[str] = Counter()

    def annotate(user) -> None:
        while True:
            try:
                assignment = claim_next_task(project, user)
            except ItemsBusy:  # all that is left is held by others for a moment: ask again
                continue
            if assignment is None:
                # SKIP LOCKED may hide rows that others hold for a moment; stop only when
                # nothing is left for this annotator at all.
                if open_for(project, user):
                    continue
                return
            try:
                submit_judgement(assignment.pk, user, assignment.task_id % 2)
            except AssignmentError as error:  # must not happen: the lease is live and ours
                rejected[str(error)] += 1

    together(annotate, [(user,) for user in users], timeout=120)
    assert rejected == Counter()

    every = list(Judgement.objects.filter(task__project=project).values_list("task_id", "annotator_id"))
    assert len(set(every)) == len(every)  # no annotator twice on any task, gold included
    gold = Judgement.objects.filter(task__project=project, task__kind=Task.Kind.GOLD).count()
    assert 0 < gold <= GOLD * ANNOTATORS
    judgements = list(
        Judgement.objects.filter(task__project=project, task__kind=Task.Kind.ITEM).values_list(
            "task_id", "annotator_id"
        )
    )
    assert len(judgements) == ITEMS * K
    per_item = Counter(task_id for task_id, _ in judgements)
    assert len(per_item) == ITEMS
    assert set(per_item.values()) == {K}
    assert len(set(judgements)) == len(judgements)  # no annotator twice on an item
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM)
    assert items.filter(completed=True).count() == ITEMS
    assert not items.exclude(slots_taken=K).exists()


@pytest.mark.django_db(transaction=True)
def test_a_double_click_never_leases_two_tasks_to_one_annotator(postgres_required, researcher, annotators):
    from tests.annotation.factories import make_project

    project = make_project(researcher, annotators[:1], k=1)
    barrier = threading.Barrier(8)
    leases: list[int] = []

    def click() -> None:
        try:
            barrier.wait()
            leases.append(claim_next_task(project, annotators[0]).pk)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=click) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(leases) == 8 and len(set(leases)) == 1  # every click got the same lease
    assert Task.objects.filter(project=project, slots_taken=1).count() == 1
