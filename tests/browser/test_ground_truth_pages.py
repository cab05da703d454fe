"""In real Chromium: the ground-truth page's progress bar follows a running job without a reload, and
the agreement report renders (screenshots kept in test-artifacts/ for people to look at)."""

from __future__ import annotations

import pytest

from evaluation.ground_truth.build import build_snapshot
from evaluation.models import GroundTruthJob
from tests.browser.conftest import log_in, wait_until
from tests.groundtruth.builders import items, judge, label_project

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_progress_bar_follows_the_job_and_announces_the_new_version(
    live_server,
    page,
    artifacts,
    researcher,
    annotators,
):
    project = label_project(researcher, annotators, items=6)
    for position, task in enumerate(items(project)):
        for index, annotator in enumerate(annotators):
            judge(task, annotator, (position + index) % 2, seconds=3.0 + index)
    job = GroundTruthJob.objects.create(
        project=project, status="running", stage="loading judgements", progress=0.05
    )
    log_in(page, live_server.url, "owner", "owner-password")
    page.goto(f"{live_server.url}/projects/{project.pk}/ground-truth/")
    bar = page.get_by_label(f"Progress of job {job.pk}")
    assert bar.get_attribute("value") == "0.050"

    GroundTruthJob.objects.filter(pk=job.pk).update(stage="aggregation: majority", progress=0.5)
    wait_until(page, f"document.querySelector('#job-{job.pk} progress').value === 0.5")
    assert page.locator(f"#job-{job.pk} [data-field=stage]").inner_text() == "aggregation: majority"
    assert page.locator(f"#job-{job.pk} [data-field=percent]").inner_text() == "50 %"

    snapshot = build_snapshot(project.pk)
    GroundTruthJob.objects.filter(pk=job.pk).update(
        status="done", stage="wrote version 1", progress=1.0, snapshot=snapshot
    )
    page.get_by_role("status").get_by_text(f"Job {job.pk} wrote version 1.").wait_for()
    assert page.locator(f"#job-{job.pk} [data-field=status]").inner_text() == "Done"
    page.get_by_role("status").get_by_role("link", name="Reload the page").click()
    page.get_by_role("link", name="qrels of version 1").wait_for()
    page.screenshot(path=str(artifacts / "ground-truth-page.png"), full_page=True)

    page.get_by_role("link", name="agreement of version 1").click()
    page.get_by_role("heading", name="Pairwise Cohen's kappa").wait_for()
    assert page.get_by_role("row", name="annotator1").first.is_visible()
    page.screenshot(path=str(artifacts / "agreement-page.png"), full_page=True)
