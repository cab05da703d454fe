"""In real Chromium, with the keyboard alone wherever the worker acts: crowd workers arriving by
study links (annotation.judging.platforms). A Prolific participant passes the qualification test,
judges a session of three items and gets the completion code and the way back to Prolific (on a
desktop and on a phone-sized screen); a participant who fails the one allowed qualification attempt
gets the screen-out code at once; an MTurk worker previews the HIT (nothing leased), accepts it,
judges two items and submits the form MTurk expects, which reaches a local stand-in for MTurk's
``/mturk/externalSubmit``, also from inside a frame of a stand-in for MTurk's worker site (the work
then opens in a tab of its own); a finished participant goes back to Prolific with the code after a
countdown they can stop. Nothing here goes to the network: Prolific is a stand-in of the test's."""

from __future__ import annotations

import html
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode

import pytest
from django.contrib.auth import get_user_model

from annotation.judging.platforms import MTURK_PREVIEW, create_link
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
from tests.browser.conftest import keyboard_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
STUDY_ID = "6123456789abcdef01234567"
TOPIC = "jet noise reduction"
MTURK_ASSIGNMENT = "3AMYWKA6YBLU92KSOGLNT786ESPO6D"
MTURK_HIT = "3SBEHTYCWN2MW0JVW43AS1WDS6OIY5"
MTURK_WORKER = "A1B2C3D4E5F6G7"


# -- the study ----------------------------------------------------------------------------------------


def study_project(*, items: int, qualification: bool = False, attempts: int = 2) -> Project:
    """Binary relevance, k = 1, ``items`` items; with ``qualification``, one question (answer:
    relevant) that must be answered right, and ``attempts`` attempts at it."""
    owner = get_user_model().objects.create_user("res", password="researcher-password")
    project = Project.objects.create(
        name="Jet noise",
        owner=owner,
        assignments_per_task=1,
        instructions="Mark a document **relevant** if it helps answer the question.",
        qualification_pass_rate=1.0,
        qualification_attempts_allowed=attempts,
    )
    documents = [
        {"id": f"d{i}", "text": f"Abstract {i} on jet noise and its reduction."} for i in range(items)
    ]
    import_collection(
        project,
        topics=[{"id": "1", "title": TOPIC}],
        documents=[*documents, {"id": "q1", "text": "A study of jet noise reduction by chevrons."}],
        items=[{"topic": "1", "document": f"d{i}"} for i in range(items)],
        qualification=[{"topic": "1", "document": "q1", "answer": {"label": 1}}] if qualification else [],
    )
    return project


def prolific_url(base: str, link: StudyLink, pid: str = PID, session: str = "s1") -> str:
    query = urlencode({"PROLIFIC_PID": pid, "STUDY_ID": STUDY_ID, "SESSION_ID": session})
    return f"{base}/study/{link.slug}/?{query}"


# -- the browser ----------------------------------------------------------------------------------------


@contextmanager
def worker_page(browser, viewport: dict[str, int]) -> Iterator:
    """A fresh page at ``viewport`` (phone-like below 600 px: mobile, touch); fails if the site's
    Content-Security-Policy blocked anything on the way (as tests/browser/conftest.py's ``page``)."""
    phone = viewport["width"] < 600
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.set_default_timeout(15_000)
    blocked: list[str] = []
    page.on(
        "console",
        lambda message: blocked.append(message.text) if "Content Security Policy" in message.text else None,
    )
    try:
        yield page
    finally:
        context.close()
    assert not blocked, f"the Content-Security-Policy blocked: {blocked}"


FOCUSED = "selector => { const el = document.activeElement; return !!el && el.matches(selector); }"


def has_focus(page, selector: str) -> bool:
    return page.evaluate(FOCUSED, selector)


def tab_to(page, selector: str, limit: int = 60) -> None:
    """Press Tab until the element ``selector`` has the focus (at once if it has it already, as a
    page's autofocused control does)."""
    for _ in range(limit):
        if has_focus(page, selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}")


def press_on(page, selector: str, key: str = "Enter") -> None:
    tab_to(page, selector)
    page.keyboard.press(key)


def answer_by_keyboard(page, name: str, value: str) -> None:
    """Tab into the radio group ``name`` and choose ``value`` with the arrow keys and Space."""
    tab_to(page, f'input[type="radio"][name="{name}"]')
    for _ in range(5):
        if has_focus(page, f'input[value="{value}"]'):
            break
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Space")
    assert page.locator(f'input[name="{name}"][value="{value}"]').is_checked()


def take_qualification_test(page, project: Project, answer: str) -> None:
    """From the judging page, by keyboard: open the test, answer its one question, send it."""
    page.get_by_role("link", name="Take the qualification test").wait_for()
    press_on(page, 'main a[href$="/qualification/"]')
    page.get_by_role("heading", name="Qualification test: Jet noise").wait_for()
    question = Task.objects.get(project=project, kind=Task.Kind.QUALIFICATION)
    answer_by_keyboard(page, f"q{question.pk}-label", answer)
    press_on(page, '#qualification-form button[type="submit"]')


def start_session(page, url: str, welcome: str) -> None:
    """Open the study link, read the welcome, and press Start (the focused button) with Enter."""
    page.goto(url)
    page.get_by_role("heading", name="Jet noise", exact=True).wait_for()
    page.get_by_text(welcome).wait_for()
    assert has_focus(page, 'main form[method="post"] button[type="submit"]')  # autofocused: one key
    press_on(page, 'main form[method="post"] button[type="submit"]')


def judge_by_keyboard(page, keys: str) -> None:
    """From the judging page without a task: Enter on "Get the next task", then one judgement per
    key (its answer key, then Enter). The last one ends the session: judge.js follows the server's
    redirect to the done page."""
    page.get_by_role("button", name="Get the next task").wait_for()
    keyboard_ready(page)
    press_on(page, '#claim-form button[type="submit"]')
    for judged, key in enumerate(keys, start=1):
        page.get_by_role("heading", name=f"Topic: {TOPIC}").wait_for()
        keyboard_ready(page)
        page.keyboard.press(key)
        page.keyboard.press("Enter")
        if judged < len(keys):
            page.get_by_text(f"You have judged {judged} item").wait_for()
    page.locator("#study-code").wait_for()


def fits_the_screen(page, viewport: dict[str, int]) -> None:
    """Nothing is wider than the screen, so nothing needs sideways scrolling."""
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


# -- Prolific -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_a_prolific_participant_qualifies_judges_a_session_and_gets_the_completion_code(
    live_server, browser, artifacts, viewport, settings
):
    settings.STUDY_RETURN_SECONDS = 600  # the page is read here; the going back is tested below
    project = study_project(items=4, qualification=True)
    link = create_link(
        project,
        None,
        platform=StudyLink.Platform.PROLIFIC,
        tasks_per_session=3,
        completion_code="C0MPLETE",
        screenout_code="SCREENED",
    )
    size = f"{viewport['width']}x{viewport['height']}"
    with worker_page(browser, viewport) as page:
        start_session(page, prolific_url(live_server.url, link), "a session is 3 items")
        page.wait_for_url(f"**/projects/{project.pk}/judge/")
        fits_the_screen(page, viewport)
        take_qualification_test(page, project, answer="1")
        page.get_by_text("You passed (1 of 1 right)").wait_for()
        judge_by_keyboard(page, "rnr")

        assert page.url == f"{live_server.url}/study/{link.slug}/done/"
        page.get_by_role("heading", name="You have finished").wait_for()
        assert page.locator("#study-code").inner_text() == "C0MPLETE"
        back = page.locator("#study-return")
        assert back.get_attribute("href") == "https://app.prolific.com/submissions/complete?cc=C0MPLETE"
        assert has_focus(page, "#study-return")  # one Enter takes them back to Prolific (not pressed)
        page.locator("#study-countdown").wait_for()  # … and so does the countdown (study.js shows it)
        fits_the_screen(page, viewport)
        page.screenshot(path=str(artifacts / f"study-prolific-done-{size}.png"), full_page=True)

    worker = PlatformWorker.objects.get()
    assert (worker.project_id, worker.platform, worker.platform_id) == (project.pk, "prolific", PID)
    judgements = Judgement.objects.filter(project=project)
    assert judgements.count() == 3 and set(judgements.values_list("annotator", flat=True)) == {
        worker.annotator_id
    }
    assert sorted(judgements.values_list("label", flat=True)) == [0, 1, 1]
    session = StudySession.objects.get()
    assert (session.worker_id, session.platform_session, session.platform_study) == (
        worker.pk,
        "s1",
        STUDY_ID,
    )
    assert session.outcome == StudySession.Outcome.COMPLETED and session.finished_at is not None
    membership = Membership.objects.get(project=project, annotator=worker.annotator)
    assert membership.joined_via == Membership.JoinedVia.STUDY_LINK and membership.qualified_at is not None
    # The session's size was its limit, not the items: one item is still open, and nothing is held.
    assert Task.objects.filter(project=project, kind=Task.Kind.ITEM, slots_taken=0).count() == 1
    assert not Assignment.objects.filter(status=Assignment.Status.ACTIVE).exists()


def test_a_participant_who_fails_the_qualification_gets_the_screen_out_code_at_once(
    live_server, browser, artifacts, settings
):
    settings.STUDY_RETURN_SECONDS = 600
    project = study_project(items=3, qualification=True, attempts=1)
    link = create_link(
        project,
        None,
        platform=StudyLink.Platform.PROLIFIC,
        tasks_per_session=3,
        completion_code="C0MPLETE",
        screenout_code="SCREENED",
    )
    with worker_page(browser, PHONE) as page:
        start_session(page, prolific_url(live_server.url, link), "a session is 3 items")
        take_qualification_test(page, project, answer="0")  # the wrong answer, on the one attempt

        page.wait_for_url(f"{live_server.url}/study/{link.slug}/done/")
        page.get_by_role("heading", name="Thank you").wait_for()
        page.get_by_text("You cannot go on in this study").wait_for()
        assert page.locator("#study-code").inner_text() == "SCREENED"
        assert "C0MPLETE" not in page.content()
        assert (
            page.locator("#study-return").get_attribute("href")
            == "https://app.prolific.com/submissions/complete?cc=SCREENED"
        )
        assert has_focus(page, "#study-return")
        fits_the_screen(page, PHONE)
        page.screenshot(path=str(artifacts / "study-prolific-screened-out-390x844.png"), full_page=True)

        # Opening the link again shows the same end: no second attempt, no task.
        page.goto(prolific_url(live_server.url, link))
        press_on(page, 'main form[method="post"] button[type="submit"]')
        page.wait_for_url(f"{live_server.url}/study/{link.slug}/done/")
        assert page.locator("#study-code").inner_text() == "SCREENED"

    session = StudySession.objects.get()
    assert session.outcome == StudySession.Outcome.SCREENED_OUT and session.worker.platform_id == PID
    assert PlatformWorker.objects.count() == 1
    assert not Judgement.objects.exists()
    assert not Assignment.objects.exists()


def test_the_end_goes_back_to_prolific_with_the_code_by_itself_unless_the_worker_stays(
    live_server, browser, settings
):
    """The countdown takes the finished participant to Prolific's completion URL with the code (a
    stand-in answers there: nothing goes to the network); "Stay on this page" stops it."""
    settings.STUDY_RETURN_SECONDS = 2
    project = study_project(items=2)
    link = create_link(
        project, None, platform=StudyLink.Platform.PROLIFIC, tasks_per_session=1, completion_code="C0MPLETE"
    )
    completion = "https://app.prolific.com/submissions/complete?cc=C0MPLETE"
    with worker_page(browser, DESKTOP) as page:
        reached: list[str] = []

        def prolific_stand_in(route) -> None:
            reached.append(route.request.url)
            route.fulfill(status=200, content_type="text/html", body="<title>Prolific</title>Completed")

        page.route("https://app.prolific.com/**", prolific_stand_in)
        start_session(page, prolific_url(live_server.url, link), "a session is 1 item")
        judge_by_keyboard(page, "r")
        page.wait_for_url(completion)
        assert reached == [completion]

        done = f"{live_server.url}/study/{link.slug}/done/"
        page.goto(done)
        page.locator("#study-countdown").wait_for()
        press_on(page, "#study-stay")
        page.get_by_text("You stay on this page").wait_for()
        page.wait_for_timeout(3_000)  # past the countdown's two seconds
        assert page.url == done and reached == [completion]
        assert has_focus(page, "#study-return")


def test_a_timed_sessions_time_left_counts_down_on_the_judging_page(live_server, browser):
    project = study_project(items=2)
    link = create_link(project, None, platform=StudyLink.Platform.PROLIFIC, minutes_per_session=5)
    with worker_page(browser, PHONE) as page:
        start_session(page, prolific_url(live_server.url, link), "a session lasts 5 minutes")
        page.wait_for_url(f"**/projects/{project.pk}/judge/")
        press_on(page, '#claim-form button[type="submit"]')
        page.get_by_role("heading", name=f"Topic: {TOPIC}").wait_for()
        left = page.locator("#session-left")
        first = left.inner_text()
        assert first in {"5:00", "4:59", "4:58"}
        page.wait_for_timeout(2_100)
        later = left.inner_text()
        assert later < first and later.startswith("4:5"), (first, later)


# -- Mechanical Turk ------------------------------------------------------------------------------------


class SubmitRecorder(ThreadingHTTPServer):
    """A stand-in for MTurk's ``turkSubmitTo`` host on 127.0.0.1: records each POST (path, form);
    a GET shows the HIT as MTurk's worker site does, the ExternalQuestion in a frame (``frame_src``).
    It is another site than the live server's (localhost), as MTurk is."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), RecordSubmission)
        self.received: list[tuple[str, dict[str, list[str]]]] = []
        self.frame_src = ""

    @property
    def origin(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


class RecordSubmission(BaseHTTPRequestHandler):
    server: SubmitRecorder

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        self.server.received.append((self.path, parse_qs(body)))
        page = b"<!doctype html><title>HIT submitted</title><h1>HIT submitted</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def do_GET(self) -> None:
        source = html.escape(self.server.frame_src)
        page = (
            "<!doctype html><title>HIT</title><h1>A HIT on the worker site</h1>"
            f'<iframe id="hit" title="The HIT" width="1000" height="600" src="{source}"></iframe>'
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args) -> None:  # quiet
        pass


@pytest.fixture
def mturk(settings) -> Iterator[SubmitRecorder]:
    """The local stand-in for MTurk, allowed as a ``turkSubmitTo`` host for the test."""
    recorder = SubmitRecorder()
    thread = threading.Thread(target=recorder.serve_forever, daemon=True)
    thread.start()
    settings.MTURK_SUBMIT_HOSTS = [recorder.origin]
    yield recorder
    recorder.shutdown()
    recorder.server_close()
    thread.join(timeout=5)


def test_an_mturk_worker_previews_accepts_judges_and_submits_the_hit_to_mturk(
    live_server, browser, artifacts, mturk
):
    project = study_project(items=3)
    link = create_link(project, None, platform=StudyLink.Platform.MTURK, tasks_per_session=2)
    study = f"{live_server.url}/study/{link.slug}/"
    with worker_page(browser, DESKTOP) as page:
        # The preview: a sample task with its answers disabled, and nothing leased or made.
        page.goto(f"{study}?{urlencode({'assignmentId': MTURK_PREVIEW, 'hitId': MTURK_HIT})}")
        page.get_by_role("heading", name="Jet noise: preview").wait_for()
        page.get_by_text("Accept the HIT to start").wait_for()
        assert page.locator("fieldset[disabled] input[type=radio]").count() == 2
        assert page.locator('form[method="post"]').count() == 0  # no Start before accepting
        assert not Assignment.objects.exists() and not PlatformWorker.objects.exists()
        assert not StudySession.objects.exists() and not Membership.objects.exists()

        # Accepted: MTurk opens the same address with the assignment's parameters.
        accepted = {
            "assignmentId": MTURK_ASSIGNMENT,
            "hitId": MTURK_HIT,
            "workerId": MTURK_WORKER,
            "turkSubmitTo": mturk.origin,
        }
        start_session(page, f"{study}?{urlencode(accepted)}", "a session is 2 items")
        judge_by_keyboard(page, "nr")

        assert page.url == f"{study}done/"
        code = link.completion_code
        assert page.locator("#study-code").inner_text() == code
        form = page.locator("#mturk-submit")
        assert form.get_attribute("action") == f"{mturk.origin}/mturk/externalSubmit"
        assert has_focus(page, '#mturk-submit button[type="submit"]')
        page.screenshot(path=str(artifacts / "study-mturk-done.png"), full_page=True)
        assert mturk.received == []
        press_on(page, '#mturk-submit button[type="submit"]')
        page.wait_for_url(f"{mturk.origin}/mturk/externalSubmit")
        page.get_by_role("heading", name="HIT submitted").wait_for()

    assert mturk.received == [
        ("/mturk/externalSubmit", {"assignmentId": [MTURK_ASSIGNMENT], "completion_code": [code]})
    ]
    worker = PlatformWorker.objects.get()
    assert (worker.platform, worker.platform_id) == ("mturk", MTURK_WORKER)
    session = StudySession.objects.get()
    assert (session.platform_session, session.platform_study, session.submit_to) == (
        MTURK_ASSIGNMENT,
        MTURK_HIT,
        mturk.origin,
    )
    assert session.outcome == StudySession.Outcome.COMPLETED
    labels = Judgement.objects.filter(annotator=worker.annotator).values_list("label", flat=True)
    assert sorted(labels) == [0, 1] and Judgement.objects.count() == 2


def test_inside_mturks_frame_the_hit_opens_in_a_tab_of_its_own_and_is_submitted_from_there(
    live_server, browser, mturk, settings
):
    """MTurk shows an ExternalQuestion in a frame of its worker site, where the browser may refuse
    Cranfield's session cookie (a third party's): the welcome page in the frame opens the work in a
    tab, which judges and submits the HIT. A site not in MTURK_FRAME_ANCESTORS cannot frame it."""
    settings.MTURK_FRAME_ANCESTORS = [mturk.origin]
    project = study_project(items=2)
    link = create_link(project, None, platform=StudyLink.Platform.MTURK, tasks_per_session=1)
    accepted = {
        "assignmentId": MTURK_ASSIGNMENT,
        "hitId": MTURK_HIT,
        "workerId": MTURK_WORKER,
        "turkSubmitTo": mturk.origin,
    }
    mturk.frame_src = f"{live_server.url}/study/{link.slug}/?{urlencode(accepted)}"
    with worker_page(browser, DESKTOP) as page:
        page.goto(f"{mturk.origin}/hit")
        frame = page.frame_locator("#hit")
        frame.get_by_role("heading", name="Jet noise", exact=True).wait_for()
        start = frame.get_by_role("link", name="Start (opens in a new tab)")
        start.focus()
        with page.context.expect_page() as opened:
            page.keyboard.press("Enter")
        tab = opened.value
        tab.set_default_timeout(15_000)
        tab.get_by_text("a session is 1 item").wait_for()
        press_on(tab, 'main form[method="post"] button[type="submit"]')
        judge_by_keyboard(tab, "r")
        press_on(tab, '#mturk-submit button[type="submit"]')
        tab.wait_for_url(f"{mturk.origin}/mturk/externalSubmit")
    assert mturk.received == [
        (
            "/mturk/externalSubmit",
            {"assignmentId": [MTURK_ASSIGNMENT], "completion_code": [link.completion_code]},
        )
    ]
    assert Judgement.objects.count() == 1

    # Another site framing the link: the browser refuses the frame (the policy's frame-ancestors).
    settings.MTURK_FRAME_ANCESTORS = ["https://worker.mturk.com"]
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        refused: list[str] = []
        page.on("console", lambda message: refused.append(message.text))
        page.goto(f"{mturk.origin}/hit")
        page.wait_for_timeout(1_000)
        assert any("frame-ancestors" in text for text in refused), refused
        assert page.frame_locator("#hit").get_by_role("heading", name="Jet noise", exact=True).count() == 0
    finally:
        context.close()
