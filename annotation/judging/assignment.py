"""The assignment engine: who may take which task, claiming, submitting, skipping and correcting.

Safe under concurrency on PostgreSQL without making annotators queue behind one another:

- a claim locks one open item row with ``SELECT … FOR UPDATE SKIP LOCKED`` and increments
  ``Task.slots_taken`` in the same transaction, so k annotators at most ever hold or have judged
  an item; a database check constraint keeps ``slots_taken <= k`` whatever happens above;
- one assignment and one judgement per (task, annotator) are unique constraints, so an
  annotator never gets the same task twice, even from two browser tabs;
- a submission is accepted only against the annotator's own live lease, checked at submit time
  under a lock on that lease row.

Gold items (known answers) and, for rating tasks, attention checks (repeats and degraded outputs)
are mixed into what an annotator is served at the project's rates; they do not use item slots.
An item whose k judgements are disputed under the project's adjudication rule gets one slot more
(``annotation.adjudication.rules``), which a claim gives, as any slot, to an annotator who never had it.
"""

from __future__ import annotations

import functools
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import IntegrityError, connection, transaction
from django.db.models import F, QuerySet
from django.utils import timezone

from annotation.adjudication.rules import close_or_refer, referrals_on_reaching, refers_anything, route_of
from annotation.items.counts import has_qualification_items
from annotation.judging.bulk import STAGE, NewJudgement, insert_judgements, insert_staged, stage
from annotation.judging.platforms import session_refusal
from annotation.models import (
    AdjudicatedBy,
    Assignment,
    Document,
    Judgement,
    JudgementRevision,
    Membership,
    Project,
    Task,
    Topic,
)
from annotation.signals import announce_judgements_changed
from annotation.task_types import AnswerError

# Pauses before each claim attempt. SKIP LOCKED hides rows that concurrent requests hold for a few
# milliseconds (a claim, or a submission counting the task's judgements); near the end of a
# campaign those can be all that is left, so a claim waits a little before it gives up.
CLAIM_BACKOFF_SECONDS = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1)

T = TypeVar("T")


class AssignmentError(Exception):
    """A request that cannot be accepted; the message says why, for the annotator."""


class ItemsBusy(AssignmentError):
    """Items remain for the annotator, but other annotators' requests hold every one right now."""


@dataclass(frozen=True)
class Submission:
    """A stored judgement and, for a gold item when the project gives feedback, what to say."""

    judgement: Judgement
    gold_feedback: str | None = None


# -- transactions ------------------------------------------------------------------------------


def _in_one_transaction(work: Callable[[], T]) -> T:
    """Run ``work`` in the caller's transaction (a new one if there is none), without a savepoint.

    Judging pages run in one transaction per request (ATOMIC_REQUESTS), and a savepoint per engine
    call costs two statements each time. An exception that leaves a block without a savepoint dooms
    the whole transaction, judgement included; the engine's refusals (AssignmentError) come before
    any write, so they are carried out of the block and raised after it. A database error still
    fails the whole request, and nothing of it is stored.
    """
    with transaction.atomic(savepoint=False):
        try:
            return work()
        except AssignmentError as error:
            refusal = error
    raise refusal


# -- who may work ------------------------------------------------------------------------------


def membership(project: Project, annotator) -> Membership | None:
    # order_by("pk"): the default ordering would join the project and user tables for nothing.
    return Membership.objects.filter(project=project, annotator=annotator).order_by("pk").first()


def needs_qualification(project: Project) -> bool:
    """Does the project have a qualification test? (Cached: asked on every claim and submission.)"""
    return has_qualification_items(project.pk)


def work_refusal(project: Project, annotator, member: Membership | None = None) -> str | None:
    """Why this annotator may not take tasks in this project now, or ``None`` if they may.

    ``member`` saves a query when the caller has the membership row already.
    """
    member = member or membership(project, annotator)
    if member is None:
        return "You are not an annotator of this project."
    if not project.active:
        return "This project is closed."
    if member.blocked:
        return "You can no longer take tasks in this project."
    if member.inactive:
        return "Your place in this project is not active yet: the researcher who runs it can activate it."
    if project.consent_text and member.consented_at is None:
        return "Read the consent form, and accept it, before judging in this project."
    if project.demographics and member.demographics_at is None:
        return "Answer the questions about yourself before judging in this project."
    if member.qualified_at is None and needs_qualification(project):
        return "Pass the qualification test before judging in this project."
    return None


# -- leases ------------------------------------------------------------------------------------


def release_expired_assignments(project: Project) -> int:
    """Return the slots of expired leases to the pool; returns how many were released."""
    expired = Assignment.objects.filter(
        task__project=project, status=Assignment.Status.ACTIVE, expires_at__lte=timezone.now()
    ).values_list("pk", "task_id", "task__kind")
    return sum(release_lease(*lease, Assignment.Status.EXPIRED) for lease in expired)


def release_lease(assignment_id: int, task_id: int, kind: str, status: str) -> bool:
    """End a live lease with ``status`` and give its item slot back; False if it was no longer live.

    The lease is flipped with a conditional UPDATE, so when two processes race (expiry, skip,
    blocking) only the one whose UPDATE changed the row returns the slot.
    """
    with transaction.atomic():
        flipped = Assignment.objects.filter(pk=assignment_id, status=Assignment.Status.ACTIVE).update(
            status=status
        )
        if flipped and kind == Task.Kind.ITEM:
            Task.objects.filter(pk=task_id).update(slots_taken=F("slots_taken") - 1)
    return bool(flipped)


def live_assignment(project: Project, annotator, *, with_task: bool = True) -> Assignment | None:
    """The annotator's unexpired, unsubmitted lease in this project, if any (``with_task``: with its
    task, topic and documents in the same query, as the judging page needs them)."""
    leases = Assignment.objects.filter(
        annotator=annotator,
        status=Assignment.Status.ACTIVE,
        task__project=project,
        expires_at__gt=timezone.now(),
    )
    if with_task:
        leases = leases.select_related("task__topic", "task__document", "task__document_b")
    return leases.first()


def _lease(project: Project, task: Task, annotator, shown: bool) -> Assignment:
    now = timezone.now()
    return Assignment.objects.create(
        task=task,
        annotator=annotator,
        expires_at=now + project.assignment_lease,
        shown_at=now if shown else None,
    )


def mark_shown(assignment: Assignment) -> None:
    """Record that the judging page is showing the task now, unless it was shown before.

    Time on task runs from the first showing: a reload or a second tab does not restart it. The
    conditional UPDATE makes two pages rendering at once agree on one moment in the database.
    """
    if assignment.shown_at is not None:
        return
    now = timezone.now()
    Assignment.objects.filter(pk=assignment.pk, shown_at__isnull=True).update(shown_at=now)
    assignment.shown_at = now


def _serving_order(project: Project) -> tuple[str, ...]:
    if project.serve_order == Project.ServeOrder.RANDOM:
        return ("serve_key", "id")
    return ("pool_rank", "id")


def _claim_item(project: Project, annotator, shown: bool) -> Assignment | None:
    """Lease the first open item (in the project's serving order) this annotator never had."""
    for pause in CLAIM_BACKOFF_SECONDS:
        time.sleep(pause)
        # No savepoint: claim_next_task's transaction holds the locks, and nothing here can fail
        # but the database itself (the row was locked with a free slot; the annotator never had it).
        with transaction.atomic(savepoint=False):
            task = _take_open_item(project, annotator)
            if task is not None:
                return _lease(project, task, annotator, shown)
        # Only say "nothing left" when no open task remains for this annotator even ignoring locks.
        if not _open_for(project, annotator).exists():
            return None
    # Not "nothing left": waiting on the locks instead could deadlock with a submission that holds
    # its own task row and claims next, so the annotator is asked to try again.
    raise ItemsBusy(
        "Every item left for you is being worked on by someone else right now; try again in a moment."
    )


def items_left_for(project: Project, annotator) -> str:
    """What is left for this annotator: ``"open"`` (a claim would lease an item), ``"held"`` (every
    item left is held by others' leases, and may come back if they skip it or their time runs out)
    or ``"none"`` (nothing, ever: the judging page then offers no "Get the next task" button)."""
    never_had = Task.objects.filter(project=project, kind=Task.Kind.ITEM, completed=False).exclude(
        assignments__annotator=annotator
    )
    if never_had.filter(slots_taken__lt=F("required_judgements")).exists():
        return "open"
    return "held" if never_had.exists() else "none"


def _open_for(project: Project, annotator) -> QuerySet[Task]:
    """The project's items with a free slot that this annotator was never assigned."""
    return Task.objects.filter(
        project=project, kind=Task.Kind.ITEM, completed=False, slots_taken__lt=F("required_judgements")
    ).exclude(assignments__annotator=annotator)


def _take_open_item(project: Project, annotator) -> Task | None:
    """Lock the first of ``_open_for`` in serving order that no concurrent claim holds
    (SKIP LOCKED), take one of its slots, and return it with its topic and documents (the judging
    page shows them next; they are read, not locked).

    On PostgreSQL this is one statement written out (``_claim_sql``): the ORM's version takes two
    statements and ~2.5 ms of CPU to build and compile them, on every judgement (bench_load's
    profile). Elsewhere (SQLite, which has no row locks) the ORM's version.
    """
    if connection.vendor != "postgresql":
        task = (
            _open_for(project, annotator)
            .select_for_update(skip_locked=True, of=("self",))
            .select_related("topic", "document", "document_b")
            .order_by(*_serving_order(project))
            .first()
        )
        if task is not None:
            Task.objects.filter(pk=task.pk).update(slots_taken=F("slots_taken") + 1)
            task.slots_taken += 1
        return task
    random_order = project.serve_order == Project.ServeOrder.RANDOM
    with connection.cursor() as cursor:
        cursor.execute(
            _claim_sql(random_order),
            {"project": project.pk, "kind": Task.Kind.ITEM, "annotator": annotator.pk},
        )
        row = cursor.fetchone()
    return None if row is None else _task_with_texts(row)


# The claim's result: the task and what the judging page shows of it, in this order.
_CLAIMED = (("taken", Task), ("topic", Topic), ("document", Document), ("document_b", Document))


@functools.cache
def _claim_sql(random_order: bool) -> str:
    """The claim on PostgreSQL: the same filter, order and lock as the ORM's version, the slot taken
    in the same statement, and the texts joined to the result."""
    task, assignment = Task._meta.db_table, Assignment._meta.db_table
    order = "t.serve_key, t.id" if random_order else "t.pool_rank, t.id"
    columns = ", ".join(
        f'{alias}."{field.column}"' for alias, model in _CLAIMED for field in model._meta.concrete_fields
    )
    return f"""
        WITH picked AS (
            SELECT t.id FROM {task} AS t
            WHERE t.project_id = %(project)s AND t.kind = %(kind)s AND NOT t.completed
              AND t.slots_taken < t.required_judgements
              AND NOT EXISTS (
                  SELECT 1 FROM {assignment} AS a WHERE a.task_id = t.id AND a.annotator_id = %(annotator)s
              )
            ORDER BY {order}
            LIMIT 1
            FOR UPDATE OF t SKIP LOCKED
        ), taken AS (
            UPDATE {task} AS t SET slots_taken = t.slots_taken + 1 FROM picked WHERE t.id = picked.id
            RETURNING t.*
        )
        SELECT {columns} FROM taken
        LEFT JOIN {Topic._meta.db_table} AS topic ON topic.id = taken.topic_id
        JOIN {Document._meta.db_table} AS document ON document.id = taken.document_id
        LEFT JOIN {Document._meta.db_table} AS document_b ON document_b.id = taken.document_b_id
    """


def _task_with_texts(row: Sequence[Any]) -> Task:
    """Model instances from a row of ``_claim_sql``, as the ORM would build them."""
    found: dict[str, Any] = {}
    offset = 0
    for alias, model in _CLAIMED:
        fields = model._meta.concrete_fields
        values = [
            field.from_db_value(value, None, connection) if hasattr(field, "from_db_value") else value
            for field, value in zip(fields, row[offset : offset + len(fields)], strict=True)
        ]
        offset += len(fields)
        found[alias] = (
            None if values[0] is None else model.from_db("default", [f.attname for f in fields], values)
        )
    task = found["taken"]
    task.topic, task.document, task.document_b = found["topic"], found["document"], found["document_b"]
    return task


def _check_candidates(project: Project, annotator) -> tuple[QuerySet[Task], QuerySet[Task]]:
    """Gold items, and attention checks, that may be shown to this annotator."""
    gold = Task.objects.filter(project=project, kind=Task.Kind.GOLD)
    degraded = Task.objects.filter(project=project, kind=Task.Kind.DEGRADED)
    # A repeat only makes sense after the annotator rated the item it repeats.
    repeat = Task.objects.filter(
        project=project, kind=Task.Kind.REPEAT, source_task__judgements__annotator=annotator
    )
    return gold, (degraded | repeat)


def _claim_check(project: Project, annotator, candidates: QuerySet[Task], shown: bool) -> Assignment | None:
    task = (
        candidates.exclude(assignments__annotator=annotator)
        .select_related("topic", "document", "document_b")
        .order_by("serve_key", "id")
        .first()
    )
    if task is None:
        return None
    try:
        with transaction.atomic():
            return _lease(project, task, annotator, shown)
    except IntegrityError:  # the same annotator claimed it from another tab a moment ago
        return None


def claim_next_task(
    project: Project,
    annotator,
    *,
    rng: random.Random | None = None,
    shown: bool = False,
    member: Membership | None = None,
    lease_just_ended: bool = False,
) -> Assignment | None:
    """Give the annotator a lease on their next task; ``None`` when no item is left for them.

    ``shown``: the caller renders the task in its response, so a new lease is stamped as shown
    now (``mark_shown`` stamps a lease the annotator already held). ``member``: the annotator's
    membership row, already locked by the caller in this transaction (``Membership.objects.locked``).
    ``lease_just_ended``: the caller, holding that lock, has just submitted or skipped the
    annotator's lease, so there is no live one to hand back (step 1 is skipped).

    1. An annotator who already holds a live lease in the project gets that one back.
    2. Refuse (AssignmentError) a non-member, a blocked or an unqualified annotator, a closed project,
       or a crowd worker whose session is full (``annotation.judging.platforms``).
       Claims of one annotator in one project run one at a time (a lock on their membership row).
    3. Expired leases are released.
    4. With probability ``gold_rate`` a gold item the annotator has not seen is served, and for
       rating tasks with probability ``attention_rate`` an attention check (a degraded output,
       or a repeat of an item they rated); if none is left, an ordinary item is served.
    5. Otherwise the first open item in serving order that the annotator has never been assigned
       and that no concurrent claim holds is locked, its slot counter incremented, and leased.
    Checks are served only while ordinary items remain, so they never pad out an empty queue.
    """

    def claim() -> Assignment | None:
        # One claim at a time per annotator and project (a double click must not lease two tasks):
        # the membership row is theirs alone, so this lock never makes others wait.
        locked = member or Membership.objects.locked(project, annotator)
        if not lease_just_ended:
            current = live_assignment(project, annotator, with_task=False)  # the page loads its own
            if current is not None:
                return current
        refusal = work_refusal(project, annotator, locked)
        if refusal is None and locked is not None and locked.joined_via == Membership.JoinedVia.STUDY_LINK:
            refusal = session_refusal(locked)  # a crowd worker's session has a size
        if refusal is not None:
            raise AssignmentError(refusal)
        return _claim(project, annotator, rng, shown)

    return _in_one_transaction(claim)


def _claim(project: Project, annotator, rng: random.Random | None, shown: bool) -> Assignment | None:
    """Steps 3 to 5 of ``claim_next_task``, inside its transaction."""
    release_expired_assignments(project)
    draw = (rng or random).random
    wants_gold = project.gold_rate > 0 and draw() < project.gold_rate
    wants_attention = project.is_rating and project.attention_rate > 0 and draw() < project.attention_rate
    if not (wants_gold or wants_attention):
        return _claim_item(project, annotator, shown)
    if not _open_for(project, annotator).exists():
        return None
    gold, attention = _check_candidates(project, annotator)
    check = None
    if wants_gold:
        check = _claim_check(project, annotator, gold, shown)
    if check is None and wants_attention:
        check = _claim_check(project, annotator, attention, shown)
    return check or _claim_item(project, annotator, shown)


# -- submitting, skipping, correcting ------------------------------------------------------------


def _as_answer(answer: dict | int) -> dict:
    return answer if isinstance(answer, dict) else {"label": answer}


def _validated(project: Project, answer: dict | int) -> dict:
    try:
        return project.type.validate_answer(project.config, _as_answer(answer))
    except AnswerError as error:
        raise AssignmentError(str(error)) from error


def _locked_lease(assignment_id: int, annotator, project: Project | None = None) -> Assignment:
    """The annotator's lease, locked, if it may still be answered; AssignmentError otherwise.
    With ``project`` the lease must be one of its tasks (the project is not read again)."""
    # Lock the lease row only: locking the joined task and project rows too would make every
    # submission in a project queue behind the others (and behind the ground-truth job).
    leases = Assignment.objects.select_for_update(of=("self",)).filter(pk=assignment_id, annotator=annotator)
    if project is None:
        assignment = leases.select_related("task", "task__project").first()
    else:
        assignment = leases.select_related("task").filter(task__project=project).first()
        if assignment is not None:
            assignment.task.project = project
    if assignment is None:
        raise AssignmentError("This task is not assigned to you.")
    if assignment.status == Assignment.Status.SUBMITTED:
        raise AssignmentError("You have already judged this task.")
    if assignment.status == Assignment.Status.SKIPPED:
        raise AssignmentError("You skipped this task.")
    if not assignment.is_live():
        # A lease ends early when its annotator is blocked or the project closes: say that, not
        # that their time ran out.
        refusal = work_refusal(assignment.task.project, annotator)
        raise AssignmentError(refusal or "Your time on this task ran out; it has gone back to the pool.")
    return assignment


def gold_feedback_text(project: Project, task: Task, answer: dict) -> str:
    expected = project.type.describe_answer(project.config, task.gold_answer or {})
    verdict = "Correct" if project.type.answers_agree(task.gold_answer or {}, answer) else "Not quite"
    text = f"{verdict}: that was a check item; the expected answer is {expected}."
    if task.gold_explanation:
        text += f" {task.gold_explanation}"
    return text


def seconds_since(moment, now) -> float | None:
    """Seconds from ``moment`` to ``now``; None when there is no moment (a task never shown)."""
    return None if moment is None else max(0.0, (now - moment).total_seconds())


def submit_judgement(
    assignment_id: int, annotator, answer: dict | int, *, member: Membership | None = None
) -> Submission:
    """Store a judgement against a live lease of this annotator; raise AssignmentError otherwise.

    ``answer`` is the task type's answer (``{"label": 1}``, ``{"scores": {...}}``, ``{"text": …}``),
    or a bare integer label. The lease is checked at submit time, under a row lock, so an expired,
    skipped or foreign lease can never produce a judgement; the answer is validated against the
    project's task type, and the first revision is stored with it. ``member``: the annotator's
    membership row with its project, locked by the caller in this transaction; the lease must be
    in that project (the membership is then not read again).
    """
    return _in_one_transaction(lambda: _submit(assignment_id, annotator, answer, member))


def _submit(assignment_id: int, annotator, answer: dict | int, member: Membership | None) -> Submission:
    assignment = _locked_lease(assignment_id, annotator, member.project if member else None)
    task = assignment.task
    project = member.project if member else task.project
    refusal = work_refusal(project, annotator, member) if member else work_refusal(project, annotator)
    if refusal is not None:
        raise AssignmentError(refusal)
    cleaned = _validated(project, answer)
    # Every refusal is above this line: from here on the judgement is written.
    now = timezone.now()
    # No savepoint around the INSERT: one judgement per (task, annotator) is a unique constraint,
    # but only this lease (locked, live) can produce one, so it cannot fail here; if it ever did,
    # the request fails whole and nothing is stored twice.
    judgement = Judgement.objects.create(
        project_id=task.project_id,
        task=task,
        annotator=annotator,
        assignment=assignment,
        label=cleaned.get("label"),
        answer=cleaned,
        seconds_spent=(now - assignment.created_at).total_seconds(),
        seconds_on_task=seconds_since(assignment.shown_at, now),
    )
    JudgementRevision.objects.create(judgement=judgement, number=1, label=judgement.label, answer=cleaned)
    assignment.status = Assignment.Status.SUBMITTED
    assignment.save(update_fields=["status"])
    if task.kind == Task.Kind.ITEM:
        # Two last judgements of a task can be inserted concurrently; under READ COMMITTED
        # neither would see the other's row and the task would stay open forever.
        # ``close_or_refer`` locks the task row (only this task, so other submissions never wait)
        # so the later one counts after the earlier one has committed (lock order lease -> task,
        # as elsewhere), then completes the item or refers it by the project's adjudication rule.
        # The cached item counts are not forgotten here: if the counter on the judging page moved
        # right after an item's submission and not after a gold item's, an annotator could tell
        # which was which. It catches up within ITEM_COUNTS_SECONDS.
        close_or_refer(project, [task.pk])
    announce_judgements_changed(project.pk)
    feedback = None
    if task.kind == Task.Kind.GOLD and project.gold_feedback:
        feedback = gold_feedback_text(project, task, cleaned)
    return Submission(judgement, feedback)


def skip_task(assignment_id: int, annotator, *, member: Membership | None = None) -> None:
    """Give up a leased task: its slot returns to the pool and this annotator is never served it again.

    ``member``: as for ``submit_judgement``.
    """

    def skip() -> None:
        assignment = _locked_lease(assignment_id, annotator, member.project if member else None)
        release_lease(assignment.pk, assignment.task_id, assignment.task.kind, Assignment.Status.SKIPPED)

    _in_one_transaction(skip)


def last_judgement(project: Project, annotator) -> Judgement | None:
    """The annotator's most recently submitted judgement in the project (the one "undo" reopens)."""
    return (
        Judgement.objects.filter(project=project, annotator=annotator).order_by("-created_at", "-id").first()
    )


def correct_judgement(judgement_id: int, annotator, answer: dict | int) -> Judgement:
    """Replace the annotator's own answer while the project is open; the old version is kept.

    Each correction appends a ``JudgementRevision``; the judgement row holds the newest answer.
    Gold accuracy is always scored on the first revision, so a correction made after gold
    feedback cannot raise it.
    """
    with transaction.atomic():
        judgement = (
            Judgement.objects.select_for_update(of=("self",))
            .select_related("task__project")
            .filter(pk=judgement_id, annotator=annotator)
            .first()
        )
        if judgement is None:
            raise AssignmentError("This is not one of your judgements.")
        project = judgement.task.project
        if not project.active:
            raise AssignmentError("This project is closed; judgements can no longer be corrected.")
        member = membership(project, annotator)
        if member is None or member.blocked:
            raise AssignmentError("You can no longer change judgements in this project.")
        cleaned = _validated(project, answer)
        if cleaned == judgement.answer:
            return judgement
        judgement.revision += 1
        judgement.answer = cleaned
        judgement.label = cleaned.get("label")
        judgement.save(update_fields=["revision", "answer", "label", "updated_at"])
        JudgementRevision.objects.create(
            judgement=judgement, number=judgement.revision, label=judgement.label, answer=cleaned
        )
        if judgement.task.kind == Task.Kind.ITEM:  # a correction can make a judged item disputed
            close_or_refer(project, [judgement.task_id])
        announce_judgements_changed(project.pk)
        return judgement


# -- judgements made elsewhere -------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedJudgement:
    """A judgement made away from the judging page: by a simulation, or collected elsewhere."""

    task: Task
    annotator: Any
    answer: dict | int
    seconds_spent: float | None = None


def record_judgements(project: Project, judgements: Sequence[RecordedJudgement]) -> list[Judgement]:
    """Store judgements as if each annotator had claimed the task and submitted it at once.

    1. Refuse (AssignmentError), storing nothing: an annotator who may not work in the project
       now (``work_refusal``), a task that is not an item of the project, an answer the task type
       rejects, more judgements for a task than it has free slots.
    2. Lock the tasks' rows (as a submission does) and store, per judgement, a submitted lease,
       the judgement and its first revision; an annotator who already had the task, or appears
       twice for it, is refused by the unique constraints, as on the judging page.
    3. Take the tasks' slots, complete those that reach k judgements (or refer them, by the
       project's adjudication rule), announce the change once.

    One statement per kind of row (``annotation.judging.bulk``) rather than ~20 per judgement: the
    demo's 1,635 simulated judgements take about a second this way and 35 s through claim and
    submit on SQLite.
    """
    with transaction.atomic():
        answers = _recordable_answers(project, judgements)
        wanted = Counter(j.task.pk for j in judgements)
        take_slots(wanted)
        try:
            with transaction.atomic():
                keys = insert_judgements(
                    project.pk,
                    [
                        # Made away from the judging page: the time given is the time on task.
                        NewJudgement(j.task.pk, j.annotator.pk, answer, j.seconds_spent)
                        for j, answer in zip(judgements, answers, strict=True)
                    ],
                )
        except IntegrityError as error:
            raise AssignmentError("An annotator would judge the same task twice.") from error
        close_or_refer(project, list(wanted))
        if keys:
            announce_judgements_changed(project.pk)
        stored = Judgement.objects.in_bulk(keys)
        return [stored[key] for key in keys]


def _recordable_answers(project: Project, judgements: Sequence[RecordedJudgement]) -> list[dict]:
    """Step 1 of ``record_judgements`` but the slots: the validated answers, or AssignmentError."""
    for annotator in {j.annotator for j in judgements}:
        refusal = work_refusal(project, annotator)
        if refusal is not None:
            raise AssignmentError(f"{annotator}: {refusal}")
    for j in judgements:
        if j.task.project_id != project.pk or j.task.kind != Task.Kind.ITEM:
            raise AssignmentError(f"Task {j.task.pk} is not an item of this project.")
    return [_validated(project, j.answer) for j in judgements]


def take_slots(wanted: Counter[int], *, only_open: bool = True) -> None:
    """Lock the tasks' rows, check they have the slots wanted (AssignmentError naming the first few
    that have not), and take them: one statement per distinct count. ``only_open``: a completed
    task has no slot to give (judgements imported from elsewhere may fill any slot left)."""
    tasks = Task.objects.select_for_update(of=("self",)).filter(pk__in=wanted)
    free = dict(
        (tasks.filter(completed=False) if only_open else tasks)
        .order_by()
        .values_list("pk", F("required_judgements") - F("slots_taken"))
    )
    short = [task for task, count in wanted.items() if free.get(task, 0) < count]
    if short:
        raise AssignmentError(f"Tasks {sorted(short)[:5]} do not have that many free slots.")
    for count in set(wanted.values()):
        taking = [task for task, n in wanted.items() if n == count]
        Task.objects.filter(pk__in=taking).update(slots_taken=F("slots_taken") + count)


def record_staged(project: Project, wanted: Counter[int], lines: Iterable[str]) -> None:
    """On PostgreSQL, judgements made elsewhere (``bulk.staged_line``s, in order; ``wanted``: how
    many of them each task gets) stored set-based: ``take_slots(wanted, only_open=False)``, then
    ``insert_judgements``, then ``close_or_refer`` of the tasks — the same rows, the same refusals —
    with one UPDATE per task instead of three (slots taken, then completed or referred).

    The judgements go in by COPY into a temporary table before any lock is taken; then the tasks'
    rows are locked in id order and their free slots checked (AssignmentError naming the first few
    short), the three rows of each judgement inserted from the staged table (a second judgement of
    a task by one annotator: IntegrityError), and each task's counter, completion and referral
    written at once: an item whose judgements, counted under the lock, reach its required number
    completes, or is referred by ``referrals_on_reaching`` as ``close_or_refer`` does.
    """
    stage(lines)
    task_table = connection.ops.quote_name(Task._meta.db_table)
    judgement_table = connection.ops.quote_name(Judgement._meta.db_table)
    staged_tasks = f"SELECT task_id FROM {STAGE}"
    with connection.cursor() as cursor:
        # ORDER BY is applied before the locks are taken: in id order, as every path locks tasks.
        cursor.execute(
            f"SELECT id, required_judgements - slots_taken FROM {task_table}"
            f" WHERE id IN ({staged_tasks}) ORDER BY id FOR UPDATE"
        )
        free = dict(cursor.fetchall())
    short = [task for task, count in wanted.items() if free.get(task, 0) < count]
    if short:
        raise AssignmentError(f"Tasks {sorted(short)[:5]} do not have that many free slots.")
    insert_staged(project.pk, timezone.now(), keys=False)
    # Counted under the locks, after the insert: a judgement stored elsewhere meanwhile commits only
    # after its own ``close_or_refer`` has waited for them.
    judged = f"(SELECT count(*) FROM {judgement_table} AS j WHERE j.task_id = t.id)"
    reasons: dict[int, str] = {}
    if refers_anything(project):
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT t.id, t.referred_to FROM {task_table} AS t WHERE t.id IN ({staged_tasks})"
                f" AND t.kind = %s AND {judged} >= t.required_judgements",
                [Task.Kind.ITEM],
            )
            reached = dict(cursor.fetchall())
        reasons = referrals_on_reaching(project, reached) if reached else {}
    referred = sorted(reasons)
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE {task_table} AS t SET
                slots_taken = t.slots_taken + v.taken,
                required_judgements = t.required_judgements + CASE WHEN r.route = %(extra)s THEN 1 ELSE 0 END,
                completed = CASE
                    WHEN r.route = %(extra)s THEN false
                    WHEN r.route IS NOT NULL THEN true
                    WHEN t.kind = %(item)s AND {judged} >= t.required_judgements THEN true
                    ELSE t.completed END,
                referred_to = coalesce(r.route, t.referred_to),
                referral_reason = coalesce(r.reason, t.referral_reason),
                referred_at = CASE WHEN r.route IS NULL THEN t.referred_at ELSE %(now)s END
            FROM (SELECT task_id, count(*) AS taken FROM {STAGE} GROUP BY task_id) AS v
            LEFT JOIN unnest(%(referred)s::bigint[], %(routes)s::text[], %(reasons)s::text[])
                AS r (id, route, reason) ON r.id = v.task_id
            WHERE t.id = v.task_id
            """,
            {
                "extra": AdjudicatedBy.EXTRA_ASSESSOR.value,
                "item": Task.Kind.ITEM.value,
                "now": timezone.now(),
                "referred": referred,
                "routes": [route_of(project, reasons[task]) for task in referred],
                "reasons": [reasons[task] for task in referred],
            },
        )


# -- blocking ------------------------------------------------------------------------------------


def block_annotator(project: Project, annotator, reason: str = "") -> int:
    """Block an annotator: no more tasks, and their live leases go back to the pool (returned count)."""
    with transaction.atomic():
        Membership.objects.filter(project=project, annotator=annotator).update(
            status=Membership.Status.BLOCKED, blocked_reason=reason[:300]
        )
        live = Assignment.objects.filter(
            task__project=project, annotator=annotator, status=Assignment.Status.ACTIVE
        ).values_list("pk", "task_id", "task__kind")
        released = sum(release_lease(*lease, Assignment.Status.EXPIRED) for lease in live)
        if project.exclude_blocked_from_ground_truth:
            announce_judgements_changed(project.pk)
        return released


def unblock_annotator(project: Project, annotator) -> None:
    Membership.objects.filter(project=project, annotator=annotator).update(
        status=Membership.Status.ACTIVE, blocked_reason=""
    )
    if project.exclude_blocked_from_ground_truth:
        announce_judgements_changed(project.pk)
