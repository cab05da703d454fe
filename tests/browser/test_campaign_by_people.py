"""A whole campaign by people, in real Chromium, through the pages alone: a researcher makes an
invitation link; two newcomers sign up through it and judge every item; the items they disagree on go
to a third person, who signs up and judges them; the researcher settles one of those by hand; and the
ground truth shows both kinds of adjudication (screenshots kept in test-artifacts/campaign-*.png)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotation.models import AdjudicatedBy, Project
from annotation.permissions import RESEARCHERS_GROUP
from evaluation.collection.flow import import_collection
from evaluation.jobs import embedded
from evaluation.models import GroundTruthSnapshot
from tests.browser.conftest import keyboard_ready, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TITLES = {"d1": "Flutter of swept wings", "d2": "Buffeting of tail planes", "d3": "Panel flutter at Mach 2"}
# What each person answers, by the document's title: r relevant, n not relevant. Ana and Ben agree
# only on d3; Cleo, the third, is sent d1 and d2 alone.
ANSWERS = {
    "ana": {"d1": "r", "d2": "r", "d3": "r"},
    "ben": {"d1": "n", "d2": "n", "d3": "r"},
    "cleo": {"d1": "r", "d2": "n"},
}
PASSWORD = "kestrel-lantern-93"


@pytest.fixture
def campaign() -> Project:
    researcher = get_user_model().objects.create_user("res", password="researcher-password")
    researcher.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    project = Project.objects.create(
        name="Wing flutter",
        owner=researcher,
        assignments_per_task=2,
        adjudication_rule=Project.AdjudicationRule.NOT_UNANIMOUS,
        adjudicated_by=AdjudicatedBy.EXTRA_ASSESSOR,
    )
    import_collection(
        project,
        topics=[{"id": "1", "title": "flutter of aircraft structures"}],
        documents=[{"id": d, "title": t, "text": f"An abstract: {t.lower()}."} for d, t in TITLES.items()],
        items=[{"topic": "1", "document": d} for d in TITLES],
    )
    return project


def join_and_judge(page, base: str, link: str, username: str, artifacts) -> int:
    """Sign up through the link and judge until nothing is left; returns how many were judged."""
    page.goto(link)
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Make my account and join").click()
    page.get_by_text("Welcome! You now annotate “Wing flutter”.").wait_for()
    page.get_by_role("button", name="Get the next task").click()
    judged = 0
    by_title = {title: document for document, title in TITLES.items()}
    while True:
        page.locator("#judgement-form, p.notice").first.wait_for()
        if not page.locator("#judgement-form").count():
            break
        keyboard_ready(page)
        document = by_title[page.locator("article.document h3").inner_text().strip()]
        page.keyboard.press(ANSWERS[username][document])
        page.keyboard.press("Enter")
        judged += 1
        page.get_by_text(f"You have judged {judged} item").wait_for()
    page.get_by_text("There is nothing left for you to judge in this project.").wait_for()
    page.screenshot(path=str(artifacts / f"campaign-{username}-done.png"), full_page=True)
    page.get_by_role("button", name="Log out").click()
    return judged


def test_a_campaign_by_people_invitation_to_adjudicated_ground_truth(live_server, page, artifacts, campaign):
    base = live_server.url
    log_in(page, base, "res", "researcher-password")
    page.goto(f"{base}/projects/{campaign.pk}/annotators/")
    page.get_by_label("How many people may use it").fill("3")
    page.get_by_label("Note").fill("the flutter team")
    page.get_by_role("button", name="Make an invitation link").click()
    link = page.get_by_label("Link for the flutter team").input_value()
    page.screenshot(path=str(artifacts / "campaign-invitation.png"), full_page=True)
    page.get_by_role("button", name="Log out").click()

    # Two people judge every item; they disagree on d1 and d2, which go to one more assessor.
    assert join_and_judge(page, base, link, "ana", artifacts) == 3
    assert join_and_judge(page, base, link, "ben", artifacts) == 3
    referred = dict(campaign.tasks.values_list("document__external_id", "referred_to"))
    assert referred == {"d1": "extra_assessor", "d2": "extra_assessor", "d3": ""}
    assert join_and_judge(page, base, link, "cleo", artifacts) == 2

    # The researcher settles d2 by hand (Cleo sided with Ben; the researcher reads it otherwise).
    log_in(page, base, "res", "researcher-password")
    page.goto(f"{base}/projects/{campaign.pk}/items/")
    page.get_by_label("Annotators disagree").select_option("true")
    page.get_by_role("button", name="Filter").click()
    page.get_by_text("2 items match").wait_for()
    page.screenshot(path=str(artifacts / "campaign-disagreements.png"), full_page=True)
    page.get_by_role("table").get_by_role("link", name="d2").click()
    page.get_by_role("heading", name="Judgements").wait_for()
    assert page.locator("#judgements tbody tr").count() == 3
    page.get_by_role("radio", name="Relevant", exact=True).check()
    page.get_by_label("Note (optional: why)").fill("The second half is about tail flutter.")
    page.get_by_role("button", name="Settle").click()
    page.get_by_role("status").get_by_text("Settled as “relevant”").wait_for()

    embedded.run_queued()  # the debounced ground-truth job the judgements and the decision asked for
    snapshot = GroundTruthSnapshot.objects.filter(project=campaign).order_by("-version").first()
    rows = {row.task.document.external_id: row for row in snapshot.labels.select_related("task__document")}
    assert (rows["d1"].label, rows["d1"].adjudicated_by) == (1, AdjudicatedBy.EXTRA_ASSESSOR)
    assert rows["d1"].adjudication["assessor"] == "cleo" and rows["d1"].judgement_count == 3
    assert (rows["d2"].label, rows["d2"].adjudicated_by) == (1, AdjudicatedBy.RESEARCHER)
    assert rows["d2"].aggregate_label == 0 and rows["d2"].adjudication["researcher"] == "res"
    assert (rows["d3"].label, rows["d3"].adjudicated_by) == (1, "")

    page.goto(f"{base}/projects/{campaign.pk}/ground-truth/")
    snapshots = page.get_by_role("region", name="Table: Snapshots")
    newest = snapshots.get_by_role("row").filter(
        has=page.get_by_role("rowheader", name=str(snapshot.version))
    )
    assert "1 by an extra assessor, 1 by a researcher" in newest.inner_text()
    page.screenshot(path=str(artifacts / "campaign-ground-truth.png"), full_page=True)
    page.goto(f"{base}/projects/{campaign.pk}/items/?adjudicated=true")
    page.get_by_text("2 items match").wait_for()
