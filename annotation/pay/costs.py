"""What a project's crowd workers have earned and what the campaign costs: the work read from the
database (judgements, time on task, gold answers, sessions) and handed to ``annotation.crowd.pay``.

Only the workers who came in by a study link are paid; accounts a researcher made, invitations and
sign-up codes bring people who are not paid through Cranfield. The budget guard (``budget_refusal``)
is asked at every claim of a link worker, so it reads two aggregates and no judgement row.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.core.cache import cache
from django.db.models import Count, F, FloatField, Q, Sum
from django.db.models.functions import Coalesce

from annotation.crowd.pay import (
    ZERO,
    CampaignCost,
    PaySettings,
    WorkerPay,
    WorkerWork,
    campaign_cost,
    cents,
    cost_of_next,
    median_seconds_per_judgement,
    next_exceeds_budget,
)
from annotation.models import (
    Assignment,
    Judgement,
    Membership,
    Payment,
    PlatformWorker,
    Project,
    ProjectPay,
    StudySession,
    Task,
)


def project_pay(project: Project) -> ProjectPay:
    """The project's pay settings; the defaults (unsaved) when the researcher has set none."""
    found = ProjectPay.objects.filter(project=project).first()
    return found or ProjectPay(project=project)


def pay_settings(pay: ProjectPay) -> PaySettings:
    return PaySettings(
        currency=pay.currency,
        rate_per_judgement=Decimal(pay.per_judgement),
        rate_per_hour=Decimal(pay.per_hour),
        fee_percent=Decimal(pay.fee_percent),
        bonus_per_gold_right=Decimal(pay.bonus_per_gold_right),
        accuracy_bonus=Decimal(pay.accuracy_bonus),
        accuracy_threshold=pay.accuracy_threshold,
        accuracy_min_gold=pay.accuracy_min_gold,
        session_bonus=Decimal(pay.session_bonus),
        minimum_hourly=Decimal(pay.minimum_hourly),
        budget=None if pay.budget is None else Decimal(pay.budget),
    )


# Time on task as the judging page measured it; a judgement sent without being shown (an API
# client's) counts its time from the lease.
SECONDS = Coalesce(F("seconds_on_task"), F("seconds_spent"), 0.0, output_field=FloatField())


@dataclass(frozen=True)
class PaidWorker:
    worker: PlatformWorker
    work: WorkerWork
    blocked: bool


def paid_workers(project: Project) -> tuple[list[PaidWorker], int]:
    """Every link worker of the project with their work: judgements kept and discarded (a blocked
    worker's, when the project leaves them out of the ground truth), seconds on task, gold answered
    and right, sessions completed; and the judgements still needed for every item to have its k
    (whoever gives them).

    Read in one pass over the project's judgements grouped by annotator (everyone's: the total is
    what the remaining judgements are counted from), with the checks' few judgements apart: at 100,000
    judgements a join of every judgement to its task cost as much as the rest of the page.
    """
    workers = list(PlatformWorker.objects.filter(project=project).select_related("annotator").order_by("pk"))
    judged = {
        row["annotator_id"]: row
        for row in Judgement.objects.filter(project=project)
        .values("annotator_id")
        .annotate(n=Count("id"), seconds=Sum(SECONDS))
    }
    checks = Task.objects.filter(project=project).exclude(kind=Task.Kind.ITEM)
    gold: dict[int, list[bool]] = {}
    on_checks = 0
    for annotator_id, answer, kind, expected in Judgement.objects.filter(
        task__in=checks.values("pk")
    ).values_list("annotator_id", "answer", "task__kind", "task__gold_answer"):
        on_checks += 1
        if kind == Task.Kind.GOLD:
            gold.setdefault(annotator_id, []).append(project.type.answers_agree(expected or {}, answer))
    needed = Task.objects.filter(project=project, kind=Task.Kind.ITEM).aggregate(
        k=Coalesce(Sum("required_judgements"), 0)
    )["k"]
    remaining = max(0, needed - (sum(row["n"] for row in judged.values()) - on_checks))
    sessions = dict(
        StudySession.objects.filter(worker__project=project, outcome=StudySession.Outcome.COMPLETED)
        .values("worker_id")
        .annotate(n=Count("id"))
        .values_list("worker_id", "n")
    )
    blocked = set(
        Membership.objects.filter(
            project=project, status=Membership.Status.BLOCKED, joined_via=Membership.JoinedVia.STUDY_LINK
        ).values_list("annotator_id", flat=True)
    )
    found = []
    for worker in workers:
        row = judged.get(worker.annotator_id, {"n": 0, "seconds": 0.0})
        count = int(row["n"])
        discarding = worker.annotator_id in blocked and project.exclude_blocked_from_ground_truth
        answers = gold.get(worker.annotator_id, [])
        work = WorkerWork(
            worker=worker.annotator.username,
            judgements=0 if discarding else count,
            discarded=count if discarding else 0,
            seconds_on_task=float(row["seconds"] or 0.0),
            gold_answered=len(answers),
            gold_right=sum(answers),
            sessions_completed=sessions.get(worker.pk, 0),
        )
        found.append(PaidWorker(worker, work, worker.annotator_id in blocked))
    return found, remaining


def pay_by_worker(cost: CampaignCost) -> dict[str, WorkerPay]:
    """Each worker's figures in ``cost``, by the worker's key (their pseudonym)."""
    return {figures.worker: figures for figures in cost.pay}


def campaign(project: Project) -> tuple[ProjectPay, CampaignCost, list[PaidWorker]]:
    pay = project_pay(project)
    workers, remaining = paid_workers(project)
    return pay, campaign_cost(pay_settings(pay), [w.work for w in workers], remaining), workers


# -- the budget guard ---------------------------------------------------------------------------------


def committed_cost(project: Project, pay: ProjectPay) -> tuple[Decimal, float | None]:
    """What the campaign has spent and promised, fees included, counted high: every gold answer as
    right, every worker as earning the accuracy bonus, every session started as completed, and each
    live lease of a link worker at the cost of a judgement. The guard stops a little early rather
    than late, and reads a few aggregates instead of every judgement. With it, the mean seconds per
    judgement so far (None before any), at which one more judgement is counted."""
    rates = pay_settings(pay)
    paid = Q(annotator__platform_worker__project=project)
    work = Judgement.objects.filter(paid, project=project).aggregate(
        n=Count("id"),
        seconds=Coalesce(Sum(SECONDS), 0.0),
        gold=Count("id", filter=Q(task__kind=Task.Kind.GOLD)),
    )
    workers = PlatformWorker.objects.filter(project=project).count()
    sessions = StudySession.objects.filter(worker__project=project).count()
    leases = Assignment.objects.filter(paid, task__project=project, status=Assignment.Status.ACTIVE).count()
    seconds = work["seconds"] / work["n"] if work["n"] else None
    base = work["n"] * rates.rate_per_judgement + Decimal(str(work["seconds"])) / 3600 * rates.rate_per_hour
    bonus = (
        work["gold"] * rates.bonus_per_gold_right
        + workers * rates.accuracy_bonus
        + sessions * rates.session_bonus
    )
    return cents((base + bonus) * (1 + rates.fee_rate)) + leases * cost_of_next(rates, seconds), seconds


# The guard reads the committed cost again at most this often while the budget is far (a few
# aggregates over every paid judgement are too dear to run at every claim of a large campaign) ...
COMMITTED_COST_SECONDS = 10
# ... and at every claim once what is left is within this many judgements' cost: more than the
# server can store in that time (its capacity is about 100 a second on 2 cores, BENCHMARKS.md).
JUDGEMENTS_IN_A_WINDOW = 2000


def budget_refusal(project: Project) -> str | None:
    """Why no new lease may be given to a paid worker: the next judgement would take the committed
    cost past the budget. None without a budget.

    Far from the budget the committed cost is read from a cache kept ``COMMITTED_COST_SECONDS``;
    once the budget left is within ``JUDGEMENTS_IN_A_WINDOW`` judgements' cost it is read at every
    claim, so the cache can never let the spending pass the budget.
    """
    pay = ProjectPay.objects.filter(project=project, budget__isnull=False).first()
    if pay is None:
        return None
    rates = pay_settings(pay)
    assert rates.budget is not None  # the query asked for one
    key = f"pay:committed:{project.pk}"
    cached = cache.get(key)
    if cached is not None:
        committed, seconds = cached
        if rates.budget - committed > cost_of_next(rates, seconds) * JUDGEMENTS_IN_A_WINDOW:
            return None
    committed, seconds = committed_cost(project, pay)
    cache.set(key, (committed, seconds), COMMITTED_COST_SECONDS)
    if next_exceeds_budget(rates, committed, seconds):
        return "This study's budget is spent: there is nothing more to judge. Thank you!"
    return None


# -- payments -----------------------------------------------------------------------------------------


def due_to(pay: ProjectPay, cost: CampaignCost, workers: list[PaidWorker]) -> dict[int, Decimal]:
    """What each worker (by PlatformWorker id) is owed through the exports: their bonuses when the
    platform pays the base reward itself, else everything."""
    by_name = pay_by_worker(cost)
    due = {}
    for paid in workers:
        figures = by_name[paid.work.worker]
        due[paid.worker.pk] = figures.bonus if pay.base_paid_by_platform else figures.total
    return due


def paid_so_far(project: Project) -> dict[int, Decimal]:
    return {
        row["worker_id"]: row["paid"]
        for row in Payment.objects.filter(export__project=project)
        .values("worker_id")
        .annotate(paid=Coalesce(Sum("amount"), ZERO))
    }


def median_seconds(workers: list[PaidWorker]) -> float | None:
    return median_seconds_per_judgement([w.work for w in workers])


def cost_of_judgements(project: Project, judgements: int) -> dict | None:
    """What ``judgements`` more would cost, fees included, at the campaign's current rate (its cost per
    judgement so far, or its rates before any: ``campaign_cost``'s forecast), for a dry run to show;
    None when the project has no pay settings, or an hourly rate and no time measured yet."""
    pay = ProjectPay.objects.filter(project=project).first()
    if pay is None:
        return None
    workers, _remaining = paid_workers(project)
    cost = campaign_cost(pay_settings(pay), [w.work for w in workers], judgements)
    if cost.forecast_to_finish is None:
        return None
    return {
        "currency": cost.currency,
        "judgements": judgements,
        "amount": str(cost.forecast_to_finish),
        "basis": cost.forecast_basis,
    }


def cost_in_words(cost: dict | None) -> str:
    if cost is None:
        return ""
    how = (
        "at the cost per judgement so far"
        if cost["basis"] == "spending"
        else "from the pay rates, bonuses left out"
    )
    return f"; about {cost['amount']} {cost['currency']} with the platform's fee ({how})"
