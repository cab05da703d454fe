"""In real Chromium: an annotator passes the qualification test, judges ten items with the keyboard
alone, watches their progress advance and undoes one judgement; the page also works phone-sized."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Assignment, Judgement, JudgementRevision, Project, Task
from evaluation.collection.flow import import_collection
from tests.browser.conftest import keyboard_ready, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "annotator-password"


def relevance_project() -> tuple[Project, object]:
    users = get_user_model()
    owner = users.objects.create_user("owner", password="owner-password")
    annotator = users.objects.create_user("ann", password=PASSWORD)
    project = Project.objects.create(
        name="Jet noise",
        owner=owner,
        assignments_per_task=1,
        instructions="Mark a document **relevant** if it helps answer the question.",
        qualification_pass_rate=1.0,
    )
    project.annotators.set([annotator])
    import_collection(
        project,
        topics=[{"id": "1", "title": "jet noise reduction"}],
        documents=[
            {"id": f"d{i}", "text": f"Abstract {i} on jet noise and its reduction."} for i in range(14)
        ],
        items=[{"topic": "1", "document": f"d{i}"} for i in range(12)],
        qualification=[
            {"topic": "1", "document": "d12", "answer": {"label": 1}},
            {"topic": "1", "document": "d13", "answer": {"label": 0}},
        ],
    )
    return project, annotator


def test_an_annotator_qualifies_then_judges_ten_items_by_keyboard_and_undoes_one(
    live_server, page, artifacts
):
    _project, annotator = relevance_project()
    log_in(page, live_server.url, "ann", PASSWORD)
    page.get_by_role("link", name="Judge").click()
    page.get_by_text("Pass the qualification test before judging").wait_for()
    page.get_by_role("link", name="Take the qualification test").click()
    questions = page.locator("section.task")
    assert questions.count() == 2
    questions.nth(0).get_by_label("Relevant", exact=True).check()
    questions.nth(1).get_by_label("Not relevant").check()
    page.get_by_role("button", name="Submit my answers").click()
    page.get_by_text("You passed (2 of 2 right)").wait_for()

    # From here on, the keyboard only.
    page.get_by_role("button", name="Get the next task").focus()
    page.keyboard.press("Enter")
    for judged in range(1, 11):
        page.get_by_role("heading", name="Topic: jet noise reduction").wait_for()
        keyboard_ready(page)
        page.keyboard.press("r" if judged % 3 else "n")
        page.keyboard.press("Enter")
        page.get_by_text(f"You have judged {judged} item").wait_for()
    # The project's counter is cached and does not move with each submission (it would tell gold
    # items from items); once the cache renews it shows all ten.
    from django.core.cache import cache

    cache.clear()
    page.reload()
    assert page.locator("#project-progress").get_attribute("value") == str(round(100 * 10 / 12))
    page.screenshot(path=str(artifacts / "judging-page.png"), full_page=True)

    last = Judgement.objects.filter(annotator=annotator).order_by("-id").first()
    assert last.label == 1  # the tenth judgement was "r"
    page.keyboard.press("u")
    page.get_by_role("heading", name="Your judgement").wait_for()
    keyboard_ready(page)
    assert page.locator('input[name="label"][value="1"]').is_checked()
    page.keyboard.press("n")
    page.keyboard.press("Enter")
    page.get_by_text("Your correction is saved").wait_for()
    page.get_by_text("You have judged 10 items").wait_for()

    last.refresh_from_db()
    assert (last.label, last.revision) == (0, 2)
    assert list(JudgementRevision.objects.filter(judgement=last).values_list("label", flat=True)) == [1, 0]
    assert Judgement.objects.filter(annotator=annotator, task__kind=Task.Kind.ITEM).count() == 10

    # s gives the task in hand back: it goes to someone else, never again to this annotator.
    held = Assignment.objects.get(annotator=annotator, status=Assignment.Status.ACTIVE)
    page.get_by_role("heading", name="Topic: jet noise reduction").wait_for()
    keyboard_ready(page)
    page.keyboard.press("s")
    page.get_by_text("Skipped.").wait_for()
    held.refresh_from_db()
    assert held.status == Assignment.Status.SKIPPED
    now_held = Assignment.objects.get(annotator=annotator, status=Assignment.Status.ACTIVE)
    assert now_held.task_id != held.task_id
    assert Judgement.objects.filter(annotator=annotator, task__kind=Task.Kind.ITEM).count() == 10


def test_the_judging_page_works_phone_sized_with_labelled_controls(live_server, browser, artifacts):
    project, _annotator = relevance_project()
    project.tasks.filter(kind=Task.Kind.QUALIFICATION).delete()
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        log_in(page, live_server.url, "ann", PASSWORD)
        page.goto(f"{live_server.url}/projects/{project.pk}/judge/")
        page.get_by_role("button", name="Get the next task").tap()
        page.get_by_role("heading", name="Topic:").wait_for()
        # Nothing is wider than the screen, so nothing needs sideways scrolling.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        unlabelled = page.evaluate(
            """() => [...document.querySelectorAll('input:not([type=hidden]), textarea, select')]
                 .filter(el => !el.labels || el.labels.length === 0).map(el => el.name)"""
        )
        assert unlabelled == []
        page.get_by_label("Not relevant").tap()
        page.get_by_role("button", name="Submit").tap()
        page.get_by_text("You have judged 1 item").wait_for()
        page.screenshot(path=str(artifacts / "judging-page-phone.png"), full_page=True)
    finally:
        context.close()
