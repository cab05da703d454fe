"""The page that rates an output shows the output first, named, and its source after it; a
comparison shows both outputs first; relevance keeps the topic above the document. The count an
annotator sees of their own work is the one their researcher sees."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from evaluation.collection.flow import import_collection
from tests.annotation.factories import LIKERT_CONFIG, make_gold_project, make_project

pytestmark = pytest.mark.django_db

SOURCE = "The boundary layer on a flat plate was measured at Mach 2 in the wind tunnel."
OUTPUT = "boundary layer measured at Mach 2"


def text_project(researcher, annotators, task_type: str, config: dict) -> Project:
    project = Project.objects.create(
        name=task_type, owner=researcher, task_type=task_type, config=config, assignments_per_task=1
    )
    project.annotators.set(annotators)
    item = {"topic": "a1", "document": "out", "system": "lead", "input": "a1"}
    if task_type == "pairwise":
        item |= {"document_b": "out-b", "system_b": "keywords"}
    import_collection(
        project,
        topics=[{"id": "a1", "title": "Abstract 1", "description": SOURCE}],
        documents=[{"id": "out", "text": OUTPUT}, {"id": "out-b", "text": "plate tunnel Mach"}],
        items=[item],
    )
    return project


def judging_page(client, annotator, project) -> str:
    claim_next_task(project, annotator)
    client.force_login(annotator)
    return client.get(reverse("judge", args=[project.pk])).content.decode()


def test_a_rating_shows_the_output_first_named_then_its_source(client, researcher, annotators):
    project = text_project(researcher, annotators, "likert", LIKERT_CONFIG)
    page = judging_page(client, annotators[0], project)
    output, source = page.index(OUTPUT), page.index(SOURCE)
    assert page.index('<h2 class="output-label">The output to rate</h2>') < output < source
    assert page.index('<h2 id="topic-title">Source: Abstract 1</h2>') < source
    assert 'aria-label="The output to rate"' in page and "Input: Abstract 1" not in page


def test_a_comparison_shows_both_outputs_first_then_their_source(client, researcher, annotators):
    project = text_project(researcher, annotators, "pairwise", {})
    page = judging_page(client, annotators[0], project)
    first, second, source = page.index(OUTPUT), page.index("plate tunnel Mach"), page.index(SOURCE)
    assert page.index(">Output A</h2>") < first < page.index(">Output B</h2>") < second < source


def test_relevance_keeps_the_topic_above_the_document(client, researcher, annotators):
    project = make_project(researcher, annotators, k=1)
    page = judging_page(client, annotators[0], project)
    assert re.search(r'<h2 id="topic-title">Topic: ', page)
    assert page.index('id="topic-title"') < page.index('class="document"')
    assert "output-label" not in page and "Source:" not in page


def test_an_annotator_sees_the_count_of_their_work_that_their_researcher_sees(client, researcher, annotators):
    project = make_gold_project(researcher, annotators, items=12, gold=4, k=1, gold_rate=0.5)
    annotator = annotators[0]
    while (lease := claim_next_task(project, annotator)) is not None:
        submit_judgement(lease.pk, annotator, 1)
    client.force_login(annotator)
    judged = re.search(
        r"You have judged (\d+) item", client.get(reverse("judge", args=[project.pk])).content.decode()
    )
    answered = int(judged.group(1))
    assert answered > 12  # gold items among them, which the annotator cannot tell apart
    client.force_login(researcher)
    page = client.get(reverse("project-page", args=[project.pk])).content.decode()
    row = re.search(rf'<th scope="row">{annotator.username}.*?</tr>', page, re.S).group(0)
    assert re.search(rf"<td>{answered}<br><span class=\"muted\">12 of items</span></td>", row), row
