"""What a change to the prior judgements announces: the ground truth listens and merges them."""

from __future__ import annotations

from annotation.models import Project
from evaluation.signals import announce_prior_changed


def prior_changed(project: Project) -> None:
    """Announce that the prior sets or their precedence changed, when the project has prior sets (a
    precedence without them changes nothing)."""
    if project.prior_qrels.exists():
        announce_prior_changed(project.pk)
