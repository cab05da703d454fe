"""In real Chromium: the keyboard works for every kind of answer — a digit per Likert dimension in turn,
a or b for pairwise, typing then Ctrl+Enter for free text (with a live word count), p or a for a content
unit's presence, and content units written by typing, Tab and Space."""

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


@pytest.mark.parametrize("size", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}])
def test_content_unit_presence_takes_p_or_a_at_both_sizes(live_server, page, artifacts, size):
    """LitePyramid's micro-task (issue 26): the content unit above the summary, answered by keys alone."""
    from evaluation.pyramid.importing import import_pyramid

    project = project_of("scu_presence", {}, [])
    import_pyramid(
        project,
        {
            "units": [
                {"input": "d1", "id": "1", "statement": "Amanda baked cookies", "weight": 1},
                {"input": "d1", "id": "2", "statement": "Jerry wants some", "weight": 1},
            ],
            "summaries": [{"input": "d1", "system": "bart", "text": "Amanda has baked cookies for Jerry."}],
        },
    )
    page.set_viewport_size(size)
    start(page, live_server, project)
    heading = page.locator("#topic-title")
    heading.wait_for()
    assert heading.inner_text().startswith("Content unit: ")
    assert heading.bounding_box()["y"] < page.locator("article.document").bounding_box()["y"]
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.screenshot(path=str(artifacts / f"judging-page-scu-presence-{size['width']}.png"), full_page=True)
    first = heading.inner_text()
    page.keyboard.press("p")
    page.keyboard.press("Enter")
    page.get_by_text("You have judged 1 item").wait_for()  # and the next unit is shown at once
    keyboard_ready(page)
    assert heading.inner_text() != first
    page.keyboard.press("a")
    page.keyboard.press("Enter")
    page.get_by_text("You have judged 2 items").wait_for()
    labels = {j.task.topic.title: j.label for j in Judgement.objects.select_related("task__topic")}
    statement = first.removeprefix("Content unit: ")
    other = next(title for title in labels if title != statement)
    assert labels == {statement: 1, other: 0}


@pytest.mark.parametrize("size", [{"width": 1280, "height": 800}, {"width": 390, "height": 844}])
def test_content_units_are_written_by_typing_tab_and_space(live_server, page, artifacts, size):
    """The Pyramid method's expert step (issue 26): a statement typed, its reference ticked with Space,
    the next row reached with Tab, sent with Ctrl+Enter; a unit with no reference is refused."""
    project = project_of(
        "scu_writing", {"references": ["A", "B"], "max_units": 3}, [{"document": "o0", "input": "o0"}]
    )
    page.set_viewport_size(size)
    start(page, live_server, project)
    first = page.get_by_label("Content unit 1", exact=True)
    first.wait_for()
    assert page.evaluate("document.activeElement.name") == "unit-0-statement"
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    page.keyboard.type("Output 0 is about cookies")
    page.keyboard.press("Control+Enter")  # no reference ticked: refused, nothing stored
    page.get_by_text("content unit 1 has no reference").wait_for()
    assert not Judgement.objects.exists()
    page.get_by_label("Content unit 1", exact=True).focus()
    page.keyboard.press("Tab")  # to its box A
    page.keyboard.press("Space")
    page.keyboard.press("Tab")  # box B
    page.keyboard.press("Tab")  # the second row's statement
    page.keyboard.type("It names a number")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")  # its box B; Ctrl+Enter sends from a box as from a text field
    page.screenshot(path=str(artifacts / f"judging-page-scu-writing-{size['width']}.png"), full_page=True)
    page.keyboard.press("Control+Enter")
    page.get_by_text("You have judged 1 item").wait_for()
    assert Judgement.objects.get().answer == {
        "units": [
            {"statement": "Output 0 is about cookies", "references": ["A"]},
            {"statement": "It names a number", "references": ["B"]},
        ]
    }
