"""In real Chromium: the researcher opens the item browser, filters it to the items whose annotators
disagree, opens one, settles it by hand, and sees the next snapshot take the decision (screenshots
of both pages kept in test-artifacts/)."""

from __future__ import annotations

import pytest

from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import embedded
from tests.browser.conftest import log_in
from tests.browser.test_accessibility_in_browser import CONTRAST_FAILURES
from tests.groundtruth.builders import items, judge, label_project

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"


def test_the_researcher_filters_to_disagreements_opens_an_item_and_settles_it(
    live_server, page, artifacts, researcher, annotators
):
    project = label_project(researcher, annotators, items=6)
    for position, task in enumerate(items(project)):
        for index, annotator in enumerate(annotators):
            # d1 and d4 split 2 against 1; the others are unanimous.
            judge(task, annotator, int(index == 2) if position in (1, 4) else position % 2)
    project.tasks.update(completed=True, slots_taken=3)  # as the engine would have left them
    build_snapshot(project.pk)
    log_in(page, live_server.url, "owner", "owner-password")
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.get_by_role("navigation", name="Project pages").get_by_role("link", name="Items").click()
    page.get_by_role("table").get_by_role("link", name="1 × d5").wait_for()

    page.get_by_label("Annotators disagree").select_option("true")
    page.get_by_role("button", name="Filter").click()
    page.get_by_text("2 items match, in judging order").wait_for()
    assert page.get_by_role("table").get_by_role("link").all_inner_texts() == ["1 × d1", "1 × d4"]
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert page.evaluate(CONTRAST_FAILURES) == []
    page.screenshot(path=str(artifacts / "item-browser-disagreements.png"), full_page=True)

    page.get_by_role("link", name="1 × d4").click()
    page.get_by_role("heading", name="Judgements").wait_for()
    assert "the annotators disagree" in page.locator("#disagreement").inner_text()
    assert "not relevant" in page.locator("#aggregate").inner_text()
    assert page.get_by_role("row", name="annotator3").is_visible()
    page.get_by_role("radio", name="Relevant", exact=True).check()
    page.get_by_label("Note (optional: why)").fill("Section 2 answers the topic.")
    page.get_by_role("button", name="Settle").click()
    page.get_by_role("status").get_by_text("Settled as “relevant”").wait_for()
    assert "Section 2 answers the topic." in page.locator("#decision").inner_text()

    embedded.run_queued()  # the debounced job the decision asked for
    page.reload()
    aggregate = page.locator("#aggregate").inner_text()
    assert "In version 2 (the newest): relevant" in aggregate
    assert "Settled by owner" in aggregate and "the annotators' aggregate was not relevant" in aggregate
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert page.evaluate(CONTRAST_FAILURES) == []
    page.screenshot(path=str(artifacts / "item-page-settled.png"), full_page=True)

    page.get_by_role("link", name="Back to the items").click()
    page.get_by_text("2 items match, in judging order").wait_for()  # the filters kept
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: tables scroll, the page does not
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.screenshot(path=str(artifacts / "item-browser-390.png"), full_page=True)
