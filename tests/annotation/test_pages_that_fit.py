"""Pages that fit the work, as the server writes them: Likert anchors beside the scale, the project
form in groups with each error beside its field, a failed paste import that keeps the paste, and an
example import on the Import page that really imports. (How they look at 390 px and 1280 px is
tested in real Chromium: tests/browser/test_every_page.py and test_judging_layout.py.)"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.forms import ProjectForm
from annotation.judging.assignment import claim_next_task
from annotation.models import Project, Task
from annotation.task_types import TASK_TYPES
from evaluation.collection.examples import SAMPLE_CONFIGS, example_body
from evaluation.collection.flow import import_from_body
from tests.annotation.factories import LIKERT_CONFIG, make_likert_project, project_form

pytestmark = pytest.mark.django_db

ANCHORED = {**LIKERT_CONFIG, "anchors": {"1": "very poor", "5": "excellent"}}


def as_user(client, user):
    client.force_login(user)
    return client


def likert_form(**fields) -> dict:
    likert = {
        "name": "Rated",
        "task_type": "likert",
        "likert_dimensions": "quality, coherence",
        "likert_low": "1",
        "likert_high": "5",
        "assignments_per_task": "1",
    }
    return project_form(**{**likert, **fields})


def test_the_judging_page_shows_the_likert_anchors_on_the_scale(client, researcher, annotators):
    project = make_likert_project(researcher, annotators)
    Project.objects.filter(pk=project.pk).update(config=ANCHORED)
    claim_next_task(project, annotators[0])
    page = as_user(client, annotators[0]).get(reverse("judge", args=[project.pk])).content.decode()
    # On the scale itself: each anchored point's label under its number, inside the choice's label
    # (so a screen reader says "5 excellent"); the points between stay bare.
    assert re.search(r'value="5"[^>]*> 5</span><span class="anchor">excellent</span></label>', page)
    assert re.search(r'value="1"[^>]*> 1</span><span class="anchor">very poor</span></label>', page)
    assert re.search(r'value="3"[^>]*> 3</span></label>', page)


def test_the_form_sets_anchors_and_shows_them_again(client, researcher):
    response = as_user(client, researcher).post(
        reverse("project-new"), likert_form(likert_anchors="1: very poor\n\n5:excellent ")
    )
    project = Project.objects.get(name="Rated")
    assert response.status_code == 302
    assert project.config["anchors"] == {"1": "very poor", "5": "excellent"}
    form = ProjectForm(instance=project)
    assert form.initial["likert_anchors"] == "1: very poor\n5: excellent"
    without = as_user(client, researcher).post(
        reverse("project-new"), likert_form(name="Bare", likert_anchors="")
    )
    assert without.status_code == 302
    assert "anchors" not in Project.objects.get(name="Bare").config


def test_anchors_that_do_not_fit_are_refused_beside_their_own_field(client, researcher):
    outside = as_user(client, researcher).post(
        reverse("project-new"), likert_form(likert_anchors="1: very poor\n7: excellent")
    )
    errors = outside.context["form"].errors
    assert list(errors) == ["likert_anchors"]
    assert "'7' is not a point of the scale" in errors["likert_anchors"][0]
    unreadable = as_user(client, researcher).post(
        reverse("project-new"), likert_form(likert_anchors="very poor")
    )
    assert "line 1: write “point: label”" in unreadable.context["form"].errors["likert_anchors"][0]
    scale = as_user(client, researcher).post(
        reverse("project-new"), likert_form(likert_low="5", likert_high="1")
    )
    assert "lowest must be below highest" in scale.context["form"].errors["likert_low"][0]
    assert not Project.objects.exists()


def test_the_api_takes_anchors_in_the_likert_config_and_refuses_bad_ones(researcher):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=researcher).key}")
    body = {"name": "API rated", "task_type": "likert", "config": ANCHORED}
    created = client.post("/api/projects/", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["config"]["anchors"] == {"1": "very poor", "5": "excellent"}
    refused = client.post(
        "/api/projects/", {**body, "config": {**ANCHORED, "anchors": {"9": "x"}}}, format="json"
    )
    assert refused.status_code == 400
    assert "anchors" in json.dumps(refused.json())


def test_every_field_of_the_project_form_is_in_exactly_one_group():
    grouped = [name for _legend, names in ProjectForm.FIELDSETS for name in names]
    assert sorted(grouped) == sorted(ProjectForm().fields)
    assert len(grouped) == len(set(grouped))
    assert [legend for legend, _ in ProjectForm.FIELDSETS] == [
        "Basics",
        "Task type",
        "Quality control",
        "Consent and questions for crowd workers",
        "Advanced",
    ]


def test_each_error_is_beside_its_field_and_the_advanced_group_opens_for_one(client, researcher):
    page = (
        as_user(client, researcher)
        .post(reverse("project-new"), likert_form(name="", gold_rate="2", assignment_minutes="-1"))
        .content.decode()
    )
    for name, message in [
        ("name", "This field is required."),
        ("gold_rate", "less than or equal to 1"),
        ("assignment_minutes", "greater than or equal to 0"),
    ]:
        field = re.search(
            rf'<div class="field field-{name}">(.*?)</div>\s*(?=<div class="field|</fieldset>)', page, re.S
        )
        assert field and f'id="id_{name}_error"' in field.group(1) and message in field.group(1), name
        assert (
            f'aria-describedby="id_{name}_helptext id_{name}_error"' in page
            or f'aria-describedby="id_{name}_error"' in page
        )
        assert f'<a href="#id_{name}">' in page  # the summary on top links to the field
    assert '<details class="advanced" open>' in page  # the lease time is an advanced setting
    quiet = as_user(client, researcher).get(reverse("project-new")).content.decode()
    assert '<details class="advanced">' in quiet and "error-summary" not in quiet


def test_k_below_one_is_an_error_of_the_k_field(client, researcher):
    response = as_user(client, researcher).post(reverse("project-new"), likert_form(assignments_per_task="0"))
    errors = response.context["form"].errors
    assert list(errors) == ["assignments_per_task"]
    assert "greater than or equal to 1" in errors["assignments_per_task"][0]


def test_a_failed_paste_import_keeps_the_pasted_json_in_the_box(client, researcher):
    project = make_likert_project(researcher, [], items=0)
    pasted = '{"documents": [{"id": "a", "text": "<b>x</b>"}], "items": [{"document": "zz"}]}'
    page = as_user(client, researcher).post(reverse("project-import", args=[project.pk]), {"body": pasted})
    text = page.content.decode()
    assert "is not among the project" in text
    assert "what you pasted is still in the boxes below" in text
    box = re.search(r'<textarea id="import-body"[^>]*>(.*?)</textarea>', text, re.S)
    assert box and box.group(1) == pasted.replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    assert project.documents.count() == 0


@pytest.mark.parametrize("task_type", list(TASK_TYPES))
def test_the_import_page_shows_an_example_for_its_task_type_that_imports(client, researcher, task_type):
    config = SAMPLE_CONFIGS.get(task_type, {})
    project = Project.objects.create(name=task_type, owner=researcher, task_type=task_type, config=config)
    page = as_user(client, researcher).get(reverse("project-import", args=[project.pk])).content.decode()
    assert "/api/schema/" not in page  # the raw OpenAPI YAML is no example
    shown = re.search(r'<pre class="example"><code>(.*?)</code></pre>', page, re.S).group(1)
    body = json.loads(shown.replace("&quot;", '"').replace("&#x27;", "'").replace("&amp;", "&"))
    assert body == example_body(project.type, config)
    assert page.count('<pre class="example">') == len(TASK_TYPES)  # the others, folded below
    summary = import_from_body(project, body)
    assert project.tasks.filter(kind=Task.Kind.ITEM).count() == summary.tasks_total > 0
