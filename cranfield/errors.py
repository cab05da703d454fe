"""The error handlers: pages that say what happened in words, in the site's look, with a way back
(the project the address was under, if the visitor may see it; home; logging in), and never a stack
trace. Under ``/api/`` the answer is JSON, as the API's own errors are.

When the database cannot be reached (restarting, failed over, out of connections) the 500 handler
answers 503 with Retry-After, saying so — nothing was stored, the request can be sent again —
instead of "Server Error (500)". An error the database gives for the request itself (a statement
past its limits, SQLSTATE class 54) is a 500 that says sending it again will not help. The API's
JSON says which in ``retry`` (true or false). Pages for 500 and 503 are rendered without the
request, so that nothing on them (the logged-in user, the session) touches the database that may
have failed.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterator

from axes.helpers import get_client_username
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.views.decorators.csrf import requires_csrf_token

from annotation.permissions import project_way_back

RETRY_SECONDS = 5
UNAVAILABLE = (
    "The database is unavailable for a moment (it may be restarting). Nothing from this request was "
    f"stored: send it again in a few seconds (Retry-After: {RETRY_SECONDS})."
)
TOO_LARGE_FOR_THE_DATABASE = (
    "The database refused this request as past its limits (too large or too complex). Nothing from it was "
    "stored, and sending it again will not help: send less at once (a large import as an import job)."
)
SERVER_ERROR = "Server error: the request could not be finished. Sending it again will not help."
PROJECT_PATH = re.compile(r"^/projects/(\d+)/")


def exception_chain() -> Iterator[BaseException]:
    """The exception being handled and those it was raised from or during."""
    error = sys.exc_info()[1]
    while error is not None:
        yield error
        error = error.__cause__ or error.__context__


def beyond_limits() -> bool:
    """PostgreSQL's class 54, "program limit exceeded" (a statement or a value too large): the same
    request fails the same way every time."""
    return any(str(getattr(error, "sqlstate", "") or "").startswith("54") for error in exception_chain())


def database_unreachable() -> bool:
    """The request failed because the database could not be reached, which passes: retrying helps
    (unless the error is also ``beyond_limits``)."""
    return any(isinstance(error, OperationalError | InterfaceError) for error in exception_chain())


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def way_back(request: HttpRequest) -> dict[str, str] | None:
    """A link back to the project whose address failed, for someone who may see that project."""
    match = PROJECT_PATH.match(request.path)
    user = getattr(request, "user", None)
    if match is None or user is None or not user.is_authenticated:
        return None
    try:
        found = project_way_back(user, int(match.group(1)))
    except DatabaseError:  # the page says what went wrong without it
        return None
    return {"url": found[0], "text": found[1]} if found else None


@requires_csrf_token
def handler404(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return render(request, "404.html", {"way_back": way_back(request)}, status=404)


@requires_csrf_token
def handler403(request: HttpRequest, exception: Exception) -> HttpResponse:
    reason = str(exception)
    if is_api(request):
        return JsonResponse({"detail": reason or "You may not do this."}, status=403)
    return render(request, "403.html", {"reason": reason, "way_back": way_back(request)}, status=403)


def handler500(request: HttpRequest) -> HttpResponse:
    response: HttpResponse
    too_large = beyond_limits()
    if too_large or not database_unreachable():
        detail = TOO_LARGE_FOR_THE_DATABASE if too_large else SERVER_ERROR
        if is_api(request):
            return JsonResponse({"detail": detail, "retry": False}, status=500)
        return HttpResponse(last_resort_page("500.html", {}, "Something went wrong", ""), status=500)
    if is_api(request):
        response = JsonResponse({"detail": UNAVAILABLE, "retry": True}, status=503)
    else:
        page = last_resort_page("503.html", {"message": UNAVAILABLE}, "Try again in a moment", UNAVAILABLE)
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_SECONDS)
    return response


def last_resort_page(template: str, context: dict, title: str, text: str) -> str:
    """The error page in the site's look or, if even that cannot be drawn (a broken template, static
    files never collected), the same words on a bare page: the 500 handler must not fail itself."""
    try:
        return loader.render_to_string(template, context)
    except Exception:  # anything at all: this is the handler of last resort
        return f'<!doctype html><html lang="en"><title>{title}</title><h1>{title}</h1><p>{text}</p></html>'


def locked_out(request: HttpRequest, original_response=None, credentials: dict | None = None) -> HttpResponse:
    """django-axes' answer to a locked-out login (``AXES_LOCKOUT_CALLABLE``): a 429 page saying for
    how long, with Retry-After, and the way to a password reset."""
    minutes = math.ceil(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    context = {
        "username": get_client_username(request, credentials) or "",
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": minutes,
    }
    response = render(request, "registration/locked_out.html", context, status=429)
    response["Retry-After"] = str(minutes * 60)
    return response
