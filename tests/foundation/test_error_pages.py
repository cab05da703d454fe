"""Error pages (cranfield/errors.py): in the site's look, in words, with a way back, never a stack
trace; JSON under /api/; a 503 with Retry-After while the database cannot be reached."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def errors(settings):
    """The site plus addresses that fail on purpose; a client that answers as a browser would see."""
    settings.ROOT_URLCONF = "tests.error_urls"
    return Client(raise_request_exception=False)


def test_a_404_under_a_project_leads_its_owner_and_annotators_back_and_tells_others_nothing(
    client, researcher, annotators, outsider_researcher
):
    project = make_project(researcher, annotators)
    url = f"/projects/{project.pk}/runs/999999/"
    client.force_login(researcher)
    page = client.get(url)
    text = page.content.decode()
    assert page.status_code == 404
    assert "Page not found" in text and 'href="/static/annotation/cranfield.css"' in text
    assert f'<a href="/projects/{project.pk}/">Back to the project “Test project”</a>' in text
    client.force_login(annotators[0])
    assert (
        f'<a href="/projects/{project.pk}/judge/">Back to judging “Test project”</a>'
        in client.get(url).content.decode()
    )
    client.force_login(outsider_researcher)
    stranger = client.get(url).content.decode()
    assert "Test project" not in stranger and 'href="/"' in stranger


def test_a_404_for_anonymous_offers_to_log_in_and_one_under_the_api_is_json(client):
    text = client.get("/no-such-page/").content.decode()
    assert "Page not found" in text and 'href="/accounts/login/?next=/no-such-page/"' in text
    api = client.get("/api/no-such-thing/")
    assert (api.status_code, api["Content-Type"], api.json()) == (
        404,
        "application/json",
        {"detail": "Not found."},
    )


def test_a_403_says_why_and_offers_another_account(client, annotators):
    client.force_login(annotators[0])
    page = client.get(reverse("project-new"))
    text = page.content.decode()
    assert page.status_code == 403
    assert "Only researchers may manage projects." in text
    assert "log in with another account" in text and 'href="/"' in text


def test_a_500_is_a_page_in_words_with_no_stack_trace(errors):
    page = errors.get("/test-errors/500/")
    text = page.content.decode()
    assert page.status_code == 500
    assert "Something went wrong on our side" in text and 'href="/"' in text
    assert "Traceback" not in text and "RuntimeError" not in text and "on purpose" not in text
    api = errors.get("/api/projects/1/test-errors/")  # a 404 of the API: JSON too
    assert api["Content-Type"] == "application/json"


def test_while_the_database_is_down_pages_and_the_api_answer_503_with_retry_after(errors):
    page = errors.get("/test-errors/503/")
    assert (page.status_code, page["Retry-After"]) == (503, "5")
    text = page.content.decode()
    assert "Try again in a moment" in text and "Nothing from this request was stored" in text
    assert 'href="/static/annotation/cranfield.css"' in text and "Log out" not in text  # no session read


def test_the_apis_errors_say_whether_sending_again_can_help(errors):
    down = errors.get("/api/test-errors/503/")
    assert (down.status_code, down["Retry-After"], down.json()["retry"]) == (503, "5", True)
    assert "send it again in a few seconds" in down.json()["detail"]
    # A statement past PostgreSQL's limits fails the same way every time: no Retry-After, no "again".
    too_large = errors.get("/api/test-errors/too-large/")
    assert (too_large.status_code, too_large.json()["retry"]) == (500, False)
    assert not too_large.has_header("Retry-After")
    assert "sending it again will not help" in too_large.json()["detail"]
    assert "statement too large" not in too_large.json()["detail"]  # no internals
    bug = errors.get("/api/test-errors/500/")
    assert (bug.status_code, bug.json()) == (500, {"detail": bug.json()["detail"], "retry": False})
    assert "RuntimeError" not in bug.json()["detail"]


def test_the_503_page_still_says_so_when_the_sites_look_cannot_be_drawn(errors, settings):
    # Production's static files storage with nothing collected: {% static %} fails on every page.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
    }
    settings.STATIC_ROOT = "/nonexistent-static-root"
    page = errors.get("/test-errors/503/")
    assert (page.status_code, page["Retry-After"]) == (503, "5")
    text = page.content.decode()
    assert "Nothing from this request was stored" in text
    assert "cranfield.css" not in text  # the bare page of last resort


def test_a_form_sent_without_its_csrf_token_explains_and_keeps_the_look(researcher):
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    page = client.post(reverse("project-new"), {"name": "x"})
    text = page.content.decode()
    assert page.status_code == 403
    assert "This form could not be sent" in text and "Nothing was saved" in text


def test_a_locked_out_login_is_a_429_page_saying_for_how_long(client, annotators, settings):
    settings.AXES_FAILURE_LIMIT = 2
    for _ in range(3):
        page = client.post(
            reverse("login"), {"username": "annotator1", "password": "wrong"}, REMOTE_ADDR="10.0.0.9"
        )
    text = page.content.decode()
    assert page.status_code == 429
    assert page["Retry-After"] == str(settings.AXES_COOLOFF_TIME.seconds)
    assert "Too many wrong passwords" in text and "try again in 15 minutes" in text
    assert 'href="/accounts/password_reset/"' in text
