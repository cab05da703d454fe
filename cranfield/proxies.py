"""The client's address as the trusted proxies in front of Cranfield saw it.

Behind the HTTPS proxy the README recommends, every request connects from the proxy, so throttles keyed
on ``REMOTE_ADDR`` would count every client as one. With ``TRUSTED_PROXY_COUNT`` = N (0 by default, no
proxy), the address is the N-th entry from the right of ``X-Forwarded-For``: each trusted proxy appends
the address it received the request from, so entries further left were written by the client and
could be anything. django-axes (``AXES_CLIENT_IP_CALLABLE``) and the sign-up throttle both use it.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    trusted = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if trusted > 0 and forwarded:
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-trusted] if len(hops) >= trusted else hops[0]
    return request.META.get("REMOTE_ADDR")
