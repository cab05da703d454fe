"""Cancelling a job, from its page and the API alike (``lifecycle.cancel``): a queued job never runs;
a running one stops at its next progress step and stores nothing more; an ended job cannot be.

Security behavior: each feature's view finds the job among the projects the researcher owns
(anyone else gets 404 with no hint that it exists) before it calls these; state changes only on POST.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from rest_framework import status
from rest_framework.response import Response

from evaluation.jobs import lifecycle


def ended_message(kind: lifecycle.JobKind, job: Any) -> str:
    status = job.get_status_display().lower()
    return f"{kind.name.capitalize()} {job.pk} is {status}: only a queued or running job can be cancelled."


def cancel_from_page(request: HttpRequest, kind: lifecycle.JobKind, job: Any, back: str) -> HttpResponse:
    """POST from a page: cancel, say so, and go back."""
    if lifecycle.cancel(kind, job.pk, request.user.get_username()):
        messages.success(request, f"{kind.name.capitalize()} {job.pk} is cancelled: it stores nothing more.")
    else:
        job.refresh_from_db()
        messages.error(request, ended_message(kind, job))
    return redirect(back)


def cancel_by_api(request: Any, kind: lifecycle.JobKind, job: Any) -> Response:
    """POST by the API: 200 with the job's new state, or 409 naming why it cannot be cancelled."""
    if not lifecycle.cancel(kind, job.pk, request.user.get_username()):
        job.refresh_from_db()
        return Response(
            {"detail": ended_message(kind, job), "status": job.status}, status=status.HTTP_409_CONFLICT
        )
    job.refresh_from_db()
    return Response({"id": job.pk, "status": job.status, "error": job.error, "finished_at": job.finished_at})
