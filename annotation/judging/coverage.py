"""Can every item get its k judgements? Eligible annotators, items stranded below k, and the ways out.

Each item needs k judgements from k *different* annotators, and an annotator never gets an item
twice — not after judging it, not after skipping it, not after letting its lease run out. So a
project with fewer eligible annotators than k never completes an item, and with exactly k
annotators a single skip strands that item for good (the demo's k = 3 and three annotators). The
pages used to say nothing; these functions let them say what is wrong and offer the way out.

``k_problem`` is pure; the rest read the database.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypedDict

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db import connection, transaction
from django.db.models import Count, ExpressionWrapper, F, IntegerField, Q, QuerySet, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from annotation.items.counts import forget_task_facts
from annotation.judging.assignment import needs_qualification, release_expired_assignments
from annotation.models import Assignment, Membership, Project, Task

if TYPE_CHECKING:  # a type checker's helper, installed with the dev extra only: never at run time
    from django_stubs_ext import WithAnnotations

# How many stranded items the project page lists by name (the count covers all of them).
STRANDED_SHOWN = 20


# Where the way out is, for messages shown away from the pages that link to it.
HOW_TO_BRING_IN = (
    "Annotators come in on the project's Annotators page: create accounts, send invitation links or "
    "share the sign-up code."
)


def k_problem(k: int, eligible: int) -> str | None:
    """Why ``k`` judgements per item cannot come from ``eligible`` annotators, or None if they can."""
    if k <= eligible:
        return None
    needs = "every item needs an annotator" if k == 1 else f"every item needs {k} different annotators"
    if eligible == 0:
        at_least = "one" if k == 1 else f"at least {k}"
        return f"k = {k}: {needs}, and this project has no eligible annotator yet. Bring in {at_least}."
    verb = "is" if eligible == 1 else "are"
    more = k - eligible
    return (
        f"k = {k}: {needs}, but only {eligible} {verb} eligible, so no item could ever be complete. "
        f"Lower k to {eligible}, or bring in {more} more annotator{'s' if more != 1 else ''} first."
    )


def _can_log_in() -> Q:
    # An account without a usable password (the demo's simulated annotators, a bundle's annotators)
    # is a member on paper only: nobody can log in to judge as it. A crowd worker's has none either,
    # but their study link logs them in.
    return Q(annotator__is_active=True) & (
        ~Q(annotator__password__startswith=UNUSABLE_PASSWORD_PREFIX)
        | Q(joined_via=Membership.JoinedVia.STUDY_LINK)
    )


def open_crowd(project: Project) -> bool:
    """Does an open study link bring new workers in? Then k never lacks annotators: more will come."""
    return project.active and project.study_links.filter(active=True).exists()


def eligible_memberships(project: Project) -> QuerySet[Membership]:
    """Members who may judge now or after the qualification test: not blocked, able to log in, and
    qualified, or not yet but with attempts left (or the project has no test)."""
    members = Membership.objects.filter(_can_log_in(), project=project, status=Membership.Status.ACTIVE)
    if needs_qualification(project):
        members = members.annotate(
            attempts=Count(
                "annotator__qualification_attempts",
                filter=Q(annotator__qualification_attempts__project=project),
            )
        ).filter(Q(qualified_at__isnull=False) | Q(attempts__lt=project.qualification_attempts_allowed))
    return members.order_by("annotator__username")


def k_problem_of(project: Project) -> str | None:
    """``k_problem`` of the project as it is now."""
    if open_crowd(project):
        return None
    return k_problem(project.assignments_per_task, eligible_memberships(project).count())


def eligible_among(project: Project | None, users: Iterable) -> list:
    """Which of ``users`` would be eligible annotators of ``project`` (None: a project not yet saved)
    if they were its members: what a form or API call that names the annotators would leave."""
    users = list(users)
    ids = [user.pk for user in users]
    able = set(
        get_user_model()
        .objects.filter(pk__in=ids, is_active=True)
        .exclude(password__startswith=UNUSABLE_PASSWORD_PREFIX)
        .values_list("pk", flat=True)
    )
    if project is not None and project.pk:
        members = set(Membership.objects.filter(project=project).values_list("annotator_id", flat=True))
        eligible_members = set(eligible_memberships(project).values_list("annotator_id", flat=True))
        able = {pk for pk in able if pk not in members or pk in eligible_members}
    return [user for user in users if user.pk in able]


@dataclass(frozen=True)
class StrandedItem:
    """An open item that cannot reach its k: fewer annotators may still take it than it lacks."""

    task_id: int
    title: str  # topic and document titles (``Task.title``)
    judged: int
    required: int
    reachable: int  # judgements it can still get in all: done + held in live leases + annotators left


@dataclass(frozen=True)
class Coverage:
    """Whether the project's items can get their k judgements, for the project and annotator pages."""

    k: int
    eligible: list[str]
    k_problem: str | None
    stranded_count: int = 0
    # Stranded items nobody at all may take now (no live lease, no eligible annotator left).
    untouchable_count: int = 0
    stranded: list[StrandedItem] = field(default_factory=list)
    lowerable_count: int = 0  # stranded items whose k can be lowered to what they can reach (≥ 1)


class ItemReach(TypedDict):
    judged: int
    held: int
    touched: int
    reachable: int


def _stranded_items(project: Project, eligible_ids: list[int]) -> QuerySet[WithAnnotations[Task, ItemReach]]:
    now = timezone.now()
    submitted = Q(assignments__status=Assignment.Status.SUBMITTED)
    live = Q(assignments__status=Assignment.Status.ACTIVE, assignments__expires_at__gt=now)
    # Every judgement has its (submitted) lease, so counting leases counts judgements too.
    # An item nobody has had can reach every eligible annotator: it is stranded only when its k is
    # above their number. The rest are the items with a lease (at 1,000,000 items most have none):
    # the counts below are made for those only, not grouped over every open item of the project.
    # One set of ids, not an OR of two conditions: PostgreSQL ran the OR's subquery once per open item.
    open_items = Task.objects.filter(project=project, kind=Task.Kind.ITEM, completed=False)
    had = Assignment.objects.filter(task__in=open_items).order_by().values("task_id")
    beyond_reach = open_items.filter(required_judgements__gt=len(eligible_ids)).order_by().values("pk")
    items = open_items.filter(pk__in=had.union(beyond_reach)).annotate(
        judged=Count("assignments", filter=submitted),
        held=Count("assignments", filter=live),
        # With no eligible annotator an empty IN () inside the count's filter made Django answer the
        # whole query with no rows, hiding every stranded item (a test found it).
        touched=Count("assignments", filter=Q(assignments__annotator_id__in=eligible_ids))
        if eligible_ids
        else Value(0, output_field=IntegerField()),
    )
    # Eligible annotators who never had the item are the only ones who may still take it.
    reachable = ExpressionWrapper(
        F("judged") + F("held") + Value(len(eligible_ids)) - F("touched"), output_field=IntegerField()
    )
    return items.annotate(reachable=reachable).filter(reachable__lt=F("required_judgements"))


def project_coverage(project: Project) -> Coverage:
    """The eligible annotators, whether k fits them, and the open items that can never reach k."""
    eligible = list(eligible_memberships(project).values_list("annotator_id", "annotator__username"))
    eligible_ids = [pk for pk, _ in eligible]
    k = project.assignments_per_task
    # The stranded items are grouped with their leases once (0.4 s a grouping at 1,000,000 items: the
    # counts and the listed rows used to group them twice), the counts over all of them taken by
    # window functions beside the first rows; the few listed are then read with their titles by key.
    stranded = _stranded_items(project, eligible_ids).values_list(
        "pk", "pool_rank", "judged", "held", "reachable", "required_judgements"
    )
    inner, params = stranded.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.pk, s.judged, s.reachable, s.required_judgements, COUNT(*) OVER (), "
            "SUM(CASE WHEN s.held = 0 AND s.reachable = s.judged THEN 1 ELSE 0 END) OVER (), "
            "SUM(CASE WHEN s.reachable >= 1 THEN 1 ELSE 0 END) OVER () "
            f"FROM ({inner}) s ORDER BY s.pool_rank, s.pk LIMIT %s",
            (*params, STRANDED_SHOWN),
        )
        listed = cursor.fetchall()
    titled = Task.objects.select_related("topic", "document", "document_b").in_bulk(
        [row[0] for row in listed]
    )
    total, untouchable, lowerable = listed[0][4:] if listed else (0, 0, 0)
    crowd = open_crowd(project)
    if crowd:  # no item is stranded while new workers may arrive
        listed, total, untouchable, lowerable = [], 0, 0, 0
    return Coverage(
        k=k,
        eligible=[name for _, name in eligible],
        k_problem=None if crowd else k_problem(k, len(eligible)),
        stranded_count=total,
        untouchable_count=untouchable,
        lowerable_count=lowerable,
        stranded=[
            StrandedItem(
                task_id=pk, title=titled[pk].title, judged=judged, required=required, reachable=reachable
            )
            for pk, judged, reachable, required, *_ in listed
        ],
    )


def lower_k_of_stranded_items(project: Project) -> int:
    """Lower each stranded item's k to the judgements it can still get (at least 1); returns how many
    items changed. Those that already have that many judgements are complete at once.

    1. Expired leases are released first, so that the slots they held count for nothing.
    2. The stranded items' rows are locked (in id order, as claims never wait on them: SKIP LOCKED)
       and found again under the lock, so a claim or submission between reading and writing cannot
       make the new k too low; k never goes below the slots taken (the table's check constraint).
    """
    release_expired_assignments(project)
    eligible_ids = list(eligible_memberships(project).values_list("annotator_id", flat=True))
    with transaction.atomic():
        ids = list(
            _stranded_items(project, eligible_ids).filter(reachable__gte=1).values_list("pk", flat=True)
        )
        list(Task.objects.select_for_update(of=("self",)).filter(pk__in=ids).order_by("pk").values_list("pk"))
        rows = list(
            _stranded_items(project, eligible_ids)
            .filter(pk__in=ids, reachable__gte=1)
            .values_list("pk", "reachable", "judged", "slots_taken")
        )
        for pk, reachable, judged, slots_taken in rows:
            k = max(reachable, slots_taken, 1)
            Task.objects.filter(pk=pk).update(required_judgements=k, completed=judged >= k)
    forget_task_facts(project.pk)
    return len(rows)


def apply_k_to_items(project: Project, old_k: int) -> int:
    """After the project's k changed from ``old_k``: give the new k to every item that had the old one
    (items whose k was set on their own, lowered because stranded, keep it); returns how many.

    Lowering k completes the items that already have that many judgements; raising it reopens
    complete items for more. k never goes below an item's slots taken (live leases and judgements):
    such an item is complete once its leases are submitted.
    """
    new_k = project.assignments_per_task
    if new_k == old_k:
        return 0
    release_expired_assignments(project)  # before the task rows are locked: the lease -> task lock order
    with transaction.atomic():
        items = Task.objects.filter(project=project, kind=Task.Kind.ITEM, required_judgements=old_k)
        ids = list(items.select_for_update(of=("self",)).order_by("pk").values_list("pk", flat=True))
        Task.objects.filter(pk__in=ids).update(required_judgements=Greatest(Value(new_k), F("slots_taken")))
        judged = Task.objects.filter(pk__in=ids).annotate(n=Count("judgements"))
        complete = list(judged.filter(n__gte=F("required_judgements")).values_list("pk", flat=True))
        Task.objects.filter(pk__in=ids).update(completed=False)
        Task.objects.filter(pk__in=complete).update(completed=True)
    forget_task_facts(project.pk)
    return len(ids)
