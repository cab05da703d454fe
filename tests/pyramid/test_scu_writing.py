"""The Pyramid method's expert step (issue 26, item 2): annotators write content units from an input's
references on the judging page (an SCU without a reference refused, naming it), the researcher sees them
grouped per input, merges duplicates (and can undo), and downloads them as the SCUs of a LitePyramid
import, whose weights are the references that express each."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from annotation.judging.assignment import claim_next_task
from annotation.models import Judgement, Project
from annotation.task_types import AnswerError, task_type
from evaluation.collection.flow import import_collection
from evaluation.pyramid.importing import import_pyramid
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

WRITING = task_type("scu_writing")
CONFIG = {"references": ["A", "B"], "max_units": 4}


def test_an_answer_is_checked_unit_by_unit():
    answer = {"units": [{"statement": " A storm  closed the port ", "references": ["B", "A"]}]}
    assert WRITING.validate_answer(CONFIG, answer) == {
        "units": [{"statement": "A storm closed the port", "references": ["A", "B"]}]
    }
    for units, words in [
        ([], "write at least one content unit"),
        ([{"statement": "x", "references": []}], "content unit 1 has no reference: tick the references"),
        ([{"statement": " ", "references": ["A"]}], "content unit 1 has no statement"),
        ([{"statement": "x", "references": ["C"]}], "content unit 1: no reference 'C'"),
        ([{"statement": "Port shut", "references": ["A"]}, {"statement": "port shut.", "references": ["B"]}],
         "content unit 2 repeats an earlier one"),
        ([{"statement": f"u{i}", "references": ["A"]} for i in range(5)], "at most 4 content units"),
    ]:  # fmt: skip
        with pytest.raises(AnswerError, match=words):
            WRITING.validate_answer(CONFIG, {"units": units})
    with pytest.raises(AnswerError, match="field 'references'"):
        WRITING.validate_config({"references": ["A", "A"]})


def test_the_form_reads_rows_and_leaves_blank_ones_out():
    form = {
        "unit-0-statement": "Port shut",
        "unit-0-ref-A": "1",
        "unit-2-statement": "Ships sank",
        "unit-2-ref-B": "1",
    }
    assert WRITING.answer_from_form(CONFIG, form) == {
        "units": [
            {"statement": "Port shut", "references": ["A"]},
            {"statement": "Ships sank", "references": ["B"]},
        ]
    }
    widget = WRITING.widget(CONFIG, {"units": [{"statement": "Port shut", "references": ["B"]}]})
    assert len(widget.rows) == 4 and widget.rows[0]["references"] == [("A", False), ("B", True)]


@pytest.fixture
def project(researcher, annotators):
    project = Project.objects.create(
        name="Writing", owner=researcher, task_type="scu_writing", config=CONFIG, assignments_per_task=2
    )
    project.annotators.set(annotators)
    import_collection(
        project,
        documents=[
            {
                "id": "d1",
                "text": "A: The storm closed the port. Ships waited.\n\n"
                "B: A storm shut the port; two ships sank.",
            }
        ],
        items=[{"document": "d1", "input": "d1"}],
    )
    return project


def write(client, project, annotator, rows: dict):
    lease = claim_next_task(project, annotator)
    client.force_login(annotator)
    return client.post(reverse("submit", args=[project.pk, lease.pk]), rows, follow=True)


def test_written_units_are_grouped_merged_and_imported_as_weighted_scus(
    client, researcher, annotators, project
):
    page = client.get(reverse("judge", args=[project.pk]))  # anonymous: sent to log in
    assert page.status_code == 302
    refused = write(client, project, annotators[0], {"unit-0-statement": "The port closed"})
    assert "content unit 1 has no reference" in refused.content.decode() and not Judgement.objects.exists()
    client.force_login(annotators[0])
    lease = claim_next_task(project, annotators[0])
    client.post(
        reverse("submit", args=[project.pk, lease.pk]),
        {
            "unit-0-statement": "The port closed", "unit-0-ref-A": "1",
            "unit-1-statement": "Ships waited", "unit-1-ref-A": "1",
        },
    )  # fmt: skip
    write(
        client, project, annotators[1],
        {
            "unit-0-statement": "the port closed.", "unit-0-ref-B": "1",
            "unit-1-statement": "A storm shut the port", "unit-1-ref-B": "1",
            "unit-2-statement": "Two ships sank", "unit-2-ref-B": "1",
        },
    )  # fmt: skip
    assert Judgement.objects.filter(project=project).count() == 2

    owner = Client()
    owner.force_login(researcher)
    url = reverse("pyramid-written", args=[project.pk])
    groups = api(researcher).get(reverse("pyramid-written-api", args=[project.pk])).json()["inputs"]["d1"]
    # "The port closed" and "the port closed." are one unit at once, ticked A by one writer, B by the other.
    assert [(g["statement"], g["references"], g["weight"]) for g in groups] == [
        ("The port closed", ["A", "B"], 2), ("Ships waited", ["A"], 1),
        ("A storm shut the port", ["B"], 1), ("Two ships sank", ["B"], 1),
    ]  # fmt: skip
    assert groups[0]["writers"] == ["annotator1", "annotator2"]
    page = owner.post(
        url,
        {
            "input": "d1",
            "keys": [groups[0]["keys"][0], groups[2]["keys"][0]],
            "statement": "A storm closed the port",
        },
        follow=True,
    ).content.decode()
    assert "Merged 2 content units as “A storm closed the port”." in page
    units = [json.loads(line) for line in owner.get(url, {"as": "jsonl"}).content.decode().splitlines()]
    assert [(u["input"], u["id"], u["statement"], u["references"]) for u in units] == [
        ("d1", "1", "A storm closed the port", ["A", "B"]),
        ("d1", "2", "Ships waited", ["A"]),
        ("d1", "3", "Two ships sank", ["B"]),
    ]
    refused = api(researcher).post(
        reverse("pyramid-written-api", args=[project.pk]),
        {"input": "d1", "keys": [groups[1]["keys"][0], "no such unit"], "statement": "x"},
        format="json",
    )
    assert refused.status_code == 400 and "at least two" in refused.json()["keys"][0]

    presence = Project.objects.create(
        name="LitePyramid", owner=researcher, task_type="scu_presence", assignments_per_task=3
    )
    counts = import_pyramid(
        presence,
        {
            "references": [{"input": "d1", "id": r, "text": "…"} for r in ("A", "B")],
            "units": units,
            "summaries": [{"input": "d1", "system": "s1", "text": "The port closed in a storm."}],
        },
    )
    assert counts["tasks_created"] == 3
    assert sorted(presence.content_units.values_list("unit_id", "weight")) == [("1", 2), ("2", 1), ("3", 1)]

    merge = next(
        g["merge"]
        for g in api(researcher).get(reverse("pyramid-written-api", args=[project.pk])).json()["inputs"]["d1"]
        if g["merge"]
    )
    assert "Merge undone." in owner.post(url, {"undo": merge}, follow=True).content.decode()
    assert (
        len(api(researcher).get(reverse("pyramid-written-api", args=[project.pk])).json()["inputs"]["d1"])
        == 4
    )


def test_the_judging_page_shows_the_references_and_a_row_per_unit(client, project, annotators):
    claim_next_task(project, annotators[0])
    client.force_login(annotators[0])
    page = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert "Write the content units these references express" in page
    assert page.count('class="unit-row"') == 4 and 'name="unit-3-ref-B"' in page
    assert "A storm shut the port" in page


def test_others_reach_nothing_and_a_presence_project_has_no_written_units(
    researcher, outsider_researcher, annotators, project
):
    for user, code in ((outsider_researcher, 404), (annotators[0], 403)):
        assert api(user).get(reverse("pyramid-written-api", args=[project.pk])).status_code == code
    presence = Project.objects.create(name="P", owner=researcher, task_type="scu_presence")
    assert api(researcher).get(reverse("pyramid-written-api", args=[presence.pk])).status_code == 404
    client = Client()
    client.force_login(researcher)
    page = client.get(reverse("pyramid-written", args=[presence.pk])).content.decode()
    assert "Content units are written in a content-unit writing project" in page
