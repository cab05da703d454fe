"""Undoing mistakes on the collecting side: topics and documents deleted while nothing of them is
judged, a project archived (and unarchived), a lease released by hand. Each is planned first (what
will go, or why it cannot) and then done in one transaction with its entry in the project's history
(``annotation.projects.history``).

What is kept, and why:

- a **judged** topic or document is never deleted: its judgements are part of the ground truth and
  of every snapshot built from them (the refusal names each judged one and how many judgements it
  has). Answers to qualification questions count as judgements here.
- the **runs' lines** that name a deleted topic or document stay: a run is a system's output and is
  not rewritten. Neither was judged, so the qrels never held them: a deleted topic is not scored,
  and a deleted document counts as unjudged in the runs that retrieved it, as it did before.
- **archiving** deletes nothing: the project stops serving tasks, leaves its annotators' home
  pages, and its live leases end (their items go back to the pool); unarchiving undoes all of it
  but the leases.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import cast

from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from annotation.items.counts import forget_task_facts
from annotation.judging.assignment import release_lease
from annotation.models import (
    Assignment,
    Document,
    Judgement,
    Membership,
    Project,
    ProjectEvent,
    QualificationAttempt,
    Task,
    Topic,
)
from annotation.projects.history import Change, Refused, named, plural, record
from annotation.signals import judged_elsewhere

Action = ProjectEvent.Action
# Run lines are kept: the sentence each deletion's confirmation says about them.
RUN_LINES_KEPT = {
    "topic": "The runs' lines for them stay (a run is a system's output): a topic without judgements "
    "is not scored.",
    "document": "The runs' lines naming them stay (a run is a system's output): the runs that retrieved "
    "them count them as unjudged, as before.",
}


def requested_ids(ids: object, noun: str) -> list[str]:
    """The ids a request names (a list of strings), each once, in order; Refused (400) otherwise."""
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str | int) for i in ids):
        raise Refused(f'give the {noun}s\' ids as a list, e.g. ["7", "12"]', status=400, field="ids")
    return list(dict.fromkeys(str(i) for i in ids))


# -- topics and documents --------------------------------------------------------------------------


def plan_topic_deletion(project: Project, ids: Sequence[str]) -> Change:
    """Deleting these topics (by their ids) and everything to judge for them, or why not."""
    topics = {topic.external_id: topic for topic in project.topics.filter(external_id__in=list(ids))}
    tasks = Task.objects.filter(project=project, topic__in=list(topics.values()))
    return _deletion_plan(project, "topic", list(ids), topics, tasks, Action.TOPICS_DELETED)


def plan_document_deletion(project: Project, ids: Sequence[str]) -> Change:
    """Deleting these documents (by their ids) and the items that show them, or why not."""
    documents = {doc.external_id: doc for doc in project.documents.filter(external_id__in=list(ids))}
    chosen = list(documents.values())
    tasks = Task.objects.filter(Q(document__in=chosen) | Q(document_b__in=chosen), project=project)
    return _deletion_plan(project, "document", list(ids), documents, tasks, Action.DOCUMENTS_DELETED)


def _deletion_plan(
    project: Project,
    noun: str,
    ids: list[str],
    found: dict[str, Topic] | dict[str, Document],
    tasks: QuerySet[Task],
    action: str,
) -> Change:
    unknown = [
        f"ids[{position}]: no {noun} {i!r} in this project"
        for position, i in enumerate(ids)
        if i not in found
    ]
    if unknown:
        return Change(
            action,
            f"Nothing was deleted: {'; '.join(unknown)}.",
            refusal="; ".join(unknown),
            refusal_status=400,
        )
    judged = _judgements_per(noun, tasks)
    judged.update(_answered_qualification(project, noun, tasks))
    kept: list[tuple[str, Counter]] = [("judgement", judged)]
    answers = judged_elsewhere.send(sender=None, project=project, noun=noun, ids=ids)
    kept += [cast(tuple[str, Counter], answer) for _, answer in answers]
    if any(counts for _, counts in kept):
        reasons = [
            f"{noun} {external_id!r} has {plural(n, what)}"
            for what, counts in kept
            for external_id, n in sorted(counts.items(), key=lambda pair: ids.index(pair[0]))
        ]
        refusal = (
            f"Judged {noun}s cannot be deleted (their judgements are part of the ground truth): "
            + "; ".join(reasons)
            + f". Nothing was deleted; choose only {noun}s nobody has judged."
        )
        return Change(action, refusal, refusal=refusal)
    kinds = Counter(tasks.values_list("kind", flat=True).order_by())
    held = Assignment.objects.filter(
        task__in=tasks, status=Assignment.Status.ACTIVE, expires_at__gt=timezone.now()
    )
    leases = held.count()
    names = [f"{i} ({_short(found[i])})" for i in ids]
    to_judge = ", ".join(plural(n, kind_name(kind), kind_name(kind, 2)) for kind, n in sorted(kinds.items()))
    lines = [named(names, noun), f"Also deleted: {to_judge or 'nothing to judge'} (none of it judged)."]
    if leases:
        lines.append(
            f"{plural(leases, 'annotator is', 'annotators are')} looking at one of these items now: "
            f"{'that lease ends' if leases == 1 else 'those leases end'}."
        )
    lines.append(RUN_LINES_KEPT[noun])
    summary = f"Delete {named(names, noun)}, with {to_judge or 'nothing to judge'}."
    details = {
        f"{noun}s": [{"id": i, "title": _short(found[i])} for i in ids],
        "tasks": dict(sorted(kinds.items())),
        "leases_ended": leases,
    }
    return Change(action, summary, lines, details)


def kind_name(kind: str, count: int = 1) -> str:
    names = {"item": "item", "gold": "gold item", "qualification": "qualification question"}
    name = names.get(kind, f"{kind} check")
    return name if count == 1 else f"{name}s"


def _short(thing: Topic | Document) -> str:
    text = (thing.title or getattr(thing, "text", "") or "").strip()
    return text if len(text) <= 60 else text[:59] + "…"


def _judgements_per(noun: str, tasks: QuerySet[Task]) -> Counter:
    """Judgements on ``tasks`` per topic or document id (a pairwise item counts for both documents)."""
    judged: Counter = Counter()
    judgements = Judgement.objects.filter(task__in=tasks).order_by()
    if noun == "topic":
        judged.update(dict(judgements.values_list("task__topic__external_id").annotate(n=Count("id"))))
        return judged
    for column in ("task__document__external_id", "task__document_b__external_id"):
        for external_id, n in (
            judgements.exclude(**{column: None}).values_list(column).annotate(n=Count("id"))
        ):
            judged[external_id] += n
    return judged


def _answered_qualification(project: Project, noun: str, tasks: QuerySet[Task]) -> Counter:
    """Answers given to the qualification questions among ``tasks``, per topic or document id."""
    column = "topic__external_id" if noun == "topic" else "document__external_id"
    questions = dict(
        (str(pk), external_id)
        for pk, external_id in tasks.filter(kind=Task.Kind.QUALIFICATION).values_list("pk", column)
    )
    answered: Counter = Counter()
    if not questions:
        return answered
    attempts = QualificationAttempt.objects.filter(project=project, answers__has_any_keys=list(questions))
    for answers in attempts.values_list("answers", flat=True):
        answered.update(questions[key] for key in set(answers) & set(questions))
    return answered


def delete_topics(project: Project, actor, ids: Sequence[str]) -> tuple[Change, ProjectEvent]:
    """Delete these topics and what is to be judged for them, if none of it is judged (Refused if any is)."""
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()  # one change at a time
        change = plan_topic_deletion(project, ids)
        change.refuse_if_refused()
        project.topics.filter(external_id__in=list(ids)).delete()  # their tasks and leases cascade
        forget_task_facts(project.pk)
        return change, record(project, actor, change)


def delete_documents(project: Project, actor, ids: Sequence[str]) -> tuple[Change, ProjectEvent]:
    """Delete these documents and the items that show them, if none is judged (Refused if any is)."""
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        change = plan_document_deletion(project, ids)
        change.refuse_if_refused()
        project.documents.filter(external_id__in=list(ids)).delete()
        forget_task_facts(project.pk)
        return change, record(project, actor, change)


# -- archiving -------------------------------------------------------------------------------------


def live_leases(project: Project) -> QuerySet[Assignment]:
    """Leases held now in the project (unexpired, unsubmitted), oldest first, with who holds what."""
    return (
        Assignment.objects.filter(
            task__project=project, status=Assignment.Status.ACTIVE, expires_at__gt=timezone.now()
        )
        .select_related("annotator", "task__topic", "task__document", "task__document_b")
        .order_by("created_at", "id")
    )


def plan_archive(project: Project) -> Change:
    if not project.active:
        return Change(
            Action.PROJECT_ARCHIVED,
            "The project is archived already.",
            refusal="The project is archived already.",
        )
    members = Membership.objects.filter(project=project).exclude(status=Membership.Status.BLOCKED).count()
    leases = live_leases(project).count()
    summary = (
        f"Archive “{project.name}”: it stops serving tasks and leaves the home page of its "
        f"{plural(members, 'annotator')}; {plural(leases, 'lease')} held now "
        f"{'ends' if leases == 1 else 'end'} (the items go back to the pool)."
    )
    lines = [
        "Nothing is deleted: topics, documents, runs, judgements, ground truth and evaluations stay, "
        "and every page of yours keeps working.",
        "You can unarchive it at any time; annotators then see it again.",
    ]
    return Change(Action.PROJECT_ARCHIVED, summary, lines, {"annotators": members, "leases_ended": leases})


def plan_unarchive(project: Project) -> Change:
    if project.active:
        return Change(
            Action.PROJECT_UNARCHIVED, "The project is not archived.", refusal="The project is not archived."
        )
    members = Membership.objects.filter(project=project, status=Membership.Status.ACTIVE).count()
    summary = (
        f"Unarchive “{project.name}”: it serves tasks again to its {plural(members, 'active annotator')}."
    )
    return Change(Action.PROJECT_UNARCHIVED, summary, [], {"annotators": members})


def set_archived(project: Project, actor, archived: bool) -> tuple[Change, ProjectEvent]:
    """Archive (``archived``) or unarchive the project, ending its live leases when archiving."""
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()
        project.refresh_from_db(fields=["active"])
        change = plan_archive(project) if archived else plan_unarchive(project)
        change.refuse_if_refused()
        project.active = not archived
        project.save(update_fields=["active"])
        if archived:
            for lease in live_leases(project).values_list("pk", "task_id", "task__kind"):
                release_lease(*lease, Assignment.Status.EXPIRED)
            forget_task_facts(project.pk)
        return change, record(project, actor, change)


def record_active_setting(project: Project, actor, was_active: bool) -> ProjectEvent | None:
    """The settings form and the API's PATCH may switch ``active`` too: end the leases and write the
    history as archiving does (call it after the project was saved)."""
    if project.active == was_active:
        return None
    project.active = was_active  # plan from the state before the save, as the confirmation would
    change = plan_archive(project) if was_active else plan_unarchive(project)
    project.active = not was_active
    with transaction.atomic():
        if was_active:
            for lease in live_leases(project).values_list("pk", "task_id", "task__kind"):
                release_lease(*lease, Assignment.Status.EXPIRED)
        return record(project, actor, change)


# -- leases ----------------------------------------------------------------------------------------


def plan_lease_release(project: Project, lease: Assignment) -> Change:
    who, title = lease.annotator.get_username(), lease.task.title
    if not lease.is_live():
        ended = {"submitted": "was submitted", "skipped": "was skipped", "expired": "expired or was released"}
        message = (
            f"{who}'s lease on “{title}” {ended.get(lease.status, 'has ended')} already: nothing to release."
        )
        return Change(Action.LEASE_RELEASED, message, refusal=message)
    since, until = timezone.localtime(lease.created_at), timezone.localtime(lease.expires_at)
    summary = (
        f"Release {who}'s lease on “{title}” (held since {since:%Y-%m-%d %H:%M}, it would expire at "
        f"{until:%H:%M}): the item goes back to the pool for someone else."
    )
    lines = [
        f"{who} will not be given this item again (an annotator never gets an item twice); "
        "nothing they submitted is touched."
    ]
    details = {"annotator": who, "item": lease.task_id, "title": title, "lease": lease.pk}
    return Change(Action.LEASE_RELEASED, summary, lines, details)


def release_by_hand(project: Project, actor, lease: Assignment) -> tuple[Change, ProjectEvent]:
    with transaction.atomic():
        change = plan_lease_release(project, lease)
        change.refuse_if_refused()
        if not release_lease(lease.pk, lease.task_id, lease.task.kind, Assignment.Status.EXPIRED):
            raise Refused("The lease ended meanwhile: nothing to release.")
        return change, record(project, actor, change)
