"""Adjudication of disputed items: the project's rule, applied as judgements arrive, and a
researcher's decision by hand.

1. **By rule.** When an item's k-th judgement arrives (``close_or_refer``, called by the assignment
   engine and by every other path that stores judgements) and its judgements are disputed under
   the project's rule (``annotation.crowd.adjudication``), the item is *referred* instead of
   completed: to one more assessor — its required judgements go up by one, so the engine serves it
   to an annotator who has never had it (once per item) — or to a researcher, who settles it on
   the item page. Under majority vote a *tied* item is referred the same way when the project's
   tie rule says so (``Project.tie_rule``: one more annotator, or the researcher), whatever the
   adjudication rule; the task records why (``Task.referral_reason``). A rule changed later is
   applied to the items already judged (``apply_rule``).
2. **By hand.** The project's owner settles any judged item of a label project (``settle``): an
   ``Adjudication`` row, never overwritten (the newest is in force; one without a label withdraws
   the decision). The next ground-truth snapshot takes its label instead of the aggregate and says
   so; the change is announced through ``annotation.signals``, as a judgement is, so the snapshot
   is computed by the debounced job and never in the request.

Annotators see none of this: a referred item is served like any other, and no page of theirs
shows a referral, a decision or another annotator's judgement.
"""

from __future__ import annotations

from collections.abc import Collection

from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from annotation.crowd.adjudication import DISPUTED, TIE, referrals
from annotation.items.counts import forget_task_facts
from annotation.models import AdjudicatedBy, Adjudication, Judgement, Project, Task
from annotation.signals import announce_judgements_changed
from annotation.task_types import AnswerError

NOTE_MAX_CHARS = 2000
# The project's settings that make up its rule: a change to any of them is applied by ``apply_rule``.
RULE_SETTINGS = (
    "adjudication_rule",
    "adjudication_threshold",
    "adjudicated_by",
    "tie_rule",
    "ground_truth_method",
)


class AdjudicationError(Exception):
    """A decision that cannot be accepted; the message says why, for the researcher."""


# -- by rule -------------------------------------------------------------------------------------


def rule_applies(project: Project) -> bool:
    return project.has_labels and project.adjudication_rule != Project.AdjudicationRule.OFF


def refers_anything(project: Project) -> bool:
    """Does the project refer items at all: by its adjudication rule, or its ties by its tie rule?"""
    return rule_applies(project) or project.tie_route is not None


def referrals_of(project: Project, task_ids: Collection[int] | None = None) -> dict[int, str]:
    """The project's items (or those of ``task_ids``) to refer by their current labels, each with why
    (``Task.ReferralReason``): disputed under its adjudication rule, or tied when its tie rule
    refers ties (majority vote only)."""
    if not refers_anything(project):
        return {}
    judgements = Judgement.objects.of_items(project)
    if task_ids is not None:
        judgements = judgements.filter(task_id__in=task_ids)
    labels = judgements.order_by().values_list("task_id", "label")
    rule = project.adjudication_rule if project.has_labels else Project.AdjudicationRule.OFF
    return referrals(labels, rule, project.adjudication_threshold, refer_ties=project.tie_route is not None)


def disputed_tasks(project: Project, task_ids: Collection[int] | None = None) -> set[int]:
    """The project's items (or those of ``task_ids``) whose current labels are disputed by its rule."""
    return {task for task, reason in referrals_of(project, task_ids).items() if reason == DISPUTED}


def route_of(project: Project, reason: str) -> str:
    """Where an item referred for ``reason`` goes: disputed items where the adjudication rule sends
    them, ties where the tie rule does."""
    if reason == TIE:
        return project.tie_route or project.adjudicated_by
    return project.adjudicated_by


def close_or_refer(project: Project, task_ids: Collection[int]) -> set[int]:
    """Complete each of these items that has its required judgements, or refer it by the rules;
    returns the items referred.

    Locks the tasks' rows (in id order, so that callers locking several never deadlock) before
    counting: two last judgements stored at once must not both miss the other's row under READ
    COMMITTED and leave the item open forever. An item is referred once: the first time it has
    its judgements and they are disputed or tied (unless a researcher has settled it already);
    after its extra judgement it completes whatever it says.
    """
    list(
        Task.objects.select_for_update(of=("self",))
        .filter(pk__in=task_ids, kind=Task.Kind.ITEM)
        .order_by("pk")
        .values_list("pk")
    )
    reached = dict(
        Task.objects.filter(pk__in=task_ids, kind=Task.Kind.ITEM)
        .annotate(judged=Count("judgements"))
        .filter(judged__gte=F("required_judgements"))
        .order_by()
        .values_list("pk", "referred_to")
    )
    if not reached:
        return set()
    reasons = referrals_on_reaching(project, reached)
    now = timezone.now()
    for reason in (DISPUTED, TIE):
        refer = [task for task, why in reasons.items() if why == reason]
        if refer and route_of(project, reason) == AdjudicatedBy.EXTRA_ASSESSOR:
            Task.objects.filter(pk__in=refer).update(
                required_judgements=F("required_judgements") + 1,
                referred_to=AdjudicatedBy.EXTRA_ASSESSOR,
                referral_reason=reason,
                referred_at=now,
                completed=False,
            )
        elif refer:
            Task.objects.filter(pk__in=refer).update(
                referred_to=AdjudicatedBy.RESEARCHER, referral_reason=reason, referred_at=now, completed=True
            )
    Task.objects.filter(pk__in=set(reached) - set(reasons), completed=False).update(completed=True)
    return set(reasons)


def referrals_on_reaching(project: Project, reached: dict[int, str]) -> dict[int, str]:
    """Of the items that have their required judgements now (``reached``: each with its
    ``referred_to``), those to refer, each with why: an item not referred before whose judgements
    are disputed or tied by the rules, unless a researcher has settled it already. The others
    complete. (``close_or_refer``'s decision; the judgement import's set-based path takes it too.)"""
    fresh = [task for task, referred in reached.items() if not referred]
    reasons = referrals_of(project, fresh) if fresh else {}
    for task in Adjudication.objects.in_force(project, reasons) if reasons else ():
        del reasons[task]  # a researcher has decided these already: no one else needs to
    return reasons


def apply_rule(project: Project) -> dict[str, int]:
    """Bring the items already judged in line with the project's (changed) rules; returns counts.

    1. Referrals the rules no longer make — or make for another reason, or to another place — are
       withdrawn where nobody has acted on them yet: an item waiting for its extra assessor with
       the extra slot still free needs one judgement fewer again and is complete; an item left
       for a researcher is no longer marked. An extra judgement already given, or leased, stays
       (so does any decision by hand).
    2. Complete items not yet referred that the rules refer are referred, as if their last
       judgement had just arrived (``close_or_refer``).
    """
    with transaction.atomic():
        wanted = referrals_of(project)  # none when neither rule refers anything
        items = Task.objects.filter(project=project, kind=Task.Kind.ITEM)
        withdrawn = 0
        for route in AdjudicatedBy:
            for reason in (DISPUTED, TIE):
                keep = {
                    task for task, why in wanted.items() if why == reason and route_of(project, why) == route
                }
                withdrawn += _withdraw(items.filter(referral_reason__in=_reasons_stored(reason)), route, keep)
        candidates = list(
            items.filter(pk__in=list(wanted), completed=True, referred_to="").values_list("pk", flat=True)
        )
        referred = close_or_refer(project, candidates)
        forget_task_facts(project.pk)
    return {"referred": len(referred), "withdrawn": withdrawn}


def _reasons_stored(reason: str) -> list[str]:
    # Referrals made before reasons were recorded were all by the adjudication rule.
    return [reason, ""] if reason == DISPUTED else [reason]


def describe_rule_change(outcome: dict[str, int]) -> str:
    """What ``apply_rule`` did, in words for the settings page."""
    referred, withdrawn = outcome["referred"], outcome["withdrawn"]
    return (
        f"Adjudication and tie rules applied to the items already judged: {referred} disputed or tied "
        f"item{'s' if referred != 1 else ''} referred, {withdrawn} referral{'s' if withdrawn != 1 else ''} "
        "withdrawn."
    )


def _withdraw(items, route: str, keep: set[int]) -> int:
    """Withdraw the referrals to ``route`` of items not in ``keep`` that nobody has acted on yet."""
    referred = items.filter(referred_to=route).exclude(pk__in=keep)
    if route == AdjudicatedBy.EXTRA_ASSESSOR:
        # The extra slot is free (no judgement, no lease): the item is back to its k, all judged.
        return referred.filter(completed=False, slots_taken__lt=F("required_judgements")).update(
            required_judgements=F("required_judgements") - 1,
            referred_to="",
            referral_reason="",
            referred_at=None,
            completed=True,
        )
    return referred.update(referred_to="", referral_reason="", referred_at=None)


# -- by hand -------------------------------------------------------------------------------------


def settle_refusal(project: Project, task: Task) -> str | None:
    """Why this item cannot be settled by hand, or None if it can."""
    if not project.has_labels:
        return (
            "Only label projects (binary or graded relevance, pairwise) are adjudicated: "
            "ratings are summarised and texts kept as written."
        )
    if task.project_id != project.pk or task.kind != Task.Kind.ITEM:
        return "Only items are adjudicated; gold and quality-control items have their answers already."
    if not task.judgements.exists():
        return "No one has judged this item yet: there is nothing to adjudicate."
    return None


def settle(task: Task, researcher, label: int | None, note: str = "") -> Adjudication:
    """Record a researcher's decision on an item's label (``None`` withdraws the one in force).

    The label is checked as an annotator's would be. A decision on an item waiting for its extra
    assessor ends that wait when the extra slot is still free (nobody has leased it): the
    researcher has decided. Announced like a judgement, so a new snapshot follows (debounced).
    """
    project = task.project
    refusal = settle_refusal(project, task)
    if refusal is not None:
        raise AdjudicationError(refusal)
    note = (note or "").strip()
    if len(note) > NOTE_MAX_CHARS:
        raise AdjudicationError(f"The note is at most {NOTE_MAX_CHARS} characters.")
    if "\x00" in note:  # PostgreSQL's text cannot hold it; a form would refuse it too
        raise AdjudicationError("The note cannot contain a NUL character.")
    if label is not None:
        try:
            label = project.type.validate_answer(project.config, {"label": label}, require_rationale=False)[
                "label"
            ]
        except AnswerError as error:
            raise AdjudicationError(str(error)) from error
    elif task.pk not in Adjudication.objects.in_force(project, [task.pk]):
        raise AdjudicationError("This item has no decision to withdraw.")
    with transaction.atomic():
        decision = Adjudication.objects.create(
            project=project, task=task, researcher=researcher, label=label, note=note
        )
        if label is not None:
            Task.objects.filter(
                pk=task.pk,
                referred_to=AdjudicatedBy.EXTRA_ASSESSOR,
                completed=False,
                slots_taken__lt=F("required_judgements"),
            ).update(
                required_judgements=F("required_judgements") - 1,
                referred_to=AdjudicatedBy.RESEARCHER,
                completed=True,
            )
        announce_judgements_changed(project.pk)
    return decision
