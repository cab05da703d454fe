"""Payments leave as the platforms' own bulk files; each file made is kept with what it paid each
worker, so the next one pays only what is still owed (``annotation.crowd.pay.unpaid``). Also the
accounting CSV of every worker's figures, and the block lists the platforms take.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from annotation.crowd.pay import (
    AccountingRow,
    MTurkBonus,
    accounting_csv,
    mturk_bulk_bonus,
    prolific_bulk_bonus,
    unpaid,
)
from annotation.models import (
    Payment,
    PaymentExport,
    PlatformWorker,
    Project,
    ProjectPay,
    StudyLink,
    StudySession,
)
from annotation.pay.costs import campaign, due_to, paid_so_far, pay_by_worker


class PaymentError(ValueError):
    """A payment file that cannot be made; the message says why."""


def last_assignments(project: Project) -> dict[int, str]:
    """Each MTurk worker's latest assignment id: MTurk pays a bonus against one of their assignments."""
    found: dict[int, str] = {}
    for worker_id, assignment in (
        StudySession.objects.filter(worker__project=project, worker__platform=StudyLink.Platform.MTURK)
        .exclude(platform_session="")
        .order_by("started_at", "pk")
        .values_list("worker_id", "platform_session")
    ):
        found[worker_id] = assignment  # the later overwrites the earlier
    return found


def make_payment_export(project: Project, kind: str, by) -> PaymentExport | None:
    """The bulk file of what ``kind``'s workers are still owed, recorded as paid; None when nobody
    is owed anything. Exports of one project are made one at a time (a lock on its pay row), so
    two clicks cannot both pay the same amount. Workers whose platform id was erased cannot be paid
    by file and are left out."""
    with transaction.atomic():
        ProjectPay.objects.get_or_create(project=project)
        ProjectPay.objects.select_for_update().get(project=project)
        pay, cost, workers = campaign(project)
        if kind == PaymentExport.Kind.MTURK and pay.currency != "USD":
            raise PaymentError(f"Mechanical Turk pays in USD; this project's pay is in {pay.currency}")
        due = due_to(pay, cost, workers)
        of_platform = {
            w.worker.pk: w.worker for w in workers if w.worker.platform == kind and w.worker.platform_id
        }
        owed = unpaid({pk: amount for pk, amount in due.items() if pk in of_platform}, paid_so_far(project))
        if not owed:
            return None
        if kind == PaymentExport.Kind.PROLIFIC:
            text = prolific_bulk_bonus({of_platform[pk].platform_id: amount for pk, amount in owed.items()})
        else:
            assignments = last_assignments(project)
            reason = f"Thank you for your work on {project.name}"[:200].replace("\n", " ")
            rows = [
                MTurkBonus(of_platform[pk].platform_id, assignments[pk], amount, reason)
                for pk, amount in owed.items()
                if pk in assignments
            ]
            owed = {pk: amount for pk, amount in owed.items() if pk in assignments}
            text = mturk_bulk_bonus(rows, pay.currency)
        export = PaymentExport.objects.create(
            project=project,
            kind=kind,
            created_by=by,
            currency=pay.currency,
            total=sum(owed.values(), Decimal("0.00")),
            text=text,
        )
        Payment.objects.bulk_create(
            Payment(export=export, worker_id=pk, amount=amount) for pk, amount in owed.items()
        )
    return export


def accounting_file(project: Project) -> str:
    """Every paid worker's figures, by pseudonym, with their platform id (blank once erased)."""
    _pay, cost, workers = campaign(project)
    by_name = pay_by_worker(cost)
    return accounting_csv(
        AccountingRow.from_pay(by_name[w.work.worker], w.worker.platform, w.worker.platform_id)
        for w in workers
    )


def block_list(project: Project, platform: str) -> str:
    """The platform ids of the project's blocked workers of ``platform``, one per line: Prolific takes
    them as a block list of participant ids, MTurk as workers to block (CreateWorkerBlock, or its
    requester site's upload)."""
    ids = (
        PlatformWorker.objects.filter(
            project=project,
            platform=platform,
            annotator__memberships__project=project,
            annotator__memberships__status="blocked",
        )
        .exclude(platform_id="")
        .order_by("platform_id")
        .values_list("platform_id", flat=True)
    )
    return "".join(f"{pid}\n" for pid in ids)
