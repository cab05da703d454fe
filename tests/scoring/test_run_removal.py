"""Undoing a run: withdrawn (kept, off the leaderboard, the runs scored again without it), reinstated,
or deleted; its judged pooled items always stay and its unjudged ones go only if the researcher says
so (and no other run pooled them, and nobody holds them); each from a confirmation page that says what
will go and from the API with a dry run; each recorded in the project's history."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Assignment, ProjectEvent, Task
from evaluation.jobs import embedded
from evaluation.models import Evaluation, Run, RunScore
from tests.annotation.factories import make_project
from tests.groundtruth.builders import judge

pytestmark = pytest.mark.django_db

# make_project pools runA and runB to depth 2: runA puts 401×d1, 401×d2, 402×d4, 402×d5 into the
# pool, runB 401×d3, 401×d6, 402×d6 (runA ranks d3 third, below the depth).
ONLY_RUN_B = {("401", "d3"), ("401", "d6"), ("402", "d6")}


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def pairs(project) -> set[tuple[str, str]]:
    return set(
        Task.objects.filter(project=project, kind=Task.Kind.ITEM).values_list(
            "topic__external_id", "document__external_id"
        )
    )


def run_named(project, tag: str) -> Run:
    return project.runs.get(tag=tag)


def test_withdrawing_a_run_takes_it_off_the_leaderboard_and_scores_the_runs_again(
    client, researcher, scored, django_capture_on_commit_callbacks
):
    project = scored.project
    run_b = run_named(project, "runB")
    client.force_login(researcher)
    board = client.get(reverse("leaderboard", args=[project.pk])).content.decode()
    assert ">runB</a>" in board and ">runA</a>" in board

    page = client.get(reverse("run-withdraw", args=[project.pk, run_b.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Withdraw run “runB”: it leaves the leaderboard" in text
    assert "Its pool: 3 items; 3 judged (they stay" in text
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(reverse("run-withdraw", args=[project.pk, run_b.pk]), {"unjudged_items": "keep"})
    assert done.status_code == 302
    run_b.refresh_from_db()
    assert run_b.withdrawn_at is not None
    assert pairs(project) >= ONLY_RUN_B  # judged items stay

    # Before the new evaluation runs, the leaderboard says it is coming; after, runB is gone.
    notice = client.get(reverse("leaderboard", args=[project.pk])).content.decode()
    assert "Withdrawn since this evaluation: runB" in notice
    embedded.run_queued()
    rescored = Evaluation.objects.filter(project=project).order_by("-pk").first()
    assert rescored.pk != scored.pk and rescored.status == Evaluation.Status.DONE
    assert rescored.run_count == 1
    assert list(rescored.scores.values_list("run__tag", flat=True)) == ["runA"]
    board = client.get(reverse("leaderboard", args=[project.pk])).content.decode()
    assert ">runA</a>" in board and ">runB</a>" not in board and "Withdrawn since" not in board
    api_board = api(researcher).get(reverse("leaderboard-api", args=[project.pk, rescored.pk])).json()
    assert [row["run"] for row in api_board["rows"]] == ["runA"]

    event = ProjectEvent.objects.get(project=project)
    assert (event.action, event.actor, event.details["run"]) == ("run_withdrawn", researcher, "runB")
    assert event.summary.startswith("Withdraw run “runB”")

    # Reinstated: scored again with the other.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("run-reinstate", args=[project.pk, run_b.pk]))
    embedded.run_queued()
    newest = Evaluation.objects.filter(project=project).order_by("-pk").first()
    assert sorted(newest.scores.values_list("run__tag", flat=True)) == ["runA", "runB"]
    assert [e.action for e in ProjectEvent.objects.filter(project=project)] == [
        "run_reinstated",
        "run_withdrawn",
    ]


def item(project, topic: str, document: str) -> Task:
    return Task.objects.get(project=project, topic__external_id=topic, document__external_id=document)


def test_unjudged_items_only_the_run_pooled_go_if_asked_and_the_rest_stay(researcher, annotators):
    project = make_project(researcher, annotators, k=1, pool_depth=2)
    # Of runB's own items, 401×d3 is judged, 401×d6 is held right now, and 402×d6 is free.
    judge(item(project, "401", "d3"), annotators[0], 1)
    Assignment.objects.create(
        task=item(project, "401", "d6"),
        annotator=annotators[1],
        expires_at=timezone.now() + timedelta(minutes=30),
    )
    run_b = run_named(project, "runB")
    plan = api(researcher).post(
        reverse("run-withdraw-api", args=[project.pk, run_b.pk]),
        {"dry_run": True, "unjudged_items": "remove"},
        format="json",
    )
    assert plan.status_code == 200 and plan.json()["done"] is False
    details = plan.json()["details"]
    assert (details["pooled_items"], details["judged_items"], details["items_removed"]) == (3, 1, 1)
    assert details["unjudged_items_kept"] == 1
    assert "1 unjudged item an annotator holds right now: they stay." in plan.json()["lines"]
    assert pairs(project) >= ONLY_RUN_B and not ProjectEvent.objects.exists()  # a dry run changes nothing

    done = api(researcher).post(
        reverse("run-withdraw-api", args=[project.pk, run_b.pk]), {"unjudged_items": "remove"}, format="json"
    )
    assert done.status_code == 200 and done.json()["done"] is True and done.json()["event"]
    assert ("402", "d6") not in pairs(project)  # unjudged, only runB's, free: gone
    assert {("401", "d3"), ("401", "d6")} <= pairs(project)  # judged, and held: stay
    assert {("401", "d1"), ("401", "d2"), ("402", "d4"), ("402", "d5")} <= pairs(project)  # runA's


def test_an_item_another_run_pooled_stays_whatever_is_chosen(researcher, annotators):
    project = make_project(researcher, annotators, k=1, pool_depth=3)  # runA now pools 401×d3 too
    run_b = run_named(project, "runB")
    plan = (
        api(researcher)
        .post(
            reverse("run-withdraw-api", args=[project.pk, run_b.pk]),
            {"dry_run": True, "unjudged_items": "remove"},
            format="json",
        )
        .json()
    )
    assert (plan["details"]["pooled_items"], plan["details"]["items_removed"]) == (3, 2)
    assert "1 unjudged item another run pooled too: they stay." in plan["lines"]


def test_deleting_a_run_removes_its_lines_and_scores_and_keeps_judged_items(
    researcher, scored, django_capture_on_commit_callbacks
):
    project = scored.project
    run_b = run_named(project, "runB")
    url = reverse("run-api", args=[project.pk, run_b.pk])
    dry = api(researcher).delete(url + "?dry_run=true&unjudged_items=remove")
    assert dry.status_code == 200 and dry.json()["done"] is False
    assert {
        key: dry.json()["details"][key] for key in ("lines", "scores", "items_removed", "judged_items")
    } == {
        "lines": 3,
        "scores": 1,
        "items_removed": 0,
        "judged_items": 3,
    }
    assert Run.objects.filter(pk=run_b.pk).exists()
    with django_capture_on_commit_callbacks(execute=True):
        gone = api(researcher).delete(url + "?unjudged_items=remove")
    assert gone.status_code == 200 and gone.json()["action"] == "run_deleted"
    assert not Run.objects.filter(pk=run_b.pk).exists()
    assert not RunScore.objects.filter(run_id=run_b.pk).exists()
    assert pairs(project) >= ONLY_RUN_B  # all judged: they stay
    embedded.run_queued()
    newest = Evaluation.objects.filter(project=project).order_by("-pk").first()
    assert list(newest.scores.values_list("run__tag", flat=True)) == ["runA"]
    event = ProjectEvent.objects.get(project=project)
    assert event.action == "run_deleted" and event.details["lines"] == 3


def test_refusals_say_why_and_change_nothing(researcher, annotators, django_user_model, scored):
    project = scored.project
    run_b = run_named(project, "runB")
    withdraw = reverse("run-withdraw-api", args=[project.pk, run_b.pk])
    assert api(researcher).post(withdraw, {"unjudged_items": "all"}, format="json").status_code == 400
    assert api(researcher).post(withdraw, {"oops": 1}, format="json").status_code == 400
    reinstate = api(researcher).post(
        reverse("run-reinstate-api", args=[project.pk, run_b.pk]), {}, format="json"
    )
    assert reinstate.status_code == 409 and "is not withdrawn" in reinstate.json()["detail"][0]
    assert api(researcher).post(withdraw, {}, format="json").status_code == 200
    again = api(researcher).post(withdraw, {}, format="json")
    assert again.status_code == 409 and "withdrawn already" in again.json()["detail"][0]
    bad = api(researcher).delete(reverse("run-api", args=[project.pk, run_b.pk]) + "?dry_run=maybe")
    assert bad.status_code == 400 and "dry_run" in bad.json()
    assert ProjectEvent.objects.filter(project=project).count() == 1
    # Nobody else may: another researcher gets 404, an annotator 403, and the run stays.
    other = django_user_model.objects.create_user("other", password="x")
    other.groups.add(*researcher.groups.all())
    assert api(other).post(withdraw, {}, format="json").status_code == 404
    assert api(annotators[0]).delete(reverse("run-api", args=[project.pk, run_b.pk])).status_code == 403
    assert Run.objects.filter(pk=run_b.pk).exists()


def test_the_run_pages_offer_each_way_and_the_confirmation_lets_the_researcher_choose(
    client, researcher, annotators
):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    run_b = run_named(project, "runB")
    client.force_login(researcher)
    detail = client.get(reverse("run-page", args=[project.pk, run_b.pk])).content.decode()
    assert reverse("run-withdraw", args=[project.pk, run_b.pk]) in detail
    assert reverse("run-delete", args=[project.pk, run_b.pk]) in detail
    confirm = client.get(reverse("run-delete", args=[project.pk, run_b.pk])).content.decode()
    assert "Delete run “runB” and its 3 lines" in confirm
    assert "3 unjudged items only this run pooled" in confirm
    assert 'name="unjudged_items" value="remove"' in confirm
    done = client.post(
        reverse("run-delete", args=[project.pk, run_b.pk]), {"unjudged_items": "remove"}, follow=True
    )
    assert "Done. Delete run “runB”" in done.content.decode()
    assert not pairs(project) & ONLY_RUN_B and not Run.objects.filter(pk=run_b.pk).exists()
    history = client.get(reverse("events-page", args=[project.pk])).content.decode()
    assert "Run deleted" in history and "Delete run “runB” and its 3 lines" in history


def test_withdrawing_every_run_leaves_a_leaderboard_that_says_so(
    client, researcher, scored, django_capture_on_commit_callbacks
):
    project = scored.project
    client.force_login(researcher)
    for run in project.runs.all():
        with django_capture_on_commit_callbacks(execute=True):
            client.post(reverse("run-withdraw", args=[project.pk, run.pk]))
        embedded.run_queued()
    newest = Evaluation.objects.filter(project=project).order_by("-pk").first()
    assert newest.status == Evaluation.Status.DONE and newest.run_count == 0
    page = client.get(reverse("leaderboard", args=[project.pk]))
    assert (
        page.status_code == 200
        and "scored no run: every run of the project is withdrawn" in page.content.decode()
    )
    board = api(researcher).get(reverse("leaderboard-api", args=[project.pk, newest.pk]))
    assert board.status_code == 409 and "scored no run" in board.json()["runs"][0]
    download = reverse("leaderboard-download", args=[project.pk, newest.pk, "csv"])
    assert client.get(download).status_code == 404
