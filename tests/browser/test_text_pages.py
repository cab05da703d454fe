"""In real Chromium: the demo's text campaign opens on a full Systems table (each system's mean rating
per dimension with its interval, both alphas), a correlation heat map of every metric against every
dimension (at the summary level: its 4 systems are too few for the system level, which says so), and
a scatter plot, each drawn (screenshots kept in test-artifacts/)."""

from __future__ import annotations

import pytest

from tests.browser.conftest import log_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_demo_text_campaign_shows_systems_heat_map_and_scatter(live_server, page, artifacts):
    from django.core.management import call_command

    from annotation.models import Project
    from evaluation.demo import DEMO_PASSWORD, DEMO_RESEARCHER
    from evaluation.demo.text_campaign import DEMO_TEXT_PROJECT_NAME, SYSTEMS
    from evaluation.texts.meta_report import correlation_matrix

    call_command("load_demo", verbosity=0)
    project = Project.objects.get(name=DEMO_TEXT_PROJECT_NAME)
    log_in(page, live_server.url, DEMO_RESEARCHER, DEMO_PASSWORD)

    page.goto(f"{live_server.url}/projects/{project.pk}/systems/")
    assert page.locator("#systems tbody tr").count() == len(SYSTEMS)
    footer = page.locator("#systems tfoot").inner_text()
    assert "(interval)" in footer and "(ordinal)" in footer
    page.locator("#systems").screenshot(path=str(artifacts / "text-systems-table.png"))

    # The demo has 4 summarisers: at the system level too few for a correlation, and the page says so.
    page.goto(f"{live_server.url}/projects/{project.pk}/meta-evaluation/?level=system&method=kendall")
    reasons = page.locator(".correlation-reason").all_inner_texts()
    assert any("too few systems for a correlation (4; needs at least 5)" in reason for reason in reasons)
    page.goto(f"{live_server.url}/projects/{project.pk}/meta-evaluation/?level=summary&method=kendall")
    heat = page.locator("#correlations")
    assert heat.locator("tbody tr").count() == 10  # every metric
    assert heat.locator("thead th").count() == 2  # every dimension
    matrix = correlation_matrix(project.text_evaluations.get(), "summary", "kendall")
    first = matrix["cells"]["rouge1"]["informativeness"]["value"]
    assert f"{first:.2f}".replace("-", "−") in heat.locator("tbody tr").first.inner_text()
    heat.screenshot(path=str(artifacts / "text-heat-map.png"))

    scatter = page.locator("#scatter")
    scatter.scroll_into_view_if_needed()
    wait_until(page, "document.querySelector('#scatter').complete")
    assert page.evaluate("document.querySelector('#scatter').naturalWidth") > 0
    assert page.locator("#pair-correlations tbody tr").count() == 9
    # Williams' test over 4 systems would have df = 1: none, and the reason.
    assert page.locator("#williams").count() == 0
    assert (
        "too few systems for Williams' test (4; needs at least 8)"
        in page.locator("#williams-reason").inner_text()
    )
    page.locator("section[aria-labelledby=scatter-heading]").screenshot(
        path=str(artifacts / "text-scatter.png")
    )
