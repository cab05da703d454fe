"""In real Chromium, for every task type, on a long document: the answer controls are on the screen
as soon as the page is, at 1280×800 (a panel beside the text) and at 390×844 (a bar at the bottom),
and stay there while the text scrolls; they can be used from there. A 10 MB document shows its first
part at once, with a way to the next (it took Chromium 10–13 s to lay out whole)."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Document, Project
from evaluation.collection.flow import import_collection
from tests.browser.conftest import keyboard_ready, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "annotator-password"
SIZES = ({"width": 1280, "height": 800}, {"width": 390, "height": 844})
PARAGRAPH = (
    "Experiments on the noise of cold subsonic jets show that the sound\n"
    "power rises with the eighth power of the jet velocity, as Lighthill\n"
    "predicted, over the whole range of speeds that were measured here.\n"
) * 8 + "\n"
CONFIGS = {
    "binary_relevance": {},
    "graded_relevance": {"levels": [{"value": v, "label": f"Level {v}"} for v in range(4)]},
    "likert": {
        "dimensions": ["informativeness", "fluency", "coherence", "relevance"],
        "scale": [1, 5],
        "anchors": {"1": "very poor", "3": "fair", "5": "excellent"},
    },
    "free_text": {"max_words": 100},
    "scu_presence": {},
    "scu_writing": {},
    "pairwise": {},
}
# Is the element's centre inside the viewport, and is it what the browser finds there (not hidden
# behind anything, nor scrolled out of a box)?
ON_SCREEN = """(el) => {
  const box = el.getBoundingClientRect();
  const [x, y] = [box.left + box.width / 2, box.top + box.height / 2];
  const inside = box.top >= 0 && box.bottom <= innerHeight && box.left >= 0 && box.right <= innerWidth;
  const hit = inside && document.elementFromPoint(x, y);
  return Boolean(hit && (el.contains(hit) || (el.labels && [...el.labels].some((l) => l.contains(hit)))));
}"""


def project_with_a_long_document(task_type: str, characters: int) -> Project:
    users = get_user_model().objects
    owner = users.create_user("owner", password="owner-password")
    annotator = users.create_user("ann", password=PASSWORD)
    project = Project.objects.create(
        name=f"Long {task_type}",
        owner=owner,
        task_type=task_type,
        config=CONFIGS[task_type],
        assignments_per_task=1,
    )
    project.annotators.set([annotator])
    item = {"topic": "1", "document": "long", "system": "s", "input": "1"}
    if task_type == "pairwise":
        item |= {"document_b": "long-b", "system_b": "t"}
    import_collection(
        project,
        topics=[{"id": "1", "title": "jet noise reduction"}],
        documents=[{"id": "long", "text": "short for now"}, {"id": "long-b", "text": "short for now"}],
        items=[item],
    )
    # Written straight to the table: the import's checks are not what is tested here.
    text = PARAGRAPH * (characters // len(PARAGRAPH) + 1)
    Document.objects.filter(project=project).update(text=text[:characters])
    return project


def controls(page) -> list:
    """The first choice of every question (each Likert line), the text box, Submit and Skip."""
    fields = page.locator("#judgement-form")
    found = [group.locator("input").first for group in fields.locator("fieldset").all()]
    found += fields.locator("textarea").all()
    return [*found, page.get_by_role("button", name="Submit"), page.get_by_role("button", name="Skip")]


def off_screen(page) -> list[str]:
    return [
        control.evaluate("el => el.outerHTML.slice(0, 80)")
        for control in controls(page)
        if not control.evaluate(ON_SCREEN)
    ]


@pytest.mark.parametrize(
    ("task_type", "characters"),
    [
        ("binary_relevance", 10_000_000),
        ("graded_relevance", 200_000),
        ("likert", 200_000),
        ("free_text", 200_000),
        ("pairwise", 200_000),
        ("scu_presence", 200_000),
        ("scu_writing", 200_000),
    ],
)
def test_the_answer_controls_are_on_screen_beside_a_long_document_at_both_sizes(
    live_server, page, artifacts, task_type, characters
):
    project = project_with_a_long_document(task_type, characters)
    log_in(page, live_server.url, "ann", PASSWORD)
    page.goto(f"{live_server.url}/projects/{project.pk}/judge/")
    page.get_by_role("button", name="Get the next task").click()
    keyboard_ready(page)
    for size in SIZES:
        page.set_viewport_size(size)
        started = time.monotonic()
        page.reload()
        page.get_by_role("button", name="Submit").wait_for()
        seconds = time.monotonic() - started
        assert seconds < 5, f"{task_type}: {seconds:.1f} s to show the buttons"
        assert page.get_by_text("Part 1 of").first.is_visible()
        assert page.get_by_role("link", name="Show more: part 2").first.is_visible()
        page.screenshot(path=str(artifacts / f"long-{task_type}-{size['width']}.png"))
        assert off_screen(page) == [], f"{task_type} at {size['width']}: off screen at the top"
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
        assert off_screen(page) == [], f"{task_type} at {size['width']}: off screen mid-text"
    if task_type == "likert":  # the anchors on the scale, under their points
        for anchor in ("very poor", "fair", "excellent"):
            assert page.locator("label.point .anchor", has_text=anchor).first.is_visible()
    # Answered from where the reader is, halfway down the text, on the phone.
    form = page.locator("#judgement-form")
    if task_type == "free_text":
        form.locator("textarea").fill("Nozzles with lobes make jets quieter.")
    if task_type == "scu_writing":  # a statement and the reference that says it
        form.get_by_label("Content unit 1", exact=True).fill("Lobed nozzles quieten jets")
        form.locator('input[name="unit-0-ref-A"]').check()
    else:
        for question in form.locator("fieldset").all():
            question.locator("input").last.check()
    page.get_by_role("button", name="Submit").click()
    page.get_by_text("You have judged 1 item").wait_for()
