"""The agreement and ground-truth pages and the API show a snapshot's tie rule and list its tied items
(each linking to its item page), waiting ones first; the item page and API say how an item's tie went."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.adjudication.rules import close_or_refer
from evaluation.ground_truth.build import build_snapshot
from tests.groundtruth.builders import items, judge, label_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def tied(researcher, annotators):
    """k = 2 (ties go to one more annotator): d0 split and waiting, d1 split and settled 2–1 by a
    third annotator, d2 agreed."""
    first, second, third = annotators[:3]
    project = label_project(researcher, annotators, items=3, assignments_per_task=2)
    d0, d1, d2 = items(project)
    for task, labels in ((d0, (1, 0)), (d1, (1, 0)), (d2, (1, 1))):
        judge(task, first, labels[0])
        judge(task, second, labels[1])
        close_or_refer(project, [task.pk])
    judge(d1, third, 1)
    close_or_refer(project, [d1.pk])
    build_snapshot(project.pk)
    return project, d0, d1, d2


def test_the_pages_show_the_rule_and_list_the_tied_items_with_links(client, researcher, tied):
    project, d0, d1, d2 = tied
    client.force_login(researcher)
    for name in ("agreement-report", "ground-truth"):
        page = client.get(reverse(name, args=[project.pk])).content.decode()
        assert (
            "Tie rule of version 1: <strong>Refer it to one more annotator; "
            "the lower label until then</strong>" in page
        )
        assert "2 items were tied under the majority vote:" in page
        assert reverse("item-page", args=[project.pk, d0.pk]) in page
        assert reverse("item-page", args=[project.pk, d1.pk]) in page
        assert reverse("item-page", args=[project.pk, d2.pk]) not in page
        assert "waiting for one more annotator (the lower label meanwhile)" in page
        assert "settled by one more annotator" in page
        assert page.index(f"/items/{d0.pk}/") < page.index(f"/items/{d1.pk}/")  # waiting first
    item_page = client.get(reverse("item-page", args=[project.pk, d0.pk])).content.decode()
    assert "Its vote tied: waiting for one more annotator" in item_page
    assert "Its vote tied, and the tie rule sent this item to one more assessor" in item_page


def test_the_api_gives_the_same_tie_report_and_each_items_tie(researcher, tied):
    project, d0, d1, d2 = tied
    client = APIClient()
    client.force_authenticate(researcher)
    ties = client.get(reverse("agreement-api", args=[project.pk])).json()["ties"]
    assert ties["rule"] == "extra_annotator" and ties["ties_meanwhile"] == "lower"
    assert (ties["count"], ties["waiting"]) == (2, 1)
    assert [(row["item"], row["state"], row["label"]) for row in ties["items"]] == [
        (d0.pk, "waiting_extra_annotator", 0),
        (d1.pk, "extra_annotator", 1),
    ]
    listed = {row["id"]: row for row in client.get(reverse("items-api", args=[project.pk])).json()["results"]}
    assert listed[d0.pk]["ground_truth"]["tie"] == "waiting_extra_annotator"
    assert listed[d0.pk]["referral_reason"] == "tie"
    assert listed[d2.pk]["ground_truth"]["tie"] is None


def test_a_snapshot_written_before_ties_had_states_lists_its_ties_as_broken_by_the_lower_label(
    client, researcher, tied
):
    project, d0, _, _ = tied
    snapshot = project.snapshots.get()
    snapshot.labels.update(tie="")  # as the migration leaves the snapshots it finds
    snapshot.parameters = {"tie_rule": "smallest"}
    snapshot.agreement = snapshot.agreement | {"ties": [d0.pk]}
    snapshot.save()
    client.force_login(researcher)
    page = client.get(reverse("agreement-report", args=[project.pk])).content.decode()
    assert "Tie rule of version 1: <strong>The lower label (e.g. not relevant)</strong>" in page
    assert "1 item was tied under the majority vote" in page and "1 broken by the lower label" in page
    assert reverse("item-page", args=[project.pk, d0.pk]) in page
