"""Annotators judging through the pages in parallel, one request per judgement (the submission is
answered with the next task), on PostgreSQL: exactly k judgements per item from k different
annotators, none lost, no server error; and blocking an annotator while they submit never deadlocks.
"""

from __future__ import annotations

import re
import threading
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from django.urls import reverse

from annotation.judging.assignment import block_annotator, unblock_annotator
from annotation.models import Judgement, Task
from tests.annotation.factories import make_gold_project
from tests.engine.parallel import together

ANNOTATORS = 12
ITEMS = 120
K = 3
SUBMIT = re.compile(r'action="/projects/\d+/assignments/(\d+)/submit/"')
INLINE = {"X-Judging": "inline"}


def judge_until_done(client: Client, project_id: int, outcomes: Counter, limit: int = 400) -> None:
    """Ask for a task, then answer each with the next one, until nothing is left."""
    page = client.post(reverse("claim", args=[project_id]), headers=INLINE).content.decode()
    for _ in range(limit):
        match = SUBMIT.search(page)
        if match is None:
            if "nothing left" in page:
                return
            outcomes["asked again"] += 1  # every item left was busy for a moment
            page = client.post(reverse("claim", args=[project_id]), headers=INLINE).content.decode()
            continue
        url = reverse("submit", args=[project_id, int(match.group(1))])
        response = client.post(url, {"label": "1"}, headers=INLINE)
        outcomes[response.status_code] += 1
        page = response.content.decode()
        if 'class="error"' in page:
            outcomes["refused"] += 1
    raise AssertionError("an annotator never reached the end of the pool")


@pytest.mark.django_db(transaction=True)
def test_annotators_judging_in_one_round_trip_each_give_exactly_k_judgements(postgres_required, researcher):
    users = [get_user_model().objects.create_user(f"judge{i}", password="x") for i in range(ANNOTATORS)]
    project = make_gold_project(researcher, users, items=ITEMS, gold=10, k=K, gold_rate=0.1)
    outcomes: Counter = Counter()

    def annotate(user) -> None:
        client = Client()
        client.force_login(user)
        judge_until_done(client, project.pk, outcomes)

    together(annotate, [(user,) for user in users], timeout=180)
    assert set(outcomes) <= {200, "asked again"}, outcomes  # no refusal, no server error

    items = Judgement.objects.filter(project=project, task__kind=Task.Kind.ITEM)
    per_item = Counter(items.values_list("task_id", flat=True))
    assert len(per_item) == ITEMS and set(per_item.values()) == {K}
    pairs = list(Judgement.objects.filter(project=project).values_list("task_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))
    assert not Task.objects.filter(project=project, kind=Task.Kind.ITEM).exclude(slots_taken=K).exists()
    assert Judgement.objects.filter(project=project, seconds_on_task__isnull=True).count() == 0


@pytest.mark.django_db(transaction=True)
def test_blocking_an_annotator_while_they_submit_never_deadlocks(postgres_required, researcher):
    annotator = get_user_model().objects.create_user("busy", password="x")
    project = make_gold_project(researcher, [annotator], items=200, gold=0, k=1)
    errors: list[BaseException] = []
    statuses: Counter = Counter()
    done = threading.Event()

    def submit_all_the_time() -> None:
        try:
            client = Client()
            client.force_login(annotator)
            page = client.post(reverse("claim", args=[project.pk]), headers=INLINE).content.decode()
            while not done.is_set():
                match = SUBMIT.search(page)
                if match is None:  # blocked for now: ask again
                    response = client.post(reverse("claim", args=[project.pk]), headers=INLINE)
                else:
                    url = reverse("submit", args=[project.pk, int(match.group(1))])
                    response = client.post(url, {"label": "0"}, headers=INLINE)
                statuses[response.status_code] += 1
                page = response.content.decode()
        except BaseException as error:  # a deadlock would surface here as a database error
            errors.append(error)
        finally:
            connections.close_all()

    # Before the submission took the membership lock first, its claim locked the membership after
    # the lease while blocking locks them the other way round: PostgreSQL found a deadlock within
    # these 300 rounds.
    worker = threading.Thread(target=submit_all_the_time)
    worker.start()
    try:
        for _ in range(300):
            block_annotator(project, annotator)
            unblock_annotator(project, annotator)
    finally:
        done.set()
        worker.join(timeout=60)
        connections.close_all()
    assert errors == []
    assert set(statuses) == {200} and statuses[200] > 0
