"""What a paid crowd campaign costs, and its payments in the platforms' bulk formats (pure; no Django).

A researcher paying Prolific participants or Mechanical Turk workers needs four answers from the same
figures: what each worker is owed (base pay for judgements and time, bonuses for gold answers and
sessions), what the campaign has cost with the platform's fee, what finishing it will cost, and
whether the pay is fair (the median effective hourly rate against a minimum). The payments then
leave as text the platforms take in bulk, and ``unpaid`` keeps a second export from paying twice.

Money is ``decimal.Decimal`` throughout: a float cannot hold 0.10 exactly, and a sum of floats
drifts by cents over thousands of payments.

Rounding: each worker's money figures (base, bonus, fee, ...) are rounded to the cent, half up, one
by one; a campaign figure is the sum of its workers' rounded figures, because the platforms charge
per payment, so that is what the researcher's account is debited.
"""

from __future__ import annotations

import csv
import io
import math
import re
import statistics
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, ROUND_UP, Context, Decimal, getcontext
from fractions import Fraction
from typing import TypeVar

Key = TypeVar("Key")  # whatever names a worker: a platform id, a pseudonym, a database key

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
SECONDS_PER_HOUR = Decimal(3600)

# Prolific's stated minimum recommended rate, £9.00 an hour. It is only a default: the researcher
# sets their own minimum (and must, for a study paid in another currency than pounds).
FAIR_MINIMUM_HOURLY = Decimal("9.00")

# ISO 4217 codes are three capital letters; the code is written into every export and report.
CURRENCY_CODE = re.compile(r"[A-Z]{3}")


def cents(amount: Decimal) -> Decimal:
    """``amount`` rounded to the cent, half up (0.005 -> 0.01), as a payment is."""
    # Enough digits for any amount: an hourly rate over a few microseconds of measured time is
    # absurd but finite, and must not stop a campaign's report (quantize fails past the precision).
    digits = Context(prec=max(getcontext().prec, amount.adjusted() + 4))
    return amount.quantize(CENT, rounding=ROUND_HALF_UP, context=digits)


def _check_amount(name: str, amount: Decimal) -> None:
    if not isinstance(amount, Decimal) or not amount.is_finite():
        raise ValueError(f"{name} must be a finite Decimal amount, not {amount!r}")
    if amount < 0:
        raise ValueError(f"{name} must not be negative ({amount})")


def _check_count(name: str, count: int) -> None:
    if count < 0:
        raise ValueError(f"{name} must not be negative ({count})")


# --- settings and work ------------------------------------------------------------------------------


@dataclass(frozen=True)
class PaySettings:
    """How a project pays its workers, in ``currency`` (an ISO code such as "GBP").

    Base pay is ``rate_per_judgement`` per judgement plus ``rate_per_hour`` on the measured time on
    task; a project may use either or both (they are summed). ``fee_percent`` is the platform's fee
    on everything paid, bonuses included (Prolific about 33.33, plus VAT where the researcher pays
    it; MTurk 20). An accuracy bonus is paid once per worker whose accuracy on gold items reaches
    ``accuracy_threshold`` (a share, 0 to 1) over at least ``accuracy_min_gold`` gold answers.
    ``budget`` is None when the project has none. Invalid values raise ValueError naming the field.
    """

    currency: str
    rate_per_judgement: Decimal = ZERO
    rate_per_hour: Decimal = ZERO
    fee_percent: Decimal = ZERO
    bonus_per_gold_right: Decimal = ZERO
    accuracy_bonus: Decimal = ZERO
    accuracy_threshold: float = 1.0
    accuracy_min_gold: int = 1
    session_bonus: Decimal = ZERO
    minimum_hourly: Decimal = FAIR_MINIMUM_HOURLY
    budget: Decimal | None = None

    def __post_init__(self) -> None:
        if not CURRENCY_CODE.fullmatch(self.currency):
            raise ValueError(f"currency must be an ISO code of three capital letters, not {self.currency!r}")
        for name in (
            "rate_per_judgement",
            "rate_per_hour",
            "fee_percent",
            "bonus_per_gold_right",
            "accuracy_bonus",
            "session_bonus",
            "minimum_hourly",
        ):
            _check_amount(name, getattr(self, name))
        if self.budget is not None:
            _check_amount("budget", self.budget)
        # A fee of 100 % or more would cost more in fees than is paid; it is a typo, not a platform.
        if self.fee_percent >= 100:
            raise ValueError(f"fee_percent must be below 100 ({self.fee_percent})")
        if not 0.0 <= self.accuracy_threshold <= 1.0:
            raise ValueError(
                f"accuracy_threshold must be a share between 0 and 1 ({self.accuracy_threshold})"
            )
        # At least one gold answer: accuracy on none is undefined, not 100 %.
        if self.accuracy_min_gold < 1:
            raise ValueError(f"accuracy_min_gold must be at least 1 ({self.accuracy_min_gold})")

    @property
    def fee_rate(self) -> Decimal:
        """The fee as a fraction: 33.33 % -> 0.3333."""
        return self.fee_percent / 100


@dataclass(frozen=True)
class WorkerWork:
    """What one worker (``worker``, a key) did: the figures their pay is computed from.

    ``judgements`` are the kept ones; ``discarded`` ones (dropped later, e.g. the worker was blocked)
    were still paid for and are reported as wasted cost. ``seconds_on_task`` sums the time over
    all their judgements, kept and discarded.
    """

    worker: str
    judgements: int = 0
    discarded: int = 0
    seconds_on_task: float = 0.0
    gold_answered: int = 0
    gold_right: int = 0
    sessions_completed: int = 0

    def __post_init__(self) -> None:
        if not self.worker:
            raise ValueError("worker must be a non-empty key")
        for name in ("judgements", "discarded", "gold_answered", "gold_right", "sessions_completed"):
            _check_count(name, getattr(self, name))
        if not math.isfinite(self.seconds_on_task) or self.seconds_on_task < 0:
            raise ValueError(f"seconds_on_task must be a finite, non-negative time ({self.seconds_on_task})")
        if self.gold_right > self.gold_answered:
            raise ValueError(
                f"gold_right ({self.gold_right}) must not exceed gold_answered ({self.gold_answered})"
            )

    @property
    def paid_judgements(self) -> int:
        return self.judgements + self.discarded

    @property
    def hours(self) -> Decimal:
        # Through str so that 1800.1 s is 1800.1, not its binary neighbour.
        return Decimal(str(self.seconds_on_task)) / SECONDS_PER_HOUR


# --- one worker ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkerPay:
    """One worker's pay, every money figure in cents (rounded half up, one by one).

    ``total`` = ``base`` + ``bonus`` is what the worker receives; ``fee`` is the platform's fee on
    it and ``cost`` = ``total`` + ``fee`` what the researcher pays. ``effective_hourly`` is
    ``total`` / hours on task, None when no time was measured. ``discarded_pay`` is the share of
    ``base`` spent on discarded judgements and ``discarded_cost`` that share with its fee.
    """

    worker: str
    currency: str
    judgements: int
    discarded: int
    hours: Decimal
    base: Decimal
    bonus: Decimal
    accuracy_bonus_earned: bool
    total: Decimal
    fee: Decimal
    cost: Decimal
    effective_hourly: Decimal | None
    discarded_pay: Decimal
    discarded_cost: Decimal


def accuracy_bonus_earned(settings: PaySettings, work: WorkerWork) -> bool:
    """Whether ``work`` earns the accuracy bonus: enough gold answered, and right often enough."""
    if settings.accuracy_bonus == 0 or work.gold_answered < settings.accuracy_min_gold:
        return False
    # Compared as fractions, with the threshold read as written: 0.8 means 4/5, so 4 of 5 right earns
    # it (the float 0.8 is a hair above 4/5).
    return Fraction(work.gold_right, work.gold_answered) >= Fraction(str(settings.accuracy_threshold))


def worker_pay(settings: PaySettings, work: WorkerWork) -> WorkerPay:
    """What ``work`` earns under ``settings``; see ``WorkerPay`` for each figure.

    Base: (kept + discarded judgements) × rate_per_judgement + hours on task × rate_per_hour.
    Bonus: gold right × bonus_per_gold_right + the accuracy bonus if earned + completed sessions ×
    session_bonus. Base, bonus and fee are each rounded to the cent, half up; the total is the sum of
    the rounded base and bonus, so the figures on a worker's statement add up.
    """
    hours = work.hours
    unrounded_base = work.paid_judgements * settings.rate_per_judgement + hours * settings.rate_per_hour
    earned = accuracy_bonus_earned(settings, work)
    base = cents(unrounded_base)
    bonus = cents(
        work.gold_right * settings.bonus_per_gold_right
        + (settings.accuracy_bonus if earned else 0)
        + work.sessions_completed * settings.session_bonus
    )
    total = base + bonus
    fee = cents(total * settings.fee_rate)
    # Time is only known in total, so the discarded judgements' share of it is pro rata to their number.
    discarded_pay = (
        cents(unrounded_base * work.discarded / work.paid_judgements) if work.paid_judgements else ZERO
    )
    return WorkerPay(
        worker=work.worker,
        currency=settings.currency,
        judgements=work.judgements,
        discarded=work.discarded,
        hours=hours,
        base=base,
        bonus=bonus,
        accuracy_bonus_earned=earned,
        total=total,
        fee=fee,
        cost=total + fee,
        effective_hourly=cents(total / hours) if hours > 0 else None,
        discarded_pay=discarded_pay,
        discarded_cost=discarded_pay + cents(discarded_pay * settings.fee_rate),
    )


# --- the campaign ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignCost:
    """What a campaign has cost and will cost, in ``currency``.

    ``paid_to_workers``, ``fees`` and ``total_cost`` are sums of the workers' rounded figures.
    ``cost_per_judgement`` is ``total_cost`` per kept judgement (to 0.0001, a fraction of a cent
    matters over thousands), so bonuses, fees and discarded work are all in it; None before any
    judgement is kept. ``forecast_basis`` says where ``forecast_to_finish`` came from: "spending"
    (remaining × cost per kept judgement so far), "rates" (from the settings alone, see
    ``campaign_cost``) or None when there is no forecast. ``median_hourly`` is over the workers
    with measured time (``workers_timed``); ``below_minimum`` warns when it is under the minimum.
    ``budget_left`` is negative when the budget is overspent and None without a budget.
    """

    currency: str
    workers: int
    judgements: int
    discarded: int
    paid_to_workers: Decimal
    fees: Decimal
    total_cost: Decimal
    cost_per_judgement: Decimal | None
    judgements_remaining: int
    forecast_to_finish: Decimal | None
    forecast_basis: str | None
    forecast_total: Decimal | None
    minimum_hourly: Decimal
    median_hourly: Decimal | None
    below_minimum: bool
    workers_timed: int
    workers_below_minimum: int
    share_below_minimum: float | None
    discarded_cost: Decimal
    budget: Decimal | None
    budget_left: Decimal | None
    pay: tuple[WorkerPay, ...]


def median_seconds_per_judgement(workers: Iterable[WorkerWork]) -> float | None:
    """The median over workers of their seconds per paid judgement; None when no time was measured.

    A median over workers, not a pooled mean, so one worker who left a tab open does not move it
    (Prolific reports median completion times for the same reason).
    """
    per_judgement = [
        work.seconds_on_task / work.paid_judgements
        for work in workers
        if work.paid_judgements and work.seconds_on_task > 0
    ]
    return statistics.median(per_judgement) if per_judgement else None


def _cost_per_judgement_at(settings: PaySettings, seconds: float) -> Decimal:
    """Base pay for one judgement taking ``seconds``, with the fee, unrounded."""
    hourly_part = Decimal(str(seconds)) / SECONDS_PER_HOUR * settings.rate_per_hour
    return (settings.rate_per_judgement + hourly_part) * (1 + settings.fee_rate)


def _per_judgement_from_rates(settings: PaySettings, median_seconds: float | None) -> Decimal | None:
    """``_cost_per_judgement_at`` the median time; None when an hourly rate needs a time not known."""
    if median_seconds is None:
        return None if settings.rate_per_hour > 0 else _cost_per_judgement_at(settings, 0.0)
    return _cost_per_judgement_at(settings, median_seconds)


def _forecast(
    settings: PaySettings,
    workers: Sequence[WorkerWork],
    total_cost: Decimal,
    kept: int,
    remaining: int,
    median_seconds: float | None,
) -> tuple[Decimal | None, str | None]:
    if kept:
        return cents(total_cost * remaining / kept), "spending"
    seconds = median_seconds_per_judgement(workers)
    per_judgement = _per_judgement_from_rates(settings, seconds if seconds is not None else median_seconds)
    if per_judgement is None:
        return None, None
    return cents(per_judgement * remaining), "rates"


def campaign_cost(
    settings: PaySettings,
    workers: Sequence[WorkerWork],
    judgements_remaining: int,
    median_seconds: float | None = None,
) -> CampaignCost:
    """The campaign's cost so far, its forecast to finish, and the fairness of its pay.

    Forecast rule. Once a judgement is kept: ``judgements_remaining`` × (total cost so far / kept
    judgements), i.e. the campaign goes on as it went, bonuses, fees and waste included. Before any:
    an estimate from the rates alone, ``judgements_remaining`` × (rate_per_judgement + rate_per_hour
    × median seconds per judgement / 3600) × (1 + fee), where the median time is measured from
    ``workers`` when any of them has time (even on discarded judgements), else ``median_seconds``
    (e.g. a pilot's, or the task's expected time); bonuses are left out, as they depend on answers
    not yet given. With an hourly rate and no time at all there is no forecast (None), rather than
    one missing its hourly part. Forecasts are rounded to the cent, half up.
    """
    _check_count("judgements_remaining", judgements_remaining)
    pays = tuple(worker_pay(settings, work) for work in workers)
    paid = sum((p.total for p in pays), ZERO)
    fees = sum((p.fee for p in pays), ZERO)
    total_cost = paid + fees
    kept = sum(work.judgements for work in workers)
    forecast, basis = _forecast(settings, workers, total_cost, kept, judgements_remaining, median_seconds)
    hourly = [p.effective_hourly for p in pays if p.effective_hourly is not None]
    median_hourly = statistics.median(hourly) if hourly else None
    below = sum(rate < settings.minimum_hourly for rate in hourly)
    return CampaignCost(
        currency=settings.currency,
        workers=len(pays),
        judgements=kept,
        discarded=sum(work.discarded for work in workers),
        paid_to_workers=paid,
        fees=fees,
        total_cost=total_cost,
        cost_per_judgement=(total_cost / kept).quantize(Decimal("0.0001"), ROUND_HALF_UP) if kept else None,
        judgements_remaining=judgements_remaining,
        forecast_to_finish=forecast,
        forecast_basis=basis,
        forecast_total=total_cost + forecast if forecast is not None else None,
        minimum_hourly=settings.minimum_hourly,
        median_hourly=median_hourly,
        below_minimum=median_hourly is not None and median_hourly < settings.minimum_hourly,
        workers_timed=len(hourly),
        workers_below_minimum=below,
        share_below_minimum=below / len(hourly) if hourly else None,
        discarded_cost=sum((p.discarded_cost for p in pays), ZERO),
        budget=settings.budget,
        budget_left=settings.budget - total_cost if settings.budget is not None else None,
        pay=pays,
    )


# --- the budget guard ------------------------------------------------------------------------------


def budget_reached(settings: PaySettings, committed: Decimal) -> bool:
    """Whether ``committed`` (spent plus promised, fees included) has reached the budget; never
    without a budget."""
    return settings.budget is not None and committed >= settings.budget


def cost_of_next(settings: PaySettings, median_seconds: float | None) -> Decimal:
    """The cost committed by one more judgement: its base pay (per judgement, plus the hourly rate at
    the median time per judgement) with the fee; bonuses are not promised, so not counted.

    Rounded up to the cent: a guard errs on the side of the budget. Without a median time (nothing
    measured yet) the hourly part is left out; pass the task's expected time instead if it is known.
    """
    seconds = 0.0 if median_seconds is None else median_seconds
    return _cost_per_judgement_at(settings, seconds).quantize(CENT, rounding=ROUND_UP)


def next_exceeds_budget(settings: PaySettings, committed: Decimal, median_seconds: float | None) -> bool:
    """Whether leasing one more judgement would take ``committed`` past the budget (refuse the lease)."""
    return (
        settings.budget is not None and committed + cost_of_next(settings, median_seconds) > settings.budget
    )


# --- what is still owed ----------------------------------------------------------------------------


def unpaid(due: Mapping[Key, Decimal], already_paid: Mapping[Key, Decimal]) -> dict[Key, Decimal]:
    """What is still owed per key: due − already paid, keeping only positive amounts.

    Exporting ``unpaid(due, paid)`` and adding it to ``paid`` makes the next call return nothing, so
    running an export twice pays nobody twice. Overpayments are not clawed back (they drop out).
    """
    owed = {key: amount - already_paid.get(key, ZERO) for key, amount in due.items()}
    return {key: amount for key, amount in owed.items() if amount > 0}


# --- exports ---------------------------------------------------------------------------------------

# A Prolific participant id is 24 hexadecimal characters (as shown in its exports and URLs).
PROLIFIC_ID = re.compile(r"[0-9a-fA-F]{24}")
# Mechanical Turk's API constraints (SendBonus): a worker id is "A" then capital letters or digits,
# 1 to 64 characters in all; an assignment id is capital letters or digits, 1 to 64.
MTURK_WORKER_ID = re.compile(r"A[A-Z0-9]{0,63}")
MTURK_ASSIGNMENT_ID = re.compile(r"[A-Z0-9]{1,64}")
# An amount as written in the exports: a positive number of whole cents, two decimals at most.
AMOUNT = re.compile(r"\d+(\.\d{1,2})?")
MTURK_HEADER = ("workerId", "assignmentId", "amount", "reason")


def _amount_text(where: str, amount: Decimal) -> str:
    """``amount`` with two decimals; refused unless positive and in whole cents (never rounded here:
    an export pays what was computed, and rounding belongs to ``worker_pay``)."""
    if not isinstance(amount, Decimal) or not amount.is_finite() or amount <= 0:
        raise ValueError(f"{where}: the amount must be positive, not {amount}")
    if amount != amount.quantize(CENT):
        raise ValueError(f"{where}: the amount {amount} is not a whole number of cents")
    return str(amount.quantize(CENT))


def _parse_amount(where: str, text: str) -> Decimal:
    if not AMOUNT.fullmatch(text) or Decimal(text) <= 0:
        raise ValueError(f"{where}: the amount must be a positive number with two decimals, not {text!r}")
    return Decimal(text).quantize(CENT)


def prolific_bulk_bonus(bonuses: Mapping[str, Decimal]) -> str:
    """Bonuses as Prolific's "Bulk bonus payment" box takes them: one ``participant_id,amount`` a
    line, no header, the amount with two decimals in the study's currency.

    A participant id that is not 24 hexadecimal characters, or an amount not positive, is refused
    with its line number.
    """
    lines = []
    for number, (participant, amount) in enumerate(bonuses.items(), start=1):
        where = f"line {number}"
        if not PROLIFIC_ID.fullmatch(participant):
            raise ValueError(f"{where}: {participant!r} is not a Prolific participant id (24 hex characters)")
        lines.append(f"{participant},{_amount_text(where, amount)}")
    return "".join(line + "\n" for line in lines)


def parse_prolific_bulk_bonus(text: str) -> dict[str, Decimal]:
    """Read a Prolific bulk bonus list back: participant id -> amount. Blank lines are skipped;
    a malformed line, or a participant listed twice (paid twice), is refused with its number."""
    bonuses: dict[str, Decimal] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        fields = [field.strip() for field in line.split(",")]
        if len(fields) != 2:
            raise ValueError(f"{where}: expected 'participant_id,amount', got {line!r}")
        participant, amount = fields
        if not PROLIFIC_ID.fullmatch(participant):
            raise ValueError(f"{where}: {participant!r} is not a Prolific participant id (24 hex characters)")
        if participant in bonuses:
            raise ValueError(f"{where}: participant {participant} is listed twice")
        bonuses[participant] = _parse_amount(where, amount)
    return bonuses


@dataclass(frozen=True)
class MTurkBonus:
    """One Mechanical Turk bonus: the four things SendBonus requires (the amount in US dollars; the
    reason, which the worker sees, must not be empty)."""

    worker_id: str
    assignment_id: str
    amount: Decimal
    reason: str


def _check_mturk_row(where: str, worker_id: str, assignment_id: str, reason: str) -> None:
    if not MTURK_WORKER_ID.fullmatch(worker_id):
        raise ValueError(f"{where}: {worker_id!r} is not an MTurk worker id ('A' then capitals or digits)")
    if not MTURK_ASSIGNMENT_ID.fullmatch(assignment_id):
        raise ValueError(f"{where}: {assignment_id!r} is not an MTurk assignment id (capitals or digits)")
    if not reason.strip():
        raise ValueError(f"{where}: the reason is required (MTurk shows it to the worker)")
    # One row a line, so that "line N" in an error is line N of the file.
    if "\n" in reason or "\r" in reason:
        raise ValueError(f"{where}: the reason must be on one line")


def mturk_bulk_bonus(bonuses: Sequence[MTurkBonus], currency: str) -> str:
    """Bonuses as CSV with the header ``workerId,assignmentId,amount,reason``, one row per (worker,
    assignment), amounts in US dollars with two decimals.

    ``currency`` is the project's: MTurk pays in US dollars only, so anything else is refused.
    Malformed ids, a non-positive amount, an empty reason or a (worker, assignment) pair given
    twice are refused with the line number (the header is line 1).
    """
    if currency != "USD":
        raise ValueError(f"currency: MTurk pays in USD, not {currency}")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(MTURK_HEADER)
    seen: set[tuple[str, str]] = set()
    for number, bonus in enumerate(bonuses, start=2):
        where = f"line {number}"
        _check_mturk_row(where, bonus.worker_id, bonus.assignment_id, bonus.reason)
        pair = (bonus.worker_id, bonus.assignment_id)
        if pair in seen:
            raise ValueError(f"{where}: worker {bonus.worker_id} on {bonus.assignment_id} is listed twice")
        seen.add(pair)
        writer.writerow(
            [bonus.worker_id, bonus.assignment_id, _amount_text(where, bonus.amount), bonus.reason]
        )
    return out.getvalue()


def _rows_under(text: str, header: tuple[str, ...]) -> Iterator[tuple[str, list[str]]]:
    """A CSV's rows after ``header`` (refused naming line 1 when it is not that), each with where it
    stands ("line 7") for the caller's errors; empty lines are skipped."""
    reader = csv.reader(io.StringIO(text))
    first = next(reader, None)
    if first is None or tuple(first) != header:
        raise ValueError(f"line 1: the header must be {','.join(header)}, not {first}")
    for row in reader:
        if row:
            yield f"line {reader.line_num}", row


def parse_mturk_bulk_bonus(text: str) -> list[MTurkBonus]:
    """Read an MTurk bulk bonus CSV back, refusing what ``mturk_bulk_bonus`` refuses, line named."""
    bonuses: list[MTurkBonus] = []
    seen: set[tuple[str, str]] = set()
    for where, row in _rows_under(text, MTURK_HEADER):
        if len(row) != len(MTURK_HEADER):
            raise ValueError(f"{where}: expected {len(MTURK_HEADER)} fields, got {len(row)}")
        worker_id, assignment_id, amount, reason = row
        _check_mturk_row(where, worker_id, assignment_id, reason)
        if (worker_id, assignment_id) in seen:
            raise ValueError(f"{where}: worker {worker_id} on {assignment_id} is listed twice")
        seen.add((worker_id, assignment_id))
        bonuses.append(MTurkBonus(worker_id, assignment_id, _parse_amount(where, amount), reason))
    return bonuses


ACCOUNTING_HEADER = (
    "pseudonym",
    "platform",
    "platform_id",
    "judgements",
    "discarded",
    "hours",
    "base",
    "bonus",
    "total",
    "fee",
    "currency",
    "effective_hourly",
)
HOURS = Decimal("0.0001")  # hours to 0.36 s: finer than any time on task is measured


@dataclass(frozen=True)
class AccountingRow:
    """One worker's line in the accounts. ``platform_id`` is empty once the worker's platform id has
    been erased; the pseudonym keeps the line traceable within the project."""

    pseudonym: str
    platform: str
    platform_id: str
    judgements: int
    discarded: int
    hours: Decimal
    base: Decimal
    bonus: Decimal
    total: Decimal
    fee: Decimal
    currency: str
    effective_hourly: Decimal | None

    @classmethod
    def from_pay(
        cls, pay: WorkerPay, platform: str, platform_id: str, pseudonym: str | None = None
    ) -> AccountingRow:
        """The accounts' line for ``pay``; the pseudonym defaults to the worker's key."""
        return cls(
            pseudonym=pay.worker if pseudonym is None else pseudonym,
            platform=platform,
            platform_id=platform_id,
            judgements=pay.judgements,
            discarded=pay.discarded,
            hours=pay.hours.quantize(HOURS, rounding=ROUND_HALF_UP),
            base=pay.base,
            bonus=pay.bonus,
            total=pay.total,
            fee=pay.fee,
            currency=pay.currency,
            effective_hourly=pay.effective_hourly,
        )


def accounting_csv(rows: Iterable[AccountingRow]) -> str:
    """The accounts as CSV with a header (``ACCOUNTING_HEADER``); an unmeasured hourly rate is empty."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(ACCOUNTING_HEADER)
    for row in rows:
        writer.writerow(
            [
                row.pseudonym,
                row.platform,
                row.platform_id,
                row.judgements,
                row.discarded,
                str(row.hours),
                str(row.base),
                str(row.bonus),
                str(row.total),
                str(row.fee),
                row.currency,
                "" if row.effective_hourly is None else str(row.effective_hourly),
            ]
        )
    return out.getvalue()


def parse_accounting_csv(text: str) -> list[AccountingRow]:
    """Read ``accounting_csv``'s output back; a malformed line is refused with its number."""
    rows: list[AccountingRow] = []
    for where, row in _rows_under(text, ACCOUNTING_HEADER):
        if len(row) != len(ACCOUNTING_HEADER):
            raise ValueError(f"{where}: expected {len(ACCOUNTING_HEADER)} fields, got {len(row)}")
        try:
            rows.append(
                AccountingRow(
                    pseudonym=row[0],
                    platform=row[1],
                    platform_id=row[2],
                    judgements=int(row[3]),
                    discarded=int(row[4]),
                    hours=Decimal(row[5]),
                    base=Decimal(row[6]),
                    bonus=Decimal(row[7]),
                    total=Decimal(row[8]),
                    fee=Decimal(row[9]),
                    currency=row[10],
                    effective_hourly=Decimal(row[11]) if row[11] else None,
                )
            )
        except (ValueError, ArithmeticError) as error:  # int() raises the one, Decimal() the other
            raise ValueError(f"{where}: a number could not be read ({error!r})") from error
    return rows
