"""In real Chromium, at 1280×800 and 390×844: a rating page shows the output to rate on the screen
at once, named, above its (long) source, with the scale's anchors under their points, beside or above
the answer bar; screenshots go to test-artifacts/."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Project
from evaluation.collection.flow import import_collection
from tests.browser.conftest import keyboard_ready, log_in
from tests.browser.test_judging_layout import ON_SCREEN, SIZES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCE = (
    "stewartson's transformation is applied to the laminar compressible boundary-layer equations and the "
    "requirement of similarity is introduced, resulting in a set of ordinary nonlinear differential "
    "equations previously quoted by stewartson, but unsolved . "
) * 12
OUTPUT = "similarity solutions of the compressible laminar boundary layer with pressure gradient"


def test_the_output_is_on_screen_first_with_the_anchors_on_its_scale(live_server, page, artifacts):
    users = get_user_model().objects
    owner = users.create_user("owner", password="owner-password")
    rater = users.create_user("rater", password="rater-password")
    project = Project.objects.create(
        name="Summaries rated",
        owner=owner,
        task_type="likert",
        config={
            "dimensions": ["informativeness", "fluency"],
            "scale": [1, 5],
            "anchors": {"1": "very poor", "3": "fair", "5": "excellent"},
        },
        assignments_per_task=1,
    )
    project.annotators.set([rater])
    import_collection(
        project,
        topics=[{"id": "62", "title": "Abstract 62", "description": SOURCE}],
        documents=[{"id": "62-lead", "text": OUTPUT}],
        items=[{"topic": "62", "document": "62-lead", "system": "lead", "input": "62"}],
    )
    log_in(page, live_server.url, "rater", "rater-password")
    page.goto(f"{live_server.url}/projects/{project.pk}/judge/")
    page.get_by_role("button", name="Get the next task").click()
    keyboard_ready(page)
    for size in SIZES:
        page.set_viewport_size(size)
        page.reload()
        page.get_by_role("button", name="Submit").wait_for()
        page.screenshot(path=str(artifacts / f"rating-page-{size['width']}.png"))
        output = page.get_by_role("article", name="The output to rate")
        assert output.get_by_text(OUTPUT).evaluate(ON_SCREEN), f"the output is off screen at {size['width']}"
        heading = page.get_by_role("heading", name="Source: Abstract 62")
        assert output.bounding_box()["y"] < heading.bounding_box()["y"]
        for anchor in ("very poor", "fair", "excellent"):
            label = page.locator("label.point", has_text=anchor).first
            assert label.evaluate(ON_SCREEN), f"{anchor!r} is off screen at {size['width']}"
        # Under its point, not beside the scale: the anchor's box is below its number's, centred on it.
        point = page.locator("label.point.anchored").first
        number, anchor_box = (
            point.locator(".point-value").bounding_box(),
            point.locator(".anchor").bounding_box(),
        )
        assert anchor_box["y"] >= number["y"] + number["height"] - 1
        assert abs((anchor_box["x"] + anchor_box["width"] / 2) - (number["x"] + number["width"] / 2)) < 4
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
