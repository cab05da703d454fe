"""In real Chromium: the keyboard works for every kind of answer — a digit per Likert dimension in turn,
a or b for pairwise, typing then Ctrl+Enter for free text (with a live word count)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Judgement, Project
from evaluation.collection.flow import import_collection
from tests.browser.conftest import keyboard_ready, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def project_of(task_type: str, config: dict, items: list[dict]) -> Project:
    users = get_user_model()
    owner = users.objects.get_or_create(username="owner")[0]
    annotator = users.objects.get_or_create(username="ann")[0]
    annotator.set_password("pw-annotator")
    annotator.save()
    project = Project.objects.create(
        name=f"{task_type} project", owner=owner, task_type=task_type, config=config, assignments_per_task=1
    )
    project.annotators.set([annotator])
    import_collection(
        project,
        topics=[{"id": "src", "title": "Amanda: I baked cookies. Jerry: Sure!"}],
        documents=[{"id": f"o{i}", "text": f"Output number {i} about cookies."} for i in range(4)],
        items=items,
    )
    return project


def start(page, live_server, project) -> None:
    log_in(page, live_server.url, "ann", "pw-annotator")
    page.goto(f"{live_server.url}/projects/{project.pk}/judge/")
    page.get_by_role("button", name="Get the next task").focus()
    page.keyboard.press("Enter")
    keyboard_ready(page)


def test_likert_dimensions_take_a_digit_each_in_turn(live_server, page, artifacts):
    config = {"dimensions": ["quality", "coherence", "diversity", "importance"], "scale": [1, 5]}
    project = project_of("likert", config, [{"topic": "src", "document": "o0"}])
    start(page, live_server, project)
    page.screenshot(path=str(artifacts / "judging-page-likert.png"), full_page=True)
    for digit in "4253":
        page.keyboard.press(digit)
    page.keyboard.press("Enter")
    page.get_by_text("You have judged 1 item").wait_for()
    scores = Judgement.objects.get().answer["scores"]
    assert scores == {"quality": 4, "coherence": 2, "diversity": 5, "importance": 3}


def test_pairwise_takes_a_or_b(live_server, page):
    project = project_of("pairwise", {}, [{"topic": "src", "document": "o0", "document_b": "o1"}])
    start(page, live_server, project)
    page.get_by_role("article", name="Output B").wait_for()
    page.keyboard.press("b")
    page.keyboard.press("Enter")
    page.get_by_text("You have judged 1 item").wait_for()
    assert Judgement.objects.get().label == 1


def test_free_text_is_typed_counted_and_sent_with_ctrl_enter(live_server, page):
    project = project_of("free_text", {"max_words": 5}, [{"document": "o0"}])
    start(page, live_server, project)
    box = page.get_by_label("Write your text (at most 5 words)")
    box.wait_for()
    page.keyboard.type("Amanda offers Jerry cookies")  # the text box has the focus: keys type
    page.get_by_text("4 of 5 words").wait_for()
    page.keyboard.press("Control+Enter")
    page.get_by_text("You have judged 1 item").wait_for()
    assert Judgement.objects.get().answer == {"text": "Amanda offers Jerry cookies"}
