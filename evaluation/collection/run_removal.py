"""Undoing a run: withdraw it (kept, off the leaderboard, and reinstated at will), reinstate it, or
delete it. Each is planned first (``annotation.projects.history.Change``: what will go, or why not) and
done in one transaction with its entry in the project's history; then the runs are scored again against the
newest ground truth and every external qrels (``evaluation.signals.runs_changed``, heard by scoring), so the
leaderboard shows the runs as they now are.

**The pooled items.** The run's pool is the (topic, document) pairs of its top ``pool_depth``. An item
of it that anyone judged always stays: its judgements are part of the ground truth. An item nobody
judged stays or goes as the researcher chooses (``unjudged_items``: ``keep``, the default, or
``remove``), but only if no other run pooled it (withdrawn runs count: they may come back) and no
annotator holds it right now. An item imported explicitly (``items``) that happens to be a pair of the
run's pool cannot be told apart from a pooled one and is treated as one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.items.counts import forget_task_facts
from annotation.models import Assignment, Judgement, Project, ProjectEvent, Task
from annotation.projects.history import Change, Refused, plural, record
from evaluation.collection.runs import line_count, pooled_documents
from evaluation.models import Evaluation, RankedList, Run
from evaluation.signals import announce_runs_changed

Action = ProjectEvent.Action
UNJUDGED_ITEMS = ("keep", "remove")


def unjudged_choice(value: object) -> str:
    """The request's ``unjudged_items`` (default ``keep``); Refused (400) naming the field otherwise."""
    value = "keep" if value in (None, "") else value
    if value not in UNJUDGED_ITEMS:
        raise Refused("must be keep or remove", status=400, field="unjudged_items")
    return str(value)


@dataclass
class PoolShare:
    """The run's pooled items: how many, judged, pooled by other runs too, held now, and those that
    only this run pooled and nobody judged or holds (which may go)."""

    pooled: int = 0
    judged: int = 0
    shared: int = 0
    held: int = 0
    removable: list[int] = field(default_factory=list)


def pool_share(run: Run) -> PoolShare:
    if run.pool_depth == 0:
        return PoolShare()
    mine = {
        (topic, document)
        for _, topic, documents in pooled_documents(RankedList.objects.filter(run=run))
        for document in documents
    }
    topics = {topic for topic, _ in mine}
    others = {
        (topic, document)
        for _, topic, documents in pooled_documents(
            RankedList.objects.filter(run__project_id=run.project_id, topic_id__in=topics).exclude(run=run)
        )
        for document in documents
    }
    items = [
        (pk, (topic, document) in others)
        for pk, topic, document in Task.objects.filter(
            project_id=run.project_id,
            kind=Task.Kind.ITEM,
            document_b__isnull=True,
            topic__external_id__in=topics,
        ).values_list("pk", "topic__external_id", "document__external_id")
        if (topic, document) in mine
    ]
    ids = [pk for pk, _ in items]
    judged = set(Judgement.objects.filter(task_id__in=ids).values_list("task_id", flat=True))
    held = set(
        Assignment.objects.filter(
            task_id__in=ids, status=Assignment.Status.ACTIVE, expires_at__gt=timezone.now()
        ).values_list("task_id", flat=True)
    )
    share = PoolShare(pooled=len(ids), judged=len(judged))
    for pk, shared in items:
        if pk in judged:
            continue
        if shared:
            share.shared += 1
        elif pk in held:
            share.held += 1
        else:
            share.removable.append(pk)
    return share


def _pool_lines(share: PoolShare, unjudged_items: str) -> list[str]:
    if share.pooled == 0:
        return ["It put nothing into the pool (pooled to depth 0, or its pairs were imported otherwise)."]
    lines = [
        f"Its pool: {plural(share.pooled, 'item')}; {share.judged} judged (they stay: their judgements are "
        "part of the ground truth)."
    ]
    if share.shared:
        lines.append(f"{plural(share.shared, 'unjudged item')} another run pooled too: they stay.")
    if share.held:
        lines.append(f"{plural(share.held, 'unjudged item')} an annotator holds right now: they stay.")
    if share.removable:
        fate = (
            "are removed" if unjudged_items == "remove" else "stay, to be judged (choose remove to drop them)"
        )
        lines.append(f"{plural(len(share.removable), 'unjudged item')} only this run pooled: they {fate}.")
    return lines


def _details(run: Run, share: PoolShare, unjudged_items: str) -> dict:
    return {
        "run": run.tag,
        "run_id": run.pk,
        "unjudged_items": unjudged_items,
        "pooled_items": share.pooled,
        "judged_items": share.judged,
        "items_removed": len(share.removable) if unjudged_items == "remove" else 0,
        "unjudged_items_kept": share.shared
        + share.held
        + (0 if unjudged_items == "remove" else len(share.removable)),
    }


def plan_withdrawal(run: Run, unjudged_items: str = "keep", share: PoolShare | None = None) -> Change:
    if run.withdrawn_at is not None:
        message = f"Run “{run.tag}” is withdrawn already (reinstate it, or delete it)."
        return Change(Action.RUN_WITHDRAWN, message, refusal=message)
    share = share or pool_share(run)
    summary = (
        f"Withdraw run “{run.tag}”: it leaves the leaderboard (the runs are scored again without it) and is "
        "kept, to be reinstated at will."
    )
    return Change(
        Action.RUN_WITHDRAWN,
        summary,
        _pool_lines(share, unjudged_items),
        _details(run, share, unjudged_items),
    )


def plan_reinstatement(run: Run) -> Change:
    if run.withdrawn_at is None:
        message = f"Run “{run.tag}” is not withdrawn."
        return Change(Action.RUN_REINSTATED, message, refusal=message)
    summary = f"Reinstate run “{run.tag}”: it is scored again, with the others, and back on the leaderboard."
    lines = [
        "Items removed when it was withdrawn are not pooled again (import the run under a new tag to "
        "pool it anew)."
    ]
    return Change(Action.RUN_REINSTATED, summary, lines, {"run": run.tag, "run_id": run.pk})


def plan_deletion(run: Run, unjudged_items: str = "keep", share: PoolShare | None = None) -> Change:
    share = share or pool_share(run)
    entries = line_count(run)
    scored = run.scores.count()
    summary = (
        f"Delete run “{run.tag}” and its {plural(entries, 'line')}: it leaves the leaderboard and every "
        f"evaluation ({plural(scored, 'score')} go with it); this cannot be undone."
    )
    lines = [*_pool_lines(share, unjudged_items), "To keep it but off the leaderboard, withdraw it instead."]
    details = _details(run, share, unjudged_items) | {"lines": entries, "scores": scored}
    return Change(Action.RUN_DELETED, summary, lines, details)


def _rescore(project: Project) -> None:
    announce_runs_changed(project.pk)  # scoring listens: the runs are scored again


def _remove_items(project: Project, share: PoolShare, unjudged_items: str) -> None:
    if unjudged_items == "remove" and share.removable:
        Task.objects.filter(pk__in=share.removable).delete()
        forget_task_facts(project.pk)


def withdraw(run: Run, actor, unjudged_items: str = "keep") -> tuple[Change, ProjectEvent]:
    """Withdraw the run (and its unjudged pooled items, if asked), record it and score the runs again."""
    with transaction.atomic():
        run = Run.objects.select_for_update().select_related("project").get(pk=run.pk)
        share = pool_share(run)
        change = plan_withdrawal(run, unjudged_items, share)
        change.refuse_if_refused()
        run.withdrawn_at = timezone.now()
        run.save(update_fields=["withdrawn_at"])
        _remove_items(run.project, share, unjudged_items)
        _rescore(run.project)
        return change, record(run.project, actor, change)


def reinstate(run: Run, actor) -> tuple[Change, ProjectEvent]:
    with transaction.atomic():
        run = Run.objects.select_for_update().select_related("project").get(pk=run.pk)
        change = plan_reinstatement(run)
        change.refuse_if_refused()
        run.withdrawn_at = None
        run.save(update_fields=["withdrawn_at"])
        _rescore(run.project)
        return change, record(run.project, actor, change)


def delete_run(run: Run, actor, unjudged_items: str = "keep") -> tuple[Change, ProjectEvent]:
    """Delete the run with its lines and scores (and its unjudged pooled items, if asked)."""
    with transaction.atomic():
        run = Run.objects.select_for_update().select_related("project").get(pk=run.pk)
        project = run.project
        share = pool_share(run)
        change = plan_deletion(run, unjudged_items, share)
        # A job scoring now waits for one score fewer once this run's score is gone with it.
        Evaluation.objects.filter(status=Evaluation.Status.RUNNING, scores__run=run).update(
            run_count=F("run_count") - 1
        )
        _remove_items(project, share, unjudged_items)
        run.delete()
        _rescore(project)
        return change, record(project, actor, change)
