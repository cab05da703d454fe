"""A crowd worker's pages of a study link: they arrive by one (MTurk's preview, the welcome page),
start a session, and leave with a completion or screen-out code. The work is
``annotation.judging.platforms``'s; these only read and answer. State changes only on POST.
(The researcher makes links on the Annotators page: ``annotation.accounts``.)
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from annotation.judging.assignment import items_left_for
from annotation.judging.platforms import (
    Arrival,
    LinkError,
    arrive,
    exit_for,
    finished_session,
    link_refusal,
    read_arrival,
)
from annotation.judging.views import render_markdown, task_view
from annotation.models import Membership, StudyLink, Task
from annotation.permissions import AuthenticatedHttpRequest
from annotation.throttling.throttle import throttled

# A worker comes in through the link's own login: the pseudonymous account has no password.
LOGIN_BACKEND = "django.contrib.auth.backends.ModelBackend"


def framable(response: HttpResponse) -> HttpResponse:
    """Let Mechanical Turk show the page in its frame (an ExternalQuestion is shown in one): the
    clickjacking header is left out and the policy's frame-ancestors names MTurk's hosts only."""
    response.xframe_options_exempt = True  # Django's own flag
    response._csp_replace = {"frame-ancestors": list(settings.MTURK_FRAME_ANCESTORS)}  # type: ignore[attr-defined]
    return response


def study_page(
    request: HttpRequest, link: StudyLink | None, context: dict, status: int = 200
) -> HttpResponse:
    response = render(request, "annotation/study.html", {"link": link, **context}, status=status)
    if link is not None and link.platform == StudyLink.Platform.MTURK:
        framable(response)
    return response


def refused(request: HttpRequest, link: StudyLink | None, reason: str, status: int) -> HttpResponse:
    return study_page(request, link, {"refusal": reason}, status=status)


def in_a_frame(request: HttpRequest) -> bool:
    """Shown inside MTurk's frame? There, the session cookie may not be kept (a third party's), so
    the work opens in a tab of its own."""
    return request.headers.get("Sec-Fetch-Dest") == "iframe"


def sample_task(link: StudyLink) -> Task | None:
    return (
        link.project.tasks.filter(kind=Task.Kind.ITEM)
        .select_related("topic", "document", "document_b")
        .first()
    )


@never_cache
@require_http_methods(["GET", "POST"])
# A start makes a pseudonymous account for a new worker id: a budget of its own.
@throttled("study-arrival", limit="STUDY_ARRIVALS_PER_ADDRESS")
def study(request: HttpRequest, slug: str) -> HttpResponse:
    """A study link: MTurk's preview (a sample task, nothing leased), the welcome page with its Start
    button, and (POST) the start of a session: the worker becomes the link's pseudonymous annotator,
    is logged in as them and goes to their task.

    Security behavior: open to anyone with the link while it and its project are open; every
    parameter is checked (a missing, malformed or over-long id, or a turkSubmitTo that is not an
    allowed MTurk host, is a 400 page naming it, and nothing is made); the account made has no
    password and no rights but judging this project; starts are throttled per address (429).
    """
    link = StudyLink.objects.select_related("project").filter(slug=slug[:40]).first()
    if link is None:
        return refused(request, None, "This study link is not valid.", 404)
    refusal = link_refusal(link)
    if refusal:
        return refused(request, link, refusal, 410)
    try:
        arrival = read_arrival(link, request.GET)
    except LinkError as error:
        return refused(request, link, str(error), error.status)
    if arrival.preview:
        return preview(request, link)
    if request.method == "POST":
        return start(request, link, arrival)
    return study_page(
        request,
        link,
        {
            "arrival": arrival,
            "framed": in_a_frame(request),
            "instructions": render_markdown(link.project.instructions),
        },
    )


def preview(request: HttpRequest, link: StudyLink) -> HttpResponse:
    task = sample_task(link)
    context = {"preview": True, "instructions": render_markdown(link.project.instructions)}
    if task is not None:
        context.update(task_view(link.project, task))
    return study_page(request, link, context)


def start(request: HttpRequest, link: StudyLink, arrival: Arrival) -> HttpResponse:
    try:
        session = arrive(link, arrival)
    except LinkError as error:
        return refused(request, link, str(error), error.status)
    annotator = session.worker.annotator
    if request.user != annotator:
        login(request, annotator, backend=LOGIN_BACKEND)
    if session.outcome != session.Outcome.OPEN:
        return redirect("study-done", slug=link.slug)
    return redirect("judge", project_id=link.project_id)


@never_cache
@login_required
@require_GET
def study_done(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The end of a session: the completion code (or the screen-out code) and the way back to the
    platform; a session still under way goes back to its task.

    Security behavior: only the link's own workers, each seeing their own session (anyone else: 404).
    """
    link = get_object_or_404(StudyLink.objects.select_related("project"), slug=slug[:40])
    member = (
        Membership.objects.select_related("project")
        .filter(project=link.project, annotator=request.user, joined_via=Membership.JoinedVia.STUDY_LINK)
        .first()
    )
    if member is None:
        return refused(request, link, "This page is for the study's own workers.", 404)
    session = finished_session(member, lambda: items_left_for(member.project, request.user))
    if session is None:
        return redirect("judge", project_id=link.project_id)
    study_exit = exit_for(session)
    context = {"session": session, "exit": study_exit, "return_seconds": settings.STUDY_RETURN_SECONDS}
    response = study_page(request, session.link, context)
    if study_exit.submit_to:
        # The form to MTurk leaves this site: the policy allows its host, and MTurk's own hosts, to
        # which its externalSubmit may redirect (a browser holds form-action to every redirect too).
        hosts = [study_exit.submit_to.rsplit("/mturk/", 1)[0], *settings.MTURK_FRAME_ANCESTORS]
        response._csp_update = {"form-action": list(dict.fromkeys(hosts))}  # type: ignore[attr-defined]
    return response
