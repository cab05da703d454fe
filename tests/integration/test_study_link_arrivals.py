"""Crowd workers arriving by a study link at the same moment, on PostgreSQL: threads released together
by a barrier, each with a browser of its own (a django.test.Client: its own cookies, its own database
connection), through the real views (annotation.accounts.study_views, the judging views).

Proves: fifty participants arriving at once become fifty workers, annotators and memberships, and the
assignment engine keeps exact k under the rush (no item judged more than ``required_judgements``
times, ``slots_taken`` = judgements + live leases); one participant id arriving from eight tabs at
once is one worker, one session, one membership; two sessions of one worker racing for the last
open item end with one lease and one judgement of it.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, Q
from django.test import Client
from django.urls import reverse

from annotation.judging.platforms import create_link
from annotation.models import (
    Assignment,
    Judgement,
    Membership,
    PlatformWorker,
    Project,
    StudyLink,
    StudySession,
    Task,
)
from evaluation.collection.flow import import_collection
from tests.engine.parallel import together

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

STUDY_ID = "6123456789abcdef01234567"
WORKERS = 50
K = 2
TIMEOUT = 45


def study_project(owner, items: int, k: int) -> Project:
    project = Project.objects.create(name="Rush", owner=owner, assignments_per_task=k)
    import_collection(
        project,
        topics=[{"id": "1", "title": "jet noise reduction"}],
        documents=[{"id": f"d{i}", "text": f"Abstract {i} on jet noise."} for i in range(items)],
        items=[{"topic": "1", "document": f"d{i}"} for i in range(items)],
    )
    return project


def prolific_link(project: Project, **fields) -> StudyLink:
    return create_link(
        project, None, platform=StudyLink.Platform.PROLIFIC, completion_code="C0MPLETE", **fields
    )


def pid(number: int) -> str:
    """A Prolific participant id: 24 hexadecimal digits."""
    return f"{number:024x}"


def link_url(link: StudyLink, participant: str, session: str = "s1") -> str:
    query = urlencode({"PROLIFIC_PID": participant, "STUDY_ID": STUDY_ID, "SESSION_ID": session})
    return f"{reverse('study', args=[link.slug])}?{query}"


def live_lease(project: Project, annotator_id: int) -> Assignment | None:
    return Assignment.objects.filter(
        task__project=project, annotator_id=annotator_id, status=Assignment.Status.ACTIVE
    ).first()


def claim(client: Client, project: Project, annotator_id: int, tries: int = 60) -> Assignment | None:
    """Press "Get the next task" until a lease is held, as a worker told "every item left is being
    worked on by someone else right now" would press "Check again"; None if the project says
    nothing is left for them."""
    for _ in range(tries):
        client.post(reverse("claim", args=[project.pk]))
        lease = live_lease(project, annotator_id)
        if lease is not None:
            return lease
        left = Task.objects.filter(
            project=project, kind=Task.Kind.ITEM, completed=False, slots_taken__lt=K
        ).exclude(assignments__annotator_id=annotator_id)
        if not left.exists():
            return None
        time.sleep(0.05)
    raise AssertionError("a claim was refused as busy again and again")


def assert_exact_k(project: Project) -> None:
    """No item holds more than k, and every item's taken slots are its judgements and live leases."""
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM).annotate(
        judged=Count("judgements", distinct=True),
        leased=Count("assignments", filter=Q(assignments__status=Assignment.Status.ACTIVE), distinct=True),
    )
    for item in items:
        assert item.judged <= item.required_judgements, (item.pk, item.judged, item.required_judgements)
        assert item.slots_taken == item.judged + item.leased, (item.pk, item.slots_taken, item.judged)
    pairs = list(Judgement.objects.filter(project=project).values_list("task_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))  # nobody judged an item twice


def test_fifty_participants_arriving_at_once_become_fifty_annotators_and_k_stays_exact(
    postgres_required, researcher
):
    assert connection.vendor == "postgresql"
    # 25 items x k = 2: exactly one slot for each of the fifty, so every slot is fought over.
    project = study_project(researcher, items=WORKERS // K, k=K)
    link = prolific_link(project, tasks_per_session=1)
    participants = [pid(0x5F1A0000 + i) for i in range(WORKERS)]
    done: list[str] = []

    def participant(platform_id: str) -> None:
        client = Client()
        started = client.post(link_url(link, platform_id))
        assert started.status_code == 302 and started["Location"] == reverse("judge", args=[project.pk])
        annotator_id = PlatformWorker.objects.get(project=project, platform_id=platform_id).annotator_id
        lease = claim(client, project, annotator_id)
        assert lease is not None, f"{platform_id} found nothing to judge"
        submitted = client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "1"})
        assert submitted.status_code == 302
        page = client.get(reverse("study-done", args=[link.slug]))
        assert page.status_code == 200 and b"C0MPLETE" in page.content, platform_id
        done.append(platform_id)

    together(participant, [(p,) for p in participants], timeout=TIMEOUT)

    assert sorted(done) == sorted(participants)
    workers = PlatformWorker.objects.filter(project=project)
    assert sorted(workers.values_list("platform_id", flat=True)) == sorted(participants)
    annotators = set(workers.values_list("annotator_id", flat=True))
    assert len(annotators) == WORKERS
    assert get_user_model().objects.filter(username__startswith="prolific-").count() == WORKERS
    members = Membership.objects.filter(project=project)
    assert members.count() == WORKERS and set(members.values_list("annotator_id", flat=True)) == annotators
    assert set(members.values_list("joined_via", flat=True)) == {Membership.JoinedVia.STUDY_LINK}
    sessions = StudySession.objects.filter(link=link)
    assert sessions.count() == WORKERS
    assert set(sessions.values_list("outcome", flat=True)) == {StudySession.Outcome.COMPLETED}

    judgements = Judgement.objects.filter(project=project)
    assert judgements.count() == WORKERS
    assert Counter(judgements.values_list("annotator_id", flat=True)) == dict.fromkeys(annotators, 1)
    assert_exact_k(project)
    # Every slot was taken exactly once: each item judged exactly k times, nothing left held.
    assert set(Counter(judgements.values_list("task_id", flat=True)).values()) == {K}
    assert not Assignment.objects.filter(task__project=project, status=Assignment.Status.ACTIVE).exists()


def test_one_participant_arriving_from_eight_tabs_at_once_is_one_worker_with_one_session(
    postgres_required, researcher
):
    project = study_project(researcher, items=4, k=1)
    link = prolific_link(project, tasks_per_session=2)
    participant = pid(0xABCDEF)
    answers: list[tuple[int, str]] = []
    lock = threading.Lock()

    def tab() -> None:
        response = Client().post(link_url(link, participant))
        with lock:
            answers.append((response.status_code, response.get("Location", "")))

    together(tab, [()] * 8, timeout=TIMEOUT)

    # Every tab was let in, to the same annotator's judging page.
    assert answers == [(302, reverse("judge", args=[project.pk]))] * 8
    worker = PlatformWorker.objects.get()
    assert worker.platform_id == participant
    assert get_user_model().objects.filter(username__startswith="prolific-").count() == 1
    assert StudySession.objects.count() == 1 and StudySession.objects.get().worker == worker
    assert Membership.objects.filter(project=project).count() == 1
    assert Membership.objects.get(project=project).annotator_id == worker.annotator_id


def test_two_sessions_of_one_worker_racing_for_the_last_open_item_get_it_once(postgres_required, researcher):
    project = study_project(researcher, items=2, k=1)
    link = prolific_link(project, tasks_per_session=1, sessions_per_worker=2)
    # Someone else has judged the first item: one open item is left.
    first = Client()
    first.post(link_url(link, pid(1)))
    lease = claim(first, project, PlatformWorker.objects.get(platform_id=pid(1)).annotator_id)
    first.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "0"})
    last_item = Task.objects.get(project=project, kind=Task.Kind.ITEM, slots_taken=0)

    participant = pid(2)
    results: dict[str, str] = {}

    def session(session_id: str) -> None:
        client = Client()  # a browser of its own: Prolific's second session, opened while the first is
        started = client.post(link_url(link, participant, session=session_id))
        assert started.status_code == 302, started.content
        client.post(reverse("claim", args=[project.pk]))
        annotator_id = PlatformWorker.objects.get(platform_id=participant).annotator_id
        held = live_lease(project, annotator_id)
        if held is None:
            results[session_id] = "nothing"
            return
        client.post(reverse("submit", args=[project.pk, held.pk]), {"label": "1"})
        # What the worker was told: the done page shows the submission's message.
        page = client.get(reverse("study-done", args=[link.slug])).content.decode()
        assert "C0MPLETE" in page
        results[session_id] = "judged" if "Saved." in page else "refused"
        assert results[session_id] == "judged" or "You have already judged this task." in page

    together(session, [("sA",), ("sB",)], timeout=TIMEOUT)

    worker = PlatformWorker.objects.get(platform_id=participant)
    assert StudySession.objects.filter(worker=worker).count() == 2
    assert sorted(results) == ["sA", "sB"]
    assert sorted(results.values()).count("judged") == 1, results
    # One lease of the last item, one judgement of it: whichever session got there first.
    assert Assignment.objects.filter(task=last_item).count() == 1
    assert Judgement.objects.filter(task=last_item).count() == 1
    assert Judgement.objects.filter(annotator=worker.annotator).count() == 1
    last_item.refresh_from_db()
    assert last_item.slots_taken == 1
    assert_exact_k(project)
    assert not Assignment.objects.filter(status=Assignment.Status.ACTIVE).exists()
    # At most one of the worker's sessions is still open; neither may take more.
    assert StudySession.objects.filter(worker=worker, outcome=StudySession.Outcome.OPEN).count() <= 1
