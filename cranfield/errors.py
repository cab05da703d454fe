"""The 500 handler: when the database cannot be reached (restarting, failed over, out of
connections) the answer is a 503 that says so and when to try again — nothing was stored, the
request can be sent again — instead of a bare "Server Error (500)". Other errors keep Django's 500."""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import server_error

RETRY_SECONDS = 5
UNAVAILABLE = (
    "The database is unavailable for a moment (it may be restarting). Nothing from this request was "
    f"stored: send it again in a few seconds (Retry-After: {RETRY_SECONDS})."
)


def database_unavailable() -> bool:
    error = sys.exc_info()[1]
    while error is not None:
        if isinstance(error, OperationalError | InterfaceError):
            return True
        error = error.__cause__ or error.__context__
    return False


def handler500(request: HttpRequest) -> HttpResponse:
    if not database_unavailable():
        return server_error(request)
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": UNAVAILABLE}, status=503)
    else:
        title = "Try again in a moment"
        page = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{UNAVAILABLE}</p>"
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_SECONDS)
    return response
