"""In real Chromium: a researcher creates a Likert project, imports items from a file, and watches
the dashboard's figures update as annotators submit."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project, Task
from annotation.permissions import RESEARCHERS_GROUP
from tests.browser.conftest import log_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_researcher_creates_a_likert_project_imports_items_and_watches_progress(
    live_server, page, artifacts, tmp_path
):
    users = get_user_model()
    researcher = users.objects.create_user("res", password="researcher-password")
    researcher.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    raters = [users.objects.create_user(f"rater{i}", password="x") for i in (1, 2)]

    log_in(page, live_server.url, "res", "researcher-password")
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Name").fill("Dialogue summaries")
    page.get_by_label("Task type").select_option("likert")
    page.get_by_label("Likert dimensions").fill("quality, coherence, diversity, importance")
    page.get_by_label("Assignments per task").fill("2")
    page.get_by_label("Annotators").fill("rater1, rater2")
    page.get_by_role("button", name="Create project").click()
    page.get_by_role("heading", name="Import into Dialogue summaries").wait_for()

    body = {
        "topics": [{"id": "dlg1", "title": "Amanda: I baked cookies. Do you want some? Jerry: Sure!"}],
        "documents": [
            {"id": f"m{i}", "text": f"Amanda baked cookies and offers Jerry some ({i})."} for i in range(5)
        ],
        "items": [{"topic": "dlg1", "document": f"m{i}"} for i in range(5)],
    }
    upload = tmp_path / "items.json"
    upload.write_text(json.dumps(body))
    page.get_by_label("JSON file").set_input_files(str(upload))
    page.get_by_role("button", name="Import").click()
    page.get_by_text("Imported 1 topic, 5 documents, 5 new items (5 items in the project).").wait_for()

    project = Project.objects.get(name="Dialogue summaries")
    assert project.config["dimensions"] == ["quality", "coherence", "diversity", "importance"]
    assert project.tasks.filter(kind=Task.Kind.ITEM).count() == 5
    figure = page.locator('[data-figure="judgements_done"]')
    assert figure.inner_text() == "0"

    for rater in raters:
        assignment = claim_next_task(project, rater)
        scores = {"quality": 4, "coherence": 3, "diversity": 2, "importance": 5}
        submit_judgement(assignment.pk, rater, {"scores": scores})
    # The page polls its progress endpoint: the figures change without a reload.
    wait_until(page, "document.querySelector('[data-figure=\"judgements_done\"]').textContent === '2'")
    assert page.locator('[data-figure="items_complete"]').inner_text() == "1"
    assert page.locator('[data-figure="judgements_remaining"]').inner_text() == "8"
    page.screenshot(path=str(artifacts / "researcher-dashboard.png"), full_page=True)


def test_the_api_docs_render_from_this_server_under_the_content_security_policy(
    live_server, page, researcher, artifacts
):
    log_in(page, live_server.url, "owner", "owner-password")
    page.goto(f"{live_server.url}/api/docs/")
    page.get_by_text("/api/projects/{project_pk}/import/").first.wait_for()
    page.screenshot(path=str(artifacts / "api-docs.png"))
