"""The media types of the API's downloads, so a client that asks for what the schema says an operation
answers (``Accept: application/zip``, ``text/csv``…) is served instead of refused with a 406.

The views return the file themselves (an ``HttpResponse``); these renderers only take part in DRF's
content negotiation. An error on the way (a ``{"detail": …}`` dict) is still written as JSON, and
labelled so, whatever the client accepted.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.renderers import BrowsableAPIRenderer as DRFBrowsableAPIRenderer
from rest_framework.settings import api_settings


class _FileRenderer(BaseRenderer):
    charset = None

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> Any:
        if isinstance(data, bytes | str):
            return data
        response = (renderer_context or {}).get("response")
        if response is not None:
            response["Content-Type"] = "application/json"
        return JSONRenderer().render(data)


class ZipRenderer(_FileRenderer):
    media_type = "application/zip"
    format = "zip"


class CsvRenderer(_FileRenderer):
    media_type = "text/csv"
    format = "csv"


class PlainTextRenderer(_FileRenderer):
    media_type = "text/plain"
    format = "txt"


class NdjsonRenderer(_FileRenderer):
    media_type = "application/x-ndjson"
    format = "jsonl"


def with_downloads(*renderers: type[BaseRenderer]) -> list[type[BaseRenderer]]:
    """The default renderers (JSON first, for ``Accept: */*`` and errors) and ``renderers``."""
    defaults: list[Any] = list(api_settings.DEFAULT_RENDERER_CLASSES)  # classes, once DRF imported them
    return [*defaults, *renderers]


IMAGE_TYPES = {"png": "image/png", "svg": "image/svg+xml"}


def image_response(data: bytes, fmt: str, filename: str | None = None) -> HttpResponse:
    """A drawn figure as a response. An SVG opened on its own is a document whose ``<style>`` element
    the site's Content-Security-Policy would block (styles from files only): its response alone
    allows inline styles. Scripts stay forbidden; the figures hold none."""
    response = HttpResponse(data, content_type=IMAGE_TYPES[fmt])
    if filename:
        response["Content-Disposition"] = f'inline; filename="{filename}.{fmt}"'
    if fmt == "svg":
        response._csp_update = {"style-src": ["'unsafe-inline'"]}  # type: ignore[attr-defined]
    return response


class BrowsableAPIRenderer(DRFBrowsableAPIRenderer):
    """DRF's browsable API. Its page has one ``<style>`` element (the code highlighting) that the
    site's Content-Security-Policy would block: its responses alone allow inline styles (its scripts
    are files, its CSRF token a JSON script element that never runs)."""

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> Any:
        response = (renderer_context or {}).get("response")
        if response is not None:
            response._csp_update = {"style-src": ["'unsafe-inline'"]}
        return super().render(data, accepted_media_type, renderer_context)
