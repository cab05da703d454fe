"""Throttling of the public pages (sign-up, invitation links, password reset, a study link's start) per
address.

Logging in is throttled by django-axes, per username and address, in the database, and here per address
whatever the username (``login_failures``: password spraying across many accounts). Sign-up has no
username to key on until it succeeds, so these pages count per client address (found as axes finds
it, so both agree behind a proxy) in fixed windows in the cache: a budget of attempts of any kind,
which stops a script from making accounts by the thousand while a class behind one address signs
up, and a smaller budget of wrong codes and dead links, which makes guessing them hopeless.

When the cache is unreachable (Redis down: ``cranfield.cache`` then answers as an empty cache and
logs it), nothing is counted and the pages keep working: losing the throttle for a while is
better than losing sign-up, as issue 14 asks of every page.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import wraps

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@dataclass(frozen=True)
class Budget:
    """At most ``limit`` events of ``scope`` per address per window of ``minutes``."""

    scope: str
    limit: int
    minutes: int

    def _key(self, request: HttpRequest) -> str:
        window = int(time.time() // (self.minutes * 60))
        address = get_client_ip_address(request) or "unknown"
        return f"throttle:{self.scope}:{address}:{window}"

    def spent(self, request: HttpRequest) -> bool:
        """Is this address's budget used up in the current window?"""
        return (cache.get(self._key(request)) or 0) >= self.limit

    def count(self, request: HttpRequest) -> None:
        """Count one event for this address."""
        key = self._key(request)
        try:
            if not cache.add(key, 1, self.minutes * 60):
                cache.incr(key)
        except ValueError:  # the key expired in between, or the cache is down: not counted
            pass


def attempts(scope: str, limit: str = "SIGNUP_THROTTLE_ATTEMPTS") -> Budget:
    """Every POST to a public page of ``scope`` (sign-up, invitation, password reset, the start of a
    study link's session), at most the setting named ``limit`` of them per address and window."""
    return Budget(scope, getattr(settings, limit), settings.SIGNUP_THROTTLE_MINUTES)


def failures() -> Budget:
    """Wrong sign-up codes and dead invitation links, whichever page they came through."""
    return Budget("wrong-code", settings.SIGNUP_THROTTLE_FAILURES, settings.SIGNUP_THROTTLE_MINUTES)


def login_failures() -> Budget:
    """Wrong passwords from one address, for any username, in axes' cool-off window."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60) or 1
    return Budget("login-failure", settings.LOGIN_FAILURES_PER_ADDRESS, minutes)


@receiver(user_login_failed)
def count_login_failure(sender, credentials=None, request: HttpRequest | None = None, **kwargs) -> None:
    if request is not None:
        login_failures().count(request)


def too_many_attempts(request: HttpRequest, minutes: int | None = None) -> HttpResponse:
    """429 with the page that says how long to wait (the sign-up window unless ``minutes`` is given)."""
    minutes = minutes or settings.SIGNUP_THROTTLE_MINUTES
    response = render(request, "registration/throttled.html", {"minutes": minutes}, status=429)
    response["Retry-After"] = str(minutes * 60)
    return response


def throttled(scope: str, *, guesses: bool = False, limit: str = "SIGNUP_THROTTLE_ATTEMPTS"):
    """Refuse (429) an address that spent its budget: every POST counts as an attempt of ``scope``
    (at most the setting ``limit`` names); with ``guesses``, an address that sent too many wrong
    codes or dead links is refused outright."""

    def decorate(view):
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if guesses and failures().spent(request):
                return too_many_attempts(request)
            if request.method == "POST":
                budget = attempts(scope, limit)
                if budget.spent(request):
                    return too_many_attempts(request)
                budget.count(request)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def refuse_password_spraying(view):
    """The login view, refusing (429) every login from an address that sent more wrong passwords than
    ``LOGIN_FAILURES_PER_ADDRESS`` for any usernames in the window (axes locks one username from one
    address; this stops one address trying a few passwords on many accounts)."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        budget = login_failures()
        if request.method == "POST" and budget.spent(request):
            return too_many_attempts(request, budget.minutes)
        return view(request, *args, **kwargs)

    return wrapper
