"""What a change to the prior judgements asks for: a ground-truth job, which merges them."""

from __future__ import annotations

from annotation.models import Project


def prior_changed(project: Project) -> None:
    """Ask for a ground-truth job once the prior sets or their precedence changed (the snapshot's
    input fingerprint covers both, so the job writes a new version)."""
    from evaluation.ground_truth.jobs import request_ground_truth

    if project.prior_qrels.exists():
        request_ground_truth(project.pk)
