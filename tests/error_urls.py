"""The site's URLconf plus four addresses that fail on purpose, so that the walk over every page
(tests/browser/test_every_page.py) sees the 500, 503 and 429 pages as a visitor would."""

from __future__ import annotations

import psycopg
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from django.urls import path

from annotation.throttling.throttle import too_many_attempts
from cranfield.errors import locked_out
from cranfield.urls import handler403, handler404, handler500
from cranfield.urls import urlpatterns as site_urls

__all__ = ["handler403", "handler404", "handler500", "urlpatterns"]


def a_bug(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("a bug, on purpose: the 500 page")


def database_down(request: HttpRequest) -> HttpResponse:
    raise OperationalError("connection refused, on purpose: the 503 page")


def past_the_databases_limits(request: HttpRequest) -> HttpResponse:
    """As Django raises psycopg's "program limit exceeded" (a statement too large): wrapped."""
    try:
        raise psycopg.errors.ProgramLimitExceeded("statement too large, on purpose")
    except psycopg.Error as error:
        raise OperationalError(str(error)) from error


urlpatterns = [
    *site_urls,
    path("test-errors/500/", a_bug),
    path("test-errors/503/", database_down),
    path("api/test-errors/503/", database_down),
    path("api/test-errors/too-large/", past_the_databases_limits),
    path("api/test-errors/500/", a_bug),
    path("test-errors/429/", too_many_attempts),
    path("test-errors/locked-out/", locked_out),
]
