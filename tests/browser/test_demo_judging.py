"""In real Chromium: a demo annotator logs in and judges, with the keyboard only, what the demo's
simulated crowd left."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from annotation.models import Judgement
from evaluation.demo import DEMO_PASSWORD, DEMO_PROJECT_NAME
from tests.browser.conftest import keyboard_ready, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_demo_annotator_judges_three_items_with_the_keyboard(live_server, page, artifacts):
    call_command("load_demo", verbosity=0)
    log_in(page, live_server.url, "annotator1", DEMO_PASSWORD)
    # The relevance campaign's row (the demo also has a text campaign to rate).
    page.get_by_role("row").filter(has_text=DEMO_PROJECT_NAME).get_by_role("link", name="Judge").click()
    page.get_by_role("button", name="Get the next task").click()
    for expected in (1, 2, 3):
        page.get_by_role("heading", name="Topic:").wait_for()
        keyboard_ready(page)
        page.keyboard.press("r" if expected % 2 else "n")
        page.keyboard.press("Enter")
        page.get_by_text(f"You have judged {expected} item").wait_for()
    page.screenshot(path=str(artifacts / "demo-judging-page.png"), full_page=True)
    mine = Judgement.objects.filter(annotator__username="annotator1").order_by("id")
    labels = list(mine.values_list("label", flat=True))
    assert labels == [1, 0, 1]
