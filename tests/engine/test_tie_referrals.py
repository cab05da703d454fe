"""Ties under majority vote follow the project's tie rule: referred to one more annotator (the default
when k is even) or to the researcher through the adjudication mechanism, or broken at once by the
lower label, the higher or the gold-weighted vote; the snapshot records the rule and how every tied
item was settled, or that it waits (labelled with the lower label meanwhile)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.adjudication.rules import apply_rule, settle
from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import AdjudicatedBy, Project, Task, default_tie_rule
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.ties import (
    SETTLED_BY_EXTRA_ANNOTATOR,
    SETTLED_BY_RESEARCHER,
    WAITING_EXTRA_ANNOTATOR,
    WAITING_RESEARCHER,
)
from tests.groundtruth.builders import gold_items, items, judge, label_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def three(django_user_model):
    """The newcomer's campaign: one perfect annotator, two careless ones."""
    return [
        django_user_model.objects.create_user(name, password="x")
        for name in ("perfect", "careless1", "careless2")
    ]


def submit(project, annotator, label: int) -> Task:
    lease = claim_next_task(project, annotator)
    assert lease is not None, f"{annotator} got nothing"
    submit_judgement(lease.pk, annotator, label)
    return Task.objects.get(pk=lease.task_id)


def split(project, first, second) -> Task:
    """The first open item judged 1 by ``first`` and 0 by ``second``: a 1–1 tie at k = 2."""
    task = submit(project, first, 1)
    assert submit(project, second, 0).pk == task.pk
    task.refresh_from_db()
    return task


def test_a_project_that_chose_no_rule_gets_one_by_k():
    assert default_tie_rule(2) == default_tie_rule(4) == Project.TieRule.EXTRA_ANNOTATOR
    assert default_tie_rule(1) == default_tie_rule(3) == Project.TieRule.LOWER


def test_with_k_two_a_one_one_split_goes_to_a_third_annotator_and_the_snapshot_says_so(researcher, three):
    perfect, careless1, careless2 = three
    project = label_project(researcher, three, items=2, assignments_per_task=2)
    assert project.tie_rule == Project.TieRule.EXTRA_ANNOTATOR  # chosen by k = 2 when it was saved
    task = split(project, perfect, careless1)
    assert task.referred_to == AdjudicatedBy.EXTRA_ASSESSOR
    assert task.referral_reason == Task.ReferralReason.TIE
    assert task.required_judgements == 3 and not task.completed

    waiting = build_snapshot(project.pk)
    assert waiting.parameters == {"tie_rule": "extra_annotator", "ties_meanwhile": "lower"}
    assert "tie_rule:extra_annotator" in waiting.signature and "ties_meanwhile:lower" in waiting.signature
    row = waiting.labels.get(task=task)
    assert (row.label, row.tie, row.confidence) == (0, WAITING_EXTRA_ANNOTATOR, 0.5)  # lower meanwhile
    assert waiting.agreement["ties"] == [task.pk]

    assert claim_next_task(project, perfect) is None or claim_next_task(project, perfect).task_id != task.pk
    extra = claim_next_task(project, careless2)
    assert extra is not None and extra.task_id == task.pk
    submit_judgement(extra.pk, careless2, 1)
    task.refresh_from_db()
    assert task.completed
    settled = build_snapshot(project.pk)
    row = settled.labels.get(task=task)
    assert (row.label, row.tie, row.adjudicated_by) == (
        1,
        SETTLED_BY_EXTRA_ANNOTATOR,
        AdjudicatedBy.EXTRA_ASSESSOR,
    )
    assert row.adjudication["assessor"] == "careless2"
    assert settled.agreement["ties"] == []  # 2–1: no longer tied, and listed as settled


def test_ties_referred_to_the_researcher_wait_with_the_lower_label_until_settled(researcher, three):
    perfect, careless1, _ = three
    project = label_project(researcher, three, items=1, assignments_per_task=2, tie_rule="researcher")
    task = split(project, perfect, careless1)
    assert task.referred_to == AdjudicatedBy.RESEARCHER and task.completed
    assert task.required_judgements == 2  # nobody else judges it
    row = build_snapshot(project.pk).labels.get(task=task)
    assert (row.label, row.tie) == (0, WAITING_RESEARCHER)
    settle(task, researcher, 1, "Relevant: the abstract answers it.")
    row = build_snapshot(project.pk).labels.get(task=task)
    assert (row.label, row.tie, row.adjudicated_by) == (1, SETTLED_BY_RESEARCHER, AdjudicatedBy.RESEARCHER)


@pytest.mark.parametrize(("rule", "label"), [("lower", 0), ("higher", 1)])
def test_rules_that_break_ties_complete_the_item_and_say_how(researcher, three, rule, label):
    perfect, careless1, _ = three
    project = label_project(researcher, three, items=1, assignments_per_task=2, tie_rule=rule)
    task = split(project, perfect, careless1)
    assert task.completed and task.referred_to == "" and task.required_judgements == 2
    snapshot = build_snapshot(project.pk)
    assert snapshot.parameters == {"tie_rule": rule}
    row = snapshot.labels.get(task=task)
    assert (row.label, row.tie) == (label, rule)


def test_the_gold_weighted_rule_sides_with_the_annotator_right_on_gold(researcher, three):
    perfect, careless1, _ = three
    project = label_project(
        researcher, three, items=2, gold=2, assignments_per_task=2, tie_rule="gold_weighted"
    )
    for gold in gold_items(project):  # expected: g0 → 1, g1 → 0
        judge(gold, perfect, gold.gold_answer["label"])
        judge(gold, careless1, 1 - gold.gold_answer["label"])
    d0, d1 = items(project)
    judge(d0, perfect, 0)
    judge(d0, careless1, 1)
    judge(d1, perfect, 1)
    judge(d1, careless1, 0)
    snapshot = build_snapshot(project.pk)
    assert snapshot.parameters == {"tie_rule": "gold_weighted"}
    labels = {row.task_id: (row.label, row.tie) for row in snapshot.labels.all()}
    assert labels == {d0.pk: (0, "gold_weighted"), d1.pk: (1, "gold_weighted")}  # gold items get none


def test_a_rule_changed_later_refers_the_ties_already_judged_and_withdraws_them_again(researcher, three):
    perfect, careless1, _ = three
    project = label_project(researcher, three, items=1, assignments_per_task=2, tie_rule="lower")
    task = split(project, perfect, careless1)
    assert task.completed
    project.tie_rule = Project.TieRule.EXTRA_ANNOTATOR
    project.save()
    assert apply_rule(project) == {"referred": 1, "withdrawn": 0}
    task.refresh_from_db()
    assert (task.referred_to, task.referral_reason, task.required_judgements) == ("extra_assessor", "tie", 3)
    project.tie_rule = Project.TieRule.HIGHER
    project.save()
    assert apply_rule(project) == {"referred": 0, "withdrawn": 1}
    task.refresh_from_db()
    assert task.completed and task.referred_to == "" and task.required_judgements == 2


def test_ties_are_not_referred_when_the_method_does_not_vote(researcher, three):
    perfect, careless1, _ = three
    project = label_project(
        researcher, three, items=1, assignments_per_task=2, ground_truth_method="dawid-skene"
    )
    assert project.tie_rule == Project.TieRule.EXTRA_ANNOTATOR and project.tie_route is None
    assert split(project, perfect, careless1).completed


def test_the_adjudication_rule_comes_first_for_a_tied_item_it_disputes(researcher, three):
    perfect, careless1, _ = three
    project = label_project(
        researcher,
        three,
        items=1,
        assignments_per_task=2,
        adjudication_rule="not_unanimous",
        adjudicated_by="researcher",
        tie_rule="extra_annotator",
    )
    task = split(project, perfect, careless1)
    assert (task.referred_to, task.referral_reason) == (
        AdjudicatedBy.RESEARCHER,
        Task.ReferralReason.DISPUTED,
    )
    row = build_snapshot(project.pk).labels.get(task=task)
    assert row.tie == WAITING_RESEARCHER  # still a tie waiting, whatever sent it


def test_existing_projects_keep_the_lower_label_so_no_snapshot_changes_meaning(researcher):
    project = label_project(researcher, [], items=1, assignments_per_task=2)
    Project.objects.filter(pk=project.pk).update(tie_rule="")  # as the column is added to old rows
    migration = importlib.import_module("annotation.migrations.0015_ties_history_inactive_members")
    migration.keep_the_old_tie_rule(apps, None)
    project.refresh_from_db()
    assert project.tie_rule == Project.TieRule.LOWER


def test_the_api_chooses_a_rule_by_k_and_warns_about_an_even_k(researcher):
    client = APIClient()
    client.force_authenticate(researcher)
    even = client.post(reverse("project-list"), {"name": "Split", "assignments_per_task": 2}, format="json")
    assert even.status_code == 201
    assert even.json()["tie_rule"] == "extra_annotator"
    [warning] = even.json()["warnings"]
    assert "k = 2 is even" in warning and "1–1" in warning and "one more annotator" in warning
    odd = client.post(reverse("project-list"), {"name": "Odd", "assignments_per_task": 3}, format="json")
    assert (odd.json()["tie_rule"], odd.json()["warnings"]) == ("lower", [])
    chosen = client.post(
        reverse("project-list"),
        {"name": "Chosen", "assignments_per_task": 2, "tie_rule": "lower"},
        format="json",
    )
    assert chosen.json()["tie_rule"] == "lower" and "the lower label" in chosen.json()["warnings"][0]
    refused = client.patch(
        reverse("project-detail", args=[odd.json()["id"]]), {"tie_rule": "coin"}, format="json"
    )
    assert refused.status_code == 400 and "tie_rule" in refused.json()
    dawid_skene = client.post(
        reverse("project-list"),
        {"name": "DS", "assignments_per_task": 2, "ground_truth_method": "dawid-skene"},
        format="json",
    )
    assert dawid_skene.json()["warnings"] == []  # a model, not a vote: nothing ties


def test_the_form_warns_about_an_even_k_and_saves_anyway(client, researcher):
    client.force_login(researcher)
    page = client.get(reverse("project-new"))
    assert "Chosen by k" in page.content.decode()
    form = page.context["form"]
    data = {k: v for k, v in form.initial.items() if v is not None and not isinstance(v, list | dict)}
    data |= {
        "name": "Newcomer's campaign",
        "task_type": "binary_relevance",
        "assignments_per_task": "2",
        "assignment_minutes": "30",
        "serve_order": "pool",
        "ground_truth_method": "majority",
        "gold_rate": "0",
        "attention_rate": "0",
        "qualification_pass_rate": "0.8",
        "qualification_attempts_allowed": "2",
        "quality_threshold": "0.7",
        "rating_normalisation": "none",
        "adjudication_rule": "off",
        "adjudication_threshold": "0.75",
        "adjudicated_by": "extra_assessor",
        "active": "on",
    }
    response = client.post(reverse("project-new"), data, follow=True)
    assert response.status_code == 200
    project = Project.objects.get(name="Newcomer's campaign")
    assert project.tie_rule == "extra_annotator"
    assert "k = 2 is even" in response.content.decode()
