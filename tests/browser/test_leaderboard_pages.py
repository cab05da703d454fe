"""In real Chromium: the runs page, the evaluations page and the leaderboard with its checks and
plots render for a judged project with external qrels (screenshots kept in test-artifacts/)."""

from __future__ import annotations

import pytest

from evaluation.collection.external_qrels import import_external_qrels
from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import embedded
from evaluation.scoring.jobs import request_evaluation
from tests.annotation.factories import make_project
from tests.browser.conftest import log_in, wait_until
from tests.scoring.conftest import judge_everything

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QRELS = "401 0 d1 1\n401 0 d2 1\n401 0 d3 0\n402 0 d4 1\n402 0 d9 1\n"


@pytest.fixture
def evaluated(researcher, annotators):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    import_external_qrels(project, "official", QRELS)
    snapshot = build_snapshot(project.pk)
    evaluation = request_evaluation(project, snapshot=snapshot)
    request_evaluation(project, external_qrels=project.external_qrels.get())
    embedded.run_queued()
    evaluation.refresh_from_db()
    assert evaluation.status == "done", evaluation.error
    return evaluation


def test_the_leaderboard_its_checks_and_the_run_pages_render(live_server, page, artifacts, evaluated):
    project = evaluated.project
    log_in(page, live_server.url, "owner", "owner-password")
    page.goto(f"{live_server.url}/projects/{project.pk}/leaderboard/?measures=map,P_5,ndcg")
    assert page.locator("#leaderboard tbody tr").count() == 2
    # The scores' signature, then how the board's intervals and tests are made.
    assert page.locator("#signature").inner_text().startswith(f"{evaluated.signature}|ci:boot-xpct|")
    # Two topics: no interval and no significance verdict, but the reasons.
    assert (
        "too few topics for an interval (2; needs at least 10)"
        in page.locator("#interval-reason").inner_text()
    )
    assert "too few topics for a significance test" in page.locator("#significance-reason").inner_text()
    for table in ("#pairs", "#unjudged", "#pool-bias", "#stability"):
        assert page.locator(table).is_visible(), table
    assert "holds 3 of the 4 documents" in page.content()
    page.screenshot(path=str(artifacts / "leaderboard.png"), full_page=True)
    page.locator("#checks-heading").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "leaderboard-checks.png"))

    # ROC and DET are folded with what they say (and load only once opened).
    page.locator("#binary-curves summary").click()
    for plot in ("pr", "per-topic", "roc", "det", "kappa"):  # every image loaded and drawn
        image = page.locator(f"#plot-{plot} img")
        image.scroll_into_view_if_needed()
        wait_until(page, f"document.querySelector('#plot-{plot} img').complete")
        assert page.evaluate(f"document.querySelector('#plot-{plot} img').naturalWidth") > 0, plot
        page.locator(f"#plot-{plot}").screenshot(path=str(artifacts / f"plot-{plot}.png"))

    page.get_by_role("link", name="runA").click()
    assert page.locator("#per-topic tbody tr").count() == 2
    page.screenshot(path=str(artifacts / "leaderboard-run-topics.png"), full_page=True)

    page.goto(f"{live_server.url}/projects/{project.pk}/runs/")
    assert page.locator("#runs tbody tr").count() == 2
    page.screenshot(path=str(artifacts / "runs-page.png"), full_page=True)
    page.goto(f"{live_server.url}/projects/{project.pk}/evaluations/")
    assert page.locator("#evaluations tbody tr").count() == 2
    page.screenshot(path=str(artifacts / "evaluations-page.png"), full_page=True)


def test_the_demo_opens_on_a_full_leaderboard(live_server, page, artifacts):
    from django.core.management import call_command

    from annotation.models import Project
    from evaluation.demo import DEMO_PASSWORD, DEMO_PROJECT_NAME, DEMO_RESEARCHER

    call_command("load_demo", verbosity=0)
    project = Project.objects.get(name=DEMO_PROJECT_NAME)
    log_in(page, live_server.url, DEMO_RESEARCHER, DEMO_PASSWORD)
    page.goto(f"{live_server.url}/projects/{project.pk}/leaderboard/")
    assert page.locator("#leaderboard tbody tr").count() == 5
    assert page.locator("#leaderboard tbody tr").last.locator("th").inner_text() == "weak-common-words"
    # 25 topics: every cell has its interval, inside [0, 1], and the pairs have their verdicts.
    bounds = [
        float(number)
        for text in page.locator("#leaderboard .interval").all_inner_texts()
        for number in text.strip("[]").replace("−", "-").split(", ")
    ]
    assert len(bounds) == 2 * 5 * 5 and all(0 <= bound <= 1 for bound in bounds)
    assert page.locator("#significance-reason").count() == 0 and page.locator("#pairs tbody tr").count() == 10
    assert "cranfield-official" in page.content()
    page.screenshot(path=str(artifacts / "demo-leaderboard.png"), full_page=True)
    # The demo has 25 topics: the Q-Q plot of the two best runs' differences is there too.
    page.locator("#plot-qq img").scroll_into_view_if_needed()
    assert page.evaluate("document.querySelector('#plot-qq img').naturalWidth") > 0
    page.locator("#plot-qq").screenshot(path=str(artifacts / "plot-qq.png"))
    page.locator("#plot-pr").screenshot(path=str(artifacts / "demo-plot-pr.png"))
