"""What a change to the prior judgements announces (the ground truth listens and merges them), and
what they answer when annotation asks before deleting topics or documents."""

from __future__ import annotations

from collections import Counter

from django.db.models import Count

from annotation.models import Project
from evaluation.models import PriorJudgement
from evaluation.signals import announce_prior_changed


def prior_changed(project: Project) -> None:
    """Announce that the prior sets or their precedence changed, when the project has prior sets (a
    precedence without them changes nothing)."""
    if project.prior_qrels.exists():
        announce_prior_changed(project.pk)


def prior_judgements_of(project: Project, noun: str, ids: list[str], **_: object) -> tuple[str, Counter]:
    """``annotation.signals.judged_elsewhere``'s receiver: the prior judgements of these topics or
    documents, which deleting them would lose (so, as the crowd's, they refuse the deletion)."""
    column = "topic__external_id" if noun == "topic" else "document__external_id"
    rows = (
        PriorJudgement.objects.filter(prior_qrels__project=project, **{f"{column}__in": ids})
        .values_list(column)
        .annotate(n=Count("id"))
        .order_by()
    )
    return "prior judgement", Counter(dict(rows))
