"""The newcomer's campaign of issue 21, through the pages: 3 topics, 20 documents, 2 runs, k = 2, three
annotators (one perfect, two careless). The project form leaves the tie rule to k, so every 1–1 split
goes to the third annotator and is listed on the agreement page until it is settled; a run withdrawn
from its page leaves the leaderboard once the runs are scored again."""

from __future__ import annotations

import json
import random

import pytest
from django.urls import reverse

from annotation.judging.assignment import live_assignment
from annotation.models import Project, Task
from evaluation.jobs import embedded
from evaluation.models import Evaluation
from tests.annotation.factories import project_form

pytestmark = pytest.mark.django_db

TOPICS = [{"id": str(t), "title": f"topic {t}"} for t in (1, 2, 3)]
DOCUMENTS = [{"id": f"d{i:02d}", "text": f"Document {i} about topic {i % 3 + 1}."} for i in range(20)]
RELEVANT = {(str(i % 3 + 1), f"d{i:02d}") for i in range(20) if i % 2 == 0}


def run_file(tag: str, seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for topic in ("1", "2", "3"):
        ranked = rng.sample([d["id"] for d in DOCUMENTS], 6)
        lines += [f"{topic} Q0 {doc} {rank} {10 - rank} {tag}" for rank, doc in enumerate(ranked, start=1)]
    return "\n".join(lines) + "\n"


def judge_all(client, project, user, label_of) -> int:
    """The annotator judges, through the judging pages, every item they are given; returns how many."""
    client.force_login(user)
    done = 0
    while True:
        client.post(reverse("claim", args=[project.pk]))
        lease = live_assignment(project, user)
        if lease is None:
            return done
        pair = (lease.task.topic.external_id, lease.task.document.external_id)
        response = client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": str(label_of(pair))})
        assert response.status_code in {200, 302}
        done += 1


def test_ties_go_to_a_third_annotator_and_a_withdrawn_run_leaves_the_leaderboard(
    client, researcher, django_user_model, django_capture_on_commit_callbacks
):
    perfect, careless1, careless2 = (
        django_user_model.objects.create_user(name, password="x")
        for name in ("perfect", "careless1", "careless2")
    )
    client.force_login(researcher)
    form = project_form(
        name="Newcomer", assignments_per_task="2", annotator_usernames="perfect, careless1, careless2"
    )
    created = client.post(reverse("project-new"), form, follow=True)
    assert "k = 2 is even: under majority vote a 1–1 split is a tie" in created.content.decode()
    project = Project.objects.get(name="Newcomer")
    assert project.tie_rule == "extra_annotator"
    body = {
        "topics": TOPICS,
        "documents": DOCUMENTS,
        "runs": [run_file("good", 1), run_file("weak", 2)],
        "pool_depth": 4,
    }
    client.post(reverse("project-import", args=[project.pk]), {"body": json.dumps(body)})
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM).count()
    assert items > 12

    rng = random.Random(5)
    judge_all(client, project, perfect, lambda pair: int(pair in RELEVANT))
    judge_all(client, project, careless1, lambda pair: rng.randint(0, 1))
    split = Task.objects.filter(project=project, referral_reason="tie")
    assert split.exists() and all(t.required_judgements == 3 and not t.completed for t in split)

    with django_capture_on_commit_callbacks(execute=True):
        client.force_login(researcher)
        client.post(reverse("ground-truth-recompute", args=[project.pk]))
    with django_capture_on_commit_callbacks(execute=True):
        embedded.run_queued()
    embedded.run_queued()
    agreement = client.get(reverse("agreement-report", args=[project.pk])).content.decode()
    waiting = split.count()
    assert f"{waiting} waiting for one more annotator (the lower label meanwhile)" in agreement
    for task in split:
        assert reverse("item-page", args=[project.pk, task.pk]) in agreement

    # The third annotator gets exactly the split items, and settles each.
    assert judge_all(client, project, careless2, lambda pair: int(pair in RELEVANT)) == waiting
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("ground-truth-recompute", args=[project.pk]))
    with django_capture_on_commit_callbacks(execute=True):
        embedded.run_queued()
    embedded.run_queued()
    agreement = client.get(reverse("agreement-report", args=[project.pk])).content.decode()
    assert f"{waiting} settled by one more annotator" in agreement and "waiting for" not in agreement

    board = client.get(reverse("leaderboard", args=[project.pk])).content.decode()
    assert ">good</a>" in board and ">weak</a>" in board
    weak = project.runs.get(tag="weak")
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("run-withdraw", args=[project.pk, weak.pk]), {"unjudged_items": "keep"})
    with django_capture_on_commit_callbacks(execute=True):
        embedded.run_queued()
    board = client.get(reverse("leaderboard", args=[project.pk])).content.decode()
    assert ">good</a>" in board and ">weak</a>" not in board
    newest = Evaluation.objects.filter(project=project, status="done").order_by("-pk").first()
    assert list(newest.scores.values_list("run__tag", flat=True)) == ["good"]
    history = client.get(reverse("events-page", args=[project.pk])).content.decode()
    assert "Run withdrawn" in history and "Withdraw run “weak”" in history
