"""In real Chromium: one request per judgement (the answer to a submission is the next task, swapped
into the same page), one-key answering, and the same judging without JavaScript."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Judgement, Project
from evaluation.collection.flow import import_collection
from tests.browser.conftest import keyboard_ready, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "annotator-password"


def project_with(**settings) -> Project:
    users = get_user_model()
    owner = users.objects.create_user("owner", password="owner-password")
    annotator = users.objects.create_user("ann", password=PASSWORD)
    project = Project.objects.create(name="Jet noise", owner=owner, assignments_per_task=1, **settings)
    project.annotators.set([annotator])
    import_collection(
        project,
        topics=[{"id": "1", "title": "jet noise reduction"}],
        documents=[{"id": f"d{i}", "text": f"Abstract {i} on jet noise."} for i in range(6)],
        items=[{"topic": "1", "document": f"d{i}"} for i in range(6)],
    )
    return project


def test_one_key_answers_each_task_in_one_request_without_leaving_the_page(live_server, page, artifacts):
    project = project_with(one_key_answers=True)
    log_in(page, live_server.url, "ann", PASSWORD)
    page.goto(f"{live_server.url}/projects/{project.pk}/judge/")
    keyboard_ready(page)
    page.get_by_role("button", name="Get the next task").click()
    page.get_by_role("heading", name="Topic: jet noise reduction").wait_for()
    page.get_by_text("One-key answering").wait_for()
    page.evaluate("window.stillTheSamePage = true")
    requests: list[tuple[str, str]] = []
    page.on("request", lambda request: requests.append((request.method, request.url)))

    for judged, key in enumerate("rnr", start=1):
        keyboard_ready(page)
        page.keyboard.press(key)  # no Enter: the key that completes the answer sends it
        page.get_by_text(f"You have judged {judged} item").wait_for()

    assert page.evaluate("window.stillTheSamePage") is True  # swapped in, never reloaded
    posts = [url for method, url in requests if method == "POST"]
    assert len(posts) == 3 and all(url.endswith("/submit/") for url in posts)
    assert not [url for method, url in requests if method == "GET" and "/judge/" in url]
    judgements = Judgement.objects.order_by("id")
    assert list(judgements.values_list("label", flat=True)) == [1, 0, 1]
    assert all(seconds is not None for seconds in judgements.values_list("seconds_on_task", flat=True))
    page.screenshot(path=str(artifacts / "judging-page-one-key.png"), full_page=True)


def test_without_one_key_a_key_only_chooses_and_enter_sends(live_server, page):
    project = project_with()
    log_in(page, live_server.url, "ann", PASSWORD)
    page.goto(f"{live_server.url}/projects/{project.pk}/judge/")
    page.get_by_role("button", name="Get the next task").click()
    page.get_by_role("heading", name="Topic: jet noise reduction").wait_for()
    keyboard_ready(page)
    page.keyboard.press("r")
    assert page.locator('input[name="label"][value="1"]').is_checked()
    page.wait_for_timeout(300)
    assert Judgement.objects.count() == 0
    page.keyboard.press("Enter")
    page.get_by_text("You have judged 1 item").wait_for()
    assert Judgement.objects.get().label == 1


def test_judging_works_without_javascript(live_server, browser):
    project = project_with(one_key_answers=True)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "ann", PASSWORD)
        page.goto(f"{live_server.url}/projects/{project.pk}/judge/")
        page.get_by_role("button", name="Get the next task").click()
        for judged in (1, 2):
            page.get_by_label("Not relevant").check()
            page.get_by_role("button", name="Submit").click()
            page.get_by_text(f"You have judged {judged} item").wait_for()
        assert page.url.endswith(f"/projects/{project.pk}/judge/")  # the redirect after the POST
        assert list(Judgement.objects.values_list("label", flat=True)) == [0, 0]
    finally:
        context.close()
