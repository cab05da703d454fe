"""The annotator's HTTP flow, as a browser drives it: the only place that knows URLs and page markup.

Three functions, ``login``, ``next_task`` and ``submit``, each one or two HTTP requests with the
session cookie and the CSRF token a browser would send. When the annotator pages change, adapt
this file; ``bench_load.py`` only calls these functions and reads ``JudgePage``.

Today's pages (annotation/judging/views.py):

- ``GET /projects/<id>/judge/`` shows the annotator's leased task with a form posting to
  ``/projects/<id>/assignments/<aid>/submit/``, or a button posting to ``/projects/<id>/next/``;
- ``POST submit`` stores the judgement and leases the next task; sent as the judging page's script
  sends it (header ``X-Judging: inline``), it answers with the judging page of that next task
  (200), whose messages say the outcome (``success``, ``error``, ``info`` for "nothing left");
  without the header (a browser without the script) it redirects to the judging page;
- ``POST next`` leases a task and answers the same two ways.

So a browser with the script sends one request per judgement (POST submit), and GET judge and
POST next only to start, or when it holds no lease; without the script, two (POST submit, GET
judge). ``inline=False`` below goes the second way.

Every request is timed (``AnnotatorClient.exchanges``) with its body read, redirects not followed.
"""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass, field

import requests

SUBMIT_ACTION = re.compile(r'action="/projects/(\d+)/assignments/(\d+)/submit/"')
MESSAGE = re.compile(r'<li class="([a-z ]*)">(.*?)</li>', re.DOTALL)


class ClientError(Exception):
    """A request that failed or answered with an unexpected status."""


@dataclass(frozen=True)
class Exchange:
    """One timed HTTP request; ``status`` is None when the connection failed."""

    label: str
    started: float
    seconds: float
    status: int | None


@dataclass(frozen=True)
class JudgePage:
    """What the judging page shows: the leased assignment (None: nothing left) and the messages."""

    assignment_id: int | None
    messages: list[tuple[str, str]] = field(default_factory=list)

    def errors(self) -> list[str]:
        return [text for level, text in self.messages if "error" in level]


class AnnotatorClient:
    """One annotator's browser: a cookie jar, the CSRF token, and the timing of every request."""

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        self.exchanges: list[Exchange] = []
        self.retries = 0

    def request(self, label: str, method: str, path: str, expect: set[int], **kwargs) -> requests.Response:
        started = time.perf_counter()
        url = self.base_url + path
        try:
            try:
                response = self.session.request(
                    method, url, allow_redirects=False, timeout=self.timeout, **kwargs
                )
            except requests.ConnectionError:
                # A keep-alive connection the server closed as it was reused: like a browser, send
                # the request once more on a new connection (the time of both attempts counts).
                self.retries += 1
                response = self.session.request(
                    method, url, allow_redirects=False, timeout=self.timeout, **kwargs
                )
        except requests.RequestException as error:
            self.exchanges.append(Exchange(label, started, time.perf_counter() - started, None))
            raise ClientError(f"{method} {path}: {error}") from error
        self.exchanges.append(Exchange(label, started, time.perf_counter() - started, response.status_code))
        if response.status_code not in expect:
            raise ClientError(f"{method} {path} answered {response.status_code}, expected {sorted(expect)}")
        return response

    def post(
        self,
        label: str,
        path: str,
        data: dict[str, str],
        expect: set[int],
        headers: dict[str, str] | None = None,
    ) -> requests.Response:
        # Django accepts the cookie's secret as the form token; the Referer matters only over HTTPS.
        token = self.session.cookies.get("csrftoken", "")
        return self.request(
            label,
            "POST",
            path,
            expect,
            data={**data, "csrfmiddlewaretoken": token},
            headers={"Referer": self.base_url + path, **(headers or {})},
        )


def login(client: AnnotatorClient, username: str, password: str) -> None:
    """Log in through Django's login page (GET for the CSRF cookie, then POST the form)."""
    client.request("login page", "GET", "/accounts/login/", {200})
    response = client.post(
        "login", "/accounts/login/", {"username": username, "password": password}, {302, 200}
    )
    if response.status_code != 302:
        raise ClientError(f"login refused for {username!r}")


def read_judge_page(text: str) -> JudgePage:
    match = SUBMIT_ACTION.search(text)
    messages = [(level, html.unescape(body).strip()) for level, body in MESSAGE.findall(text)]
    return JudgePage(int(match.group(2)) if match else None, messages)


INLINE_HEADERS = {"X-Judging": "inline"}


def next_task(client: AnnotatorClient, project_id: int, *, inline: bool = True) -> JudgePage:
    """Open the judging page; when it shows no task, ask for one (POST next, answered with the page
    itself, or with a redirect to it that is followed)."""
    path = f"/projects/{project_id}/judge/"
    page = read_judge_page(client.request("GET judge", "GET", path, {200}).text)
    if page.assignment_id is not None:
        return page
    if inline:
        response = client.post("POST next", f"/projects/{project_id}/next/", {}, {200}, INLINE_HEADERS)
        again = read_judge_page(response.text)
    else:
        client.post("POST next", f"/projects/{project_id}/next/", {}, {302})
        again = read_judge_page(client.request("GET judge", "GET", path, {200}).text)
    return JudgePage(again.assignment_id, page.messages + again.messages)


def submit(
    client: AnnotatorClient, project_id: int, assignment_id: int, label: int, *, inline: bool = True
) -> JudgePage | None:
    """Post a judgement. ``inline``: the answer is the next task's page, returned (its messages say
    the outcome); otherwise the redirect is left to ``next_task``, whose page shows the outcome."""
    path = f"/projects/{project_id}/assignments/{assignment_id}/submit/"
    if inline:
        response = client.post("POST submit", path, {"label": str(label)}, {200}, INLINE_HEADERS)
        return read_judge_page(response.text)
    client.post("POST submit", path, {"label": str(label)}, {302})
    return None
