"""In real Chromium: a researcher makes an invitation link on the Annotators page, a newcomer opens it,
makes an account through it and judges a task, and a second person finds the single-use link spent."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotation.models import Invitation, Judgement, Membership, Project
from annotation.permissions import RESEARCHERS_GROUP
from evaluation.collection.flow import import_collection
from tests.browser.conftest import keyboard_ready, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "heron-bicycle-47"


def project_without_annotators() -> Project:
    researcher = get_user_model().objects.create_user("res", password="researcher-password")
    researcher.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    project = Project.objects.create(name="Jet noise", owner=researcher, assignments_per_task=1)
    import_collection(
        project,
        topics=[{"id": "1", "title": "jet noise reduction"}],
        documents=[
            {"id": f"d{i}", "text": f"Abstract {i} on jet noise and its reduction."} for i in range(3)
        ],
        items=[{"topic": "1", "document": f"d{i}"} for i in range(3)],
    )
    return project


def test_a_newcomer_signs_up_through_an_invitation_and_judges_a_task(live_server, page, artifacts):
    project = project_without_annotators()
    log_in(page, live_server.url, "res", "researcher-password")
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.get_by_text("no eligible annotator yet").first.wait_for()  # k = 1 and nobody to judge
    page.get_by_role("navigation", name="Project pages").get_by_role("link", name="Annotators").click()
    page.get_by_role("heading", name="Invitation links").wait_for()
    page.get_by_label("How many people may use it").fill("1")
    page.get_by_label("Note").fill("Ana")
    page.get_by_role("button", name="Make an invitation link").click()
    page.get_by_text("it is shown only this once").wait_for()
    link = page.get_by_label("Link for Ana").input_value()
    assert link.startswith(f"{live_server.url}/invite/")
    page.get_by_text("until one person has used it").wait_for()
    page.screenshot(path=str(artifacts / "invitation-link.png"), full_page=True)
    page.get_by_role("link", name="Back to the annotators of Jet noise").click()
    row = page.get_by_role("row", name="Ana")
    assert "0 of 1" in row.inner_text() and "Open" in row.inner_text()
    page.screenshot(path=str(artifacts / "annotators-page.png"), full_page=True)
    page.get_by_role("button", name="Log out").click()

    page.goto(link)
    page.get_by_role("heading", name="Join Jet noise").wait_for()
    page.get_by_label("Username").fill("ana")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Make my account and join").click()
    page.get_by_text("Welcome! You now annotate “Jet noise”.").wait_for()

    page.get_by_role("button", name="Get the next task").click()
    page.get_by_role("heading", name="Topic: jet noise reduction").wait_for()
    keyboard_ready(page)
    page.keyboard.press("r")
    page.keyboard.press("Enter")
    page.get_by_text("You have judged 1 item.").wait_for()
    page.screenshot(path=str(artifacts / "invitation-newcomer-judged.png"), full_page=True)

    ana = get_user_model().objects.get(username="ana")
    assert Membership.objects.get(project=project, annotator=ana).joined_via == "invitation"
    assert list(Judgement.objects.filter(annotator=ana).values_list("label", flat=True)) == [1]
    assert Invitation.objects.get().uses == 1

    # The link was for one person: the next one to open it is told so, and no account is made.
    page.get_by_role("button", name="Log out").click()
    page.goto(link)
    page.get_by_text("This invitation has already been used.").wait_for()
    assert not get_user_model().objects.filter(username="bob").exists()
