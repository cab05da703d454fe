"""A project's precedence between prior and crowd labels (``PriorSettings``), read and changed."""

from __future__ import annotations

from annotation.models import Project
from evaluation.models import Precedence, PriorSettings


def precedence_of(project: Project) -> str:
    """The project's precedence; prior wins unless the researcher chose otherwise."""
    chosen = PriorSettings.objects.filter(project=project).values_list("precedence", flat=True).first()
    return chosen or Precedence.PRIOR_WINS


def set_precedence(project: Project, precedence: str) -> None:
    """Store the project's precedence (one of ``Precedence``)."""
    if precedence not in Precedence.values:
        raise ValueError(f"precedence must be one of {', '.join(Precedence.values)}, not {precedence!r}")
    PriorSettings.objects.update_or_create(project=project, defaults={"precedence": precedence})
