"""Crowd platforms' study links: Prolific participants, Mechanical Turk workers (ExternalQuestion) and
any other platform's workers arrive by link, become pseudonymous annotators, judge a session of the
link's size through the one assignment engine, and leave with the completion or screen-out code."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from annotation.judging.platforms import (
    EXTERNAL_QUESTION_SCHEMA,
    MTURK_PREVIEW,
    create_link,
    external_question_xml,
)
from annotation.models import (
    Assignment,
    Judgement,
    Membership,
    PlatformWorker,
    Project,
    StudyLink,
    StudySession,
    Task,
)
from evaluation.collection.flow import import_collection
from tests.annotation.factories import make_gold_project, make_project
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
OTHER_PID = "60aa0bb1cc2dd3ee4ff50617"
STUDY = "6123456789abcdef01234567"
LOCAL_TURK = "http://127.0.0.1:8765"


@pytest.fixture
def project(researcher):
    return make_project(researcher, [], k=1)


def prolific(project, **fields) -> StudyLink:
    fields.setdefault("tasks_per_session", 3)
    return create_link(
        project, None, platform=StudyLink.Platform.PROLIFIC, completion_code="C0MPLETE", **fields
    )


def prolific_url(link: StudyLink, pid: str = PID, session: str = "s1") -> str:
    query = urlencode({"PROLIFIC_PID": pid, "STUDY_ID": STUDY, "SESSION_ID": session})
    return f"{reverse('study', args=[link.slug])}?{query}"


def mturk_url(
    link: StudyLink, assignment: str = "ASSIGN1", worker: str = "A1WORKER2EXAMPLE", host=LOCAL_TURK
) -> str:
    query = urlencode({"assignmentId": assignment, "hitId": "HIT1", "workerId": worker, "turkSubmitTo": host})
    return f"{reverse('study', args=[link.slug])}?{query}"


def judge(client, project: Project) -> object:
    """Claim a task and answer it, as the judging page's buttons do; the submission's response."""
    client.post(reverse("claim", args=[project.pk]))
    lease = Assignment.objects.filter(
        status=Assignment.Status.ACTIVE, annotator__username__startswith=("p")
    ).first()
    lease = lease or Assignment.objects.filter(status=Assignment.Status.ACTIVE).latest("pk")
    return client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "1"})


def test_a_prolific_participant_arrives_judges_a_session_and_leaves_with_the_completion_code(client, project):
    link = prolific(project)
    url = prolific_url(link)
    welcome = client.get(url)
    assert welcome.status_code == 200 and b"a session is 3 items" in welcome.content
    assert not PlatformWorker.objects.exists()  # a GET makes nothing
    started = client.post(url)
    assert started.status_code == 302 and started["Location"] == reverse("judge", args=[project.pk])
    worker = PlatformWorker.objects.get()
    user = worker.annotator
    # A pseudonym, no password, no email, no rights; the platform id is kept apart, on the worker.
    assert worker.platform_id == PID and PID not in user.username and user.username.startswith("prolific-")
    assert not user.has_usable_password() and user.email == "" and not (user.is_staff or user.groups.exists())
    assert (
        Membership.objects.get(project=project, annotator=user).joined_via == Membership.JoinedVia.STUDY_LINK
    )
    session = StudySession.objects.get()
    assert (session.platform_session, session.platform_study, session.tasks) == ("s1", STUDY, 3)
    for _ in range(2):
        assert judge(client, project)["Location"] == reverse("judge", args=[project.pk])
    third = judge(client, project)
    # The third judgement fills the session: no fourth lease, and the page sends them to their code.
    assert Judgement.objects.filter(annotator=user).count() == 3
    assert not Assignment.objects.filter(annotator=user, status=Assignment.Status.ACTIVE).exists()
    assert third["Location"] == reverse("judge", args=[project.pk])
    page = client.get(third["Location"])
    assert page.status_code == 302 and page["Location"] == reverse("study-done", args=[link.slug])
    done = client.get(page["Location"])
    text = done.content.decode()
    assert done.status_code == 200 and "C0MPLETE" in text
    assert 'href="https://app.prolific.com/submissions/complete?cc=C0MPLETE"' in text
    assert re.search(r'<a class="button" id="study-return" href="[^"]+" autofocus>Go back to Prolific', text)
    assert "http-equiv" not in text  # no timed redirect: the worker goes back with one key
    session.refresh_from_db()
    assert session.outcome == StudySession.Outcome.COMPLETED and session.finished_at is not None
    # Claiming again is refused: the session is over.
    client.post(reverse("claim", args=[project.pk]))
    assert Judgement.objects.filter(annotator=user).count() == 3
    assert not Assignment.objects.filter(annotator=user, status=Assignment.Status.ACTIVE).exists()


def test_the_same_participant_id_is_the_same_annotator_and_continues_where_they_left_off(client, project):
    from django.test import Client

    link = prolific(project)
    client.post(prolific_url(link))
    client.post(reverse("claim", args=[project.pk]))
    lease = Assignment.objects.get(status=Assignment.Status.ACTIVE)
    # Another browser (or a second tab after the cookie was lost) with the same PID and session.
    other = Client()
    assert other.post(prolific_url(link))["Location"] == reverse("judge", args=[project.pk])
    assert PlatformWorker.objects.count() == 1 and StudySession.objects.count() == 1
    page = other.get(reverse("judge", args=[project.pk])).content.decode()
    assert f"/assignments/{lease.pk}/submit/" in page  # the task they had in hand


def test_a_completed_participant_coming_back_for_more_is_refused_and_nothing_is_leased(client, project):
    link = prolific(project, tasks_per_session=1)
    client.post(prolific_url(link))
    judge(client, project)
    client.get(reverse("study-done", args=[link.slug]))
    again = client.post(prolific_url(link, session="s2"))
    assert again.status_code == 409 and b"already taken part in this study" in again.content
    assert StudySession.objects.count() == 1
    # The same session's link still shows their code.
    assert client.post(prolific_url(link))["Location"] == reverse("study-done", args=[link.slug])


def test_a_worker_may_take_as_many_sessions_as_the_link_allows(client, project):
    link = prolific(project, tasks_per_session=1, sessions_per_worker=2)
    client.post(prolific_url(link, session="s1"))
    judge(client, project)
    client.post(prolific_url(link, session="s2"))
    first, second = StudySession.objects.order_by("pk")
    assert first.outcome == StudySession.Outcome.COMPLETED and second.outcome == StudySession.Outcome.OPEN
    assert second.judgements_before == 1
    judge(client, project)
    assert client.get(reverse("judge", args=[project.pk]))["Location"] == reverse(
        "study-done", args=[link.slug]
    )
    assert client.post(prolific_url(link, session="s3")).status_code == 409


def test_starts_of_sessions_are_throttled_per_address(client, project, settings):
    """A script cannot make pseudonymous accounts by the thousand through an open link: each address
    may start STUDY_ARRIVALS_PER_ADDRESS sessions per window; others' addresses are not affected."""
    settings.STUDY_ARRIVALS_PER_ADDRESS = 2
    link = prolific(project)
    pids = [f"{i:024x}" for i in range(4)]
    answers = [client.post(prolific_url(link, pid), REMOTE_ADDR="10.0.0.8").status_code for pid in pids[:3]]
    assert answers == [302, 302, 429]
    assert PlatformWorker.objects.count() == 2  # the refused start made nothing
    refused = client.post(prolific_url(link, pids[2]), REMOTE_ADDR="10.0.0.8")
    assert refused.status_code == 429 and refused["Retry-After"] == str(settings.SIGNUP_THROTTLE_MINUTES * 60)
    assert client.get(prolific_url(link, pids[3]), REMOTE_ADDR="10.0.0.8").status_code == 200  # reading: free
    assert client.post(prolific_url(link, pids[3]), REMOTE_ADDR="10.0.0.9").status_code == 302


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"STUDY_ID": STUDY, "SESSION_ID": "s1"}, "PROLIFIC_PID"),
        ({"PROLIFIC_PID": "not-an-id", "STUDY_ID": STUDY, "SESSION_ID": "s1"}, "PROLIFIC_PID"),
        ({"PROLIFIC_PID": PID * 3, "STUDY_ID": STUDY, "SESSION_ID": "s1"}, "PROLIFIC_PID"),
        ({"PROLIFIC_PID": PID, "STUDY_ID": STUDY, "SESSION_ID": "x" * 65}, "SESSION_ID"),
        ({"PROLIFIC_PID": PID, "SESSION_ID": "s1"}, "STUDY_ID"),
        ({"PROLIFIC_PID": PID, "STUDY_ID": "<script>", "SESSION_ID": "s1"}, "STUDY_ID"),
    ],
)
def test_a_link_without_its_parameters_or_with_forged_ones_gets_a_clear_page_and_makes_nothing(
    client, project, query, named
):
    link = prolific(project)
    for method in (client.get, client.post):
        response = method(f"{reverse('study', args=[link.slug])}?{urlencode(query)}")
        assert response.status_code == 400 and f"“{named}”".encode() in response.content
    assert (
        not PlatformWorker.objects.exists()
        and not get_user_model().objects.filter(username__startswith="prolific").exists()
    )


def test_an_unknown_or_closed_link_or_a_closed_project_is_refused(client, project):
    assert client.get(reverse("study", args=["nope"])).status_code == 404
    link = prolific(project)
    StudyLink.objects.filter(pk=link.pk).update(active=False)
    closed = client.post(prolific_url(link))
    assert closed.status_code == 410 and b"closed by the researcher" in closed.content
    StudyLink.objects.filter(pk=link.pk).update(active=True)
    Project.objects.filter(pk=project.pk).update(active=False)
    assert client.post(prolific_url(link)).status_code == 410
    assert not PlatformWorker.objects.exists()


def test_mturk_preview_shows_a_sample_task_and_leases_nothing(client, project):
    link = create_link(project, None, platform=StudyLink.Platform.MTURK, tasks_per_session=2)
    preview = client.get(f"{reverse('study', args=[link.slug])}?assignmentId={MTURK_PREVIEW}&hitId=HIT1")
    text = preview.content.decode()
    assert preview.status_code == 200 and "preview" in text and "<fieldset disabled" in text
    sample = Task.objects.filter(project=project, kind=Task.Kind.ITEM).first()
    assert sample.document.text in text
    assert not Assignment.objects.exists() and not PlatformWorker.objects.exists()
    # MTurk shows it in a frame: framable by MTurk's hosts only.
    assert "X-Frame-Options" not in preview
    assert "frame-ancestors https://worker.mturk.com" in preview["Content-Security-Policy"]


def test_mturk_worker_accepts_judges_and_submits_the_form_mturk_expects(client, project, settings):
    settings.MTURK_SUBMIT_HOSTS = [LOCAL_TURK]
    link = create_link(project, None, platform=StudyLink.Platform.MTURK, tasks_per_session=2)
    assert client.post(mturk_url(link))["Location"] == reverse("judge", args=[project.pk])
    session = StudySession.objects.get()
    assert (session.platform_session, session.platform_study, session.submit_to) == (
        "ASSIGN1",
        "HIT1",
        LOCAL_TURK,
    )
    judge(client, project)
    judge(client, project)
    done = client.get(reverse("study-done", args=[link.slug]))
    text = done.content.decode()
    assert f'action="{LOCAL_TURK}/mturk/externalSubmit"' in text
    assert '<input type="hidden" name="assignmentId" value="ASSIGN1">' in text
    assert f'name="completion_code" value="{link.completion_code}"' in text
    assert f"form-action 'self' {LOCAL_TURK}" in done["Content-Security-Policy"]


def test_a_turk_submit_to_that_is_not_an_mturk_host_is_refused(client, project):
    link = create_link(project, None, platform=StudyLink.Platform.MTURK, tasks_per_session=2)
    refused = client.post(mturk_url(link, host="https://evil.example.org"))
    assert (
        refused.status_code == 400
        and "“turkSubmitTo” is not a Mechanical Turk address" in refused.content.decode()
    )
    assert not PlatformWorker.objects.exists()
    allowed = client.post(mturk_url(link, host="https://workersandbox.mturk.com/"))
    assert (
        allowed.status_code == 302
        and StudySession.objects.get().submit_to == "https://workersandbox.mturk.com"
    )


def test_another_platform_returns_its_workers_to_its_own_address_with_the_code(client, project):
    link = create_link(
        project,
        None,
        platform=StudyLink.Platform.OTHER,
        tasks_per_session=1,
        completion_code="DONE-1",
        return_url="https://panel.example.org/back?code={code}&study=7",
    )
    client.post(f"{reverse('study', args=[link.slug])}?worker=w-17&session=a")
    judge(client, project)
    done = client.get(reverse("study-done", args=[link.slug])).content.decode()
    assert 'href="https://panel.example.org/back?code=DONE-1&amp;study=7"' in done


def test_a_session_of_minutes_ends_when_its_time_is_up_but_keeps_the_answer_in_hand(client, project):
    link = prolific(project, tasks_per_session=None, minutes_per_session=20)
    client.post(prolific_url(link))
    session = StudySession.objects.get()
    assert session.tasks is None and session.ends_at is not None
    client.post(reverse("claim", args=[project.pk]))
    lease = Assignment.objects.get(status=Assignment.Status.ACTIVE)
    StudySession.objects.filter(pk=session.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "1"})
    assert Judgement.objects.filter(assignment=lease).exists()  # the answer written in time is kept
    assert not Assignment.objects.filter(status=Assignment.Status.ACTIVE).exists()
    assert client.get(reverse("judge", args=[project.pk]))["Location"] == reverse(
        "study-done", args=[link.slug]
    )


def test_the_judging_page_shows_the_sessions_progress_and_the_time_it_has_left(client, project):
    sized = prolific(project, tasks_per_session=3)
    client.post(prolific_url(sized))
    judge(client, project)
    page = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert "This session: 1 of 3 items." in page and "session-left" not in page
    client.logout()
    timed = prolific(project, tasks_per_session=None, minutes_per_session=20)
    client.post(prolific_url(timed, OTHER_PID))
    page = client.get(reverse("judge", args=[project.pk])).content.decode()
    shown = r'This session: 0 items; time left <span id="session-left" [^>]*data-seconds="(\d+)">(\d+):\d\d<'
    left = re.search(shown, page)
    assert left and 1190 <= int(left.group(1)) <= 1200 and left.group(2) in {"19", "20"}


def test_a_worker_who_fails_the_qualification_gets_the_screen_out_code_at_once(client, researcher):
    project = Project.objects.create(
        name="Qualified", owner=researcher, assignments_per_task=1, qualification_attempts_allowed=1
    )
    import_collection(
        project,
        topics=[{"id": "1", "title": "t"}],
        documents=[{"id": "q1", "text": "a question"}, {"id": "d1", "text": "an item"}],
        items=[{"topic": "1", "document": "d1"}],
        qualification=[{"topic": "1", "document": "q1", "answer": {"label": 1}}],
    )
    link = prolific(project, screenout_code="SCREENED")
    client.post(prolific_url(link))
    question = Task.objects.get(kind=Task.Kind.QUALIFICATION)
    failed = client.post(reverse("qualification", args=[project.pk]), {f"q{question.pk}-label": "0"})
    assert client.get(failed["Location"])["Location"] == reverse("study-done", args=[link.slug])
    done = client.get(reverse("study-done", args=[link.slug])).content.decode()
    assert "SCREENED" in done and "C0MPLETE" not in done
    assert "https://app.prolific.com/submissions/complete?cc=SCREENED" in done
    assert StudySession.objects.get().outcome == StudySession.Outcome.SCREENED_OUT
    assert not Judgement.objects.exists()


def test_a_worker_past_the_links_limit_on_failed_gold_items_is_screened_out(client, researcher):
    project = make_gold_project(researcher, items=10, gold=5, k=1, gold_rate=1.0)
    link = prolific(project, tasks_per_session=8, gold_failures_allowed=1, screenout_code="OUT")
    client.post(prolific_url(link))
    for _ in range(2):
        client.post(reverse("claim", args=[project.pk]))
        lease = Assignment.objects.get(status=Assignment.Status.ACTIVE)
        assert lease.task.kind == Task.Kind.GOLD
        wrong = 1 - lease.task.gold_answer["label"]
        client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": str(wrong)})
    assert not Assignment.objects.filter(status=Assignment.Status.ACTIVE).exists()
    assert client.get(reverse("judge", args=[project.pk]))["Location"] == reverse(
        "study-done", args=[link.slug]
    )
    assert StudySession.objects.get().outcome == StudySession.Outcome.SCREENED_OUT


def test_in_a_rating_project_failed_attention_checks_count_towards_the_screen_out(
    client, researcher, annotators
):
    from annotation.judging.assignment import claim_next_task, submit_judgement
    from tests.annotation.factories import make_likert_project

    project = make_likert_project(researcher, annotators[:1], items=6, k=2, attention_rate=1.0)
    # Someone rated every original low, so a spoiled copy rated 5 is not rated lower: a failed check.
    while (lease := claim_next_task(project, annotators[0])) is not None:
        submit_judgement(lease.pk, annotators[0], {"scores": {"quality": 1, "coherence": 1}})
    link = prolific(project, tasks_per_session=5, gold_failures_allowed=0, screenout_code="OUT")
    client.post(prolific_url(link))
    client.post(reverse("claim", args=[project.pk]))
    lease = Assignment.objects.get(status=Assignment.Status.ACTIVE)
    assert lease.task.kind == Task.Kind.DEGRADED  # every claim serves a check while one is left
    spoiled_rated_high = {"scores.quality": "5", "scores.coherence": "5"}
    client.post(reverse("submit", args=[project.pk, lease.pk]), spoiled_rated_high)
    # No next task: the failed check is past the link's limit, so the worker goes to the screen-out code.
    assert not Assignment.objects.filter(status=Assignment.Status.ACTIVE).exists()
    assert client.get(reverse("judge", args=[project.pk]))["Location"] == reverse(
        "study-done", args=[link.slug]
    )
    assert StudySession.objects.get().outcome == StudySession.Outcome.SCREENED_OUT
    assert "OUT" in client.get(reverse("study-done", args=[link.slug])).content.decode()


def test_the_done_page_is_only_for_the_links_own_workers(client, project, annotators):
    link = prolific(project)
    assert client.get(reverse("study-done", args=[link.slug])).status_code == 302  # to the login
    client.force_login(annotators[0])
    assert client.get(reverse("study-done", args=[link.slug])).status_code == 404


def test_nothing_left_to_judge_completes_a_session_that_judged_something(client, researcher):
    project = make_project(researcher, [], k=1, pool_depth=1)
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM).count()
    link = prolific(project, tasks_per_session=items + 5)
    client.post(prolific_url(link))
    for _ in range(items):
        judge(client, project)
    assert client.get(reverse("judge", args=[project.pk]))["Location"] == reverse(
        "study-done", args=[link.slug]
    )


# -- the researcher's side -------------------------------------------------------------------------------


def test_the_researcher_makes_lists_and_closes_links_on_the_annotators_page(client, researcher, project):
    client.force_login(researcher)
    made = client.post(
        reverse("study-link-new", args=[project.pk]),
        {"platform": "prolific", "tasks_per_session": "12", "sessions_per_worker": "1", "note": "pilot"},
    )
    assert made.status_code == 302
    link = StudyLink.objects.get()
    assert link.completion_code and link.tasks_per_session == 12
    page = client.get(reverse("project-annotators", args=[project.pk])).content.decode()
    assert f"/study/{link.slug}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&amp;STUDY_ID=" in page
    assert link.completion_code in page
    client.post(reverse("study-link-close", args=[project.pk, link.pk]), {"action": "close"})
    assert not StudyLink.objects.get().active
    refused = client.post(
        reverse("study-link-new", args=[project.pk]),
        {"platform": "other", "sessions_per_worker": "1", "return_url": "ftp://x"},
    )
    text = refused.content.decode()
    assert refused.status_code == 200 and "give a session a number of tasks" in text
    assert "write an http(s) address" in text and StudyLink.objects.count() == 1


def test_the_api_makes_and_lists_links_and_names_the_field_of_bad_input(
    researcher, outsider_researcher, project
):
    url = reverse("study-links-api", args=[project.pk])
    made = api(researcher).post(url, {"platform": "mturk", "tasks_per_session": 5}, format="json")
    assert made.status_code == 201
    body = made.json()
    assert body["url"].endswith(f"/study/{body['url'].split('/study/')[1].split('/')[0]}/")
    assert f"<ExternalURL>{body['url']}</ExternalURL>" in body["external_question"]
    assert body["hit_settings"]["Question"] == body["external_question"]
    assert api(researcher).get(url).json()["results"][0]["id"] == body["id"]
    bad = api(researcher).post(
        url, {"platform": "mturk", "tasks_per_session": 0, "colour": "red"}, format="json"
    )
    assert bad.status_code == 400 and bad.json() == {"colour": ["not a field of a study link"]}
    bad = api(researcher).post(url, {"platform": "prolific", "completion_code": "a b"}, format="json")
    assert bad.status_code == 400 and set(bad.json()) == {"completion_code", "tasks_per_session"}
    closed = api(researcher).patch(
        reverse("study-link-api", args=[project.pk, body["id"]]), {"active": False}, format="json"
    )
    assert closed.status_code == 200 and closed.json()["active"] is False
    assert api(outsider_researcher).get(url).status_code == 404


def test_the_external_question_xml_names_the_link_and_is_valid_xml(client, researcher, project):
    from xml.etree import ElementTree

    link = create_link(project, None, platform=StudyLink.Platform.MTURK, tasks_per_session=5)
    client.force_login(researcher)
    response = client.get(reverse("study-link-external-question", args=[project.pk, link.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("application/xml")
    root = ElementTree.fromstring(response.content)
    assert root.tag == f"{{{EXTERNAL_QUESTION_SCHEMA}}}ExternalQuestion"
    assert root.find(f"{{{EXTERNAL_QUESTION_SCHEMA}}}ExternalURL").text.endswith(f"/study/{link.slug}/")
    assert "&amp;" in external_question_xml("https://x.org/s/?a=1&b=2")


def test_a_link_worker_reaches_nothing_of_the_researchers_pages_nor_of_other_projects(
    client, researcher, project
):
    """Every researcher URL of the URLconf, and another project's judging page, refuse a link worker."""
    from tests.foundation.test_access_matrix import ANNOTATOR_PAGES, LINK_WORKER_PAGES, PROJECT_URL, routes

    other = make_project(researcher, [], k=1)
    link = prolific(project)
    client.post(prolific_url(link))
    assert client.get(reverse("judge", args=[project.pk])).status_code == 200
    checked = 0
    for route, _name in routes():
        if not PROJECT_URL.match(route) or ANNOTATOR_PAGES.match(route) or route in LINK_WORKER_PAGES:
            continue
        url = "/" + re.sub(r"<(\w+)>", lambda m: str(project.pk) if "project" in m.group(1) else "1", route)
        answer = client.get(url)
        assert answer.status_code in {302, 401, 403, 404, 405}, f"{url}: {answer.status_code}"
        if answer.status_code == 302:
            assert "/accounts/login/" in answer["Location"] or "/judge/" in answer["Location"], url
        checked += 1
    assert checked > 100
    for page in ("judge", "history", "consent"):
        assert client.get(reverse(page, args=[other.pk])).status_code == 404
