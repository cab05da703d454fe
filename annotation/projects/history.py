"""A project's history, and the changes that undo mistakes: what each would change, said before it is
done, and recorded when it is.

Every undoing change (a run withdrawn or deleted, topics or documents deleted, the project archived,
a lease released) goes through two steps that read the same plan:

1. **plan** — a ``Change``: what will go, in words (``summary``, ``lines``) and as counts and names
   (``details``), or why it cannot be done (``refusal``). Its confirmation page shows it (GET) and
   its API endpoint answers it to a dry run;
2. **do** — the change itself, in one transaction with its ``ProjectEvent`` (who, what, when, and
   the plan's summary and details), so the history says exactly what the confirmation said.

The plans and changes live with what they change: ``annotation.projects.removal`` (topics, documents, the
project, leases) and ``evaluation.collection.run_removal`` (runs); their pages and API in
``annotation.projects.removal_views`` and ``evaluation.collection.run_removal_views``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from annotation.models import Project, ProjectEvent

# Names a plan lists in full; beyond, it counts them (the API's details still list every one).
NAMES_SHOWN = 50


class Refused(Exception):
    """A change that cannot be done; ``status`` is the HTTP status that says so (409: the project's
    state forbids it, e.g. a judged topic; 400: the request itself is wrong), ``field`` what to fix."""

    def __init__(self, message: str, *, status: int = 409, field: str = "detail") -> None:
        super().__init__(message)
        self.message, self.status, self.field = message, status, field


@dataclass
class Change:
    """What an undoing change will do (or did): ``summary`` is one sentence, ``lines`` the names and
    counts a confirmation lists, ``details`` the same as data; ``refusal`` says why it cannot be done."""

    action: str
    summary: str
    lines: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    refusal: str | None = None
    refusal_status: int = 409

    def refuse_if_refused(self) -> None:
        if self.refusal is not None:
            raise Refused(self.refusal, status=self.refusal_status)

    def as_answer(self, *, done: bool, event: ProjectEvent | None = None) -> dict[str, Any]:
        """The change as the API answers it: done or a dry run, the words, the details, the event."""
        return {
            "action": self.action,
            "done": done,
            "summary": self.summary,
            "lines": self.lines,
            "details": self.details,
            "event": event.pk if event is not None else None,
        }


def record(project: Project, actor, change: Change) -> ProjectEvent:
    """Write the change into the project's history (call it inside the change's transaction)."""
    return ProjectEvent.objects.create(
        project=project,
        actor=actor if getattr(actor, "pk", None) else None,
        action=change.action,
        summary=change.summary,
        details=change.details,
    )


def events_of(project: Project) -> QuerySet[ProjectEvent]:
    """The project's history, newest first, with who did each."""
    return ProjectEvent.objects.filter(project=project).select_related("actor").order_by("-created_at", "-id")


def named(things: list[str], noun: str, plural: str | None = None) -> str:
    """``'2 topics: 7, 12'``, or the first ``NAMES_SHOWN`` names and how many more."""
    plural = plural or f"{noun}s"
    shown = ", ".join(things[:NAMES_SHOWN])
    more = f" and {len(things) - NAMES_SHOWN} more" if len(things) > NAMES_SHOWN else ""
    return f"{len(things)} {noun if len(things) == 1 else plural}: {shown}{more}"


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    return f"{n} {noun if n == 1 else (nouns or noun + 's')}"
