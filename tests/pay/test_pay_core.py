"""annotation.crowd.pay: every figure checked against a computation written out by hand (no database)."""

from __future__ import annotations

from decimal import Decimal as D

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.crowd.pay import (
    FAIR_MINIMUM_HOURLY,
    AccountingRow,
    MTurkBonus,
    PaySettings,
    WorkerWork,
    accounting_csv,
    budget_reached,
    campaign_cost,
    cents,
    cost_of_next,
    median_seconds_per_judgement,
    mturk_bulk_bonus,
    next_exceeds_budget,
    parse_accounting_csv,
    parse_mturk_bulk_bonus,
    parse_prolific_bulk_bonus,
    prolific_bulk_bonus,
    unpaid,
    worker_pay,
)

PROLIFIC_A = "5f8d0c1b2a3e4f5a6b7c8d9e"
PROLIFIC_B = "60a1b2c3d4e5f60718293a4b"
MTURK_A = "A1B2C3D4E5F6G7"
MTURK_B = "A3C4G8DMXFG5PQ"
ASSIGNMENT_1 = "3X4Y5Z6A7B8C9D0E1F2G3H4I5J6K7L"
ASSIGNMENT_2 = "3QWERTY1234567890ASDFGHJKLZXCV"
MTURK_CSV_HEADER = "workerId,assignmentId,amount,reason\n"
# The brief's worker: 30 judgements in half an hour, 7 of 8 gold answers right, one session.
WORKED_EXAMPLE = WorkerWork(
    "w1", judgements=30, seconds_on_task=1800, gold_answered=8, gold_right=7, sessions_completed=1
)


def bonus(
    worker: str = MTURK_A, assignment: str = ASSIGNMENT_1, amount: str = "1", reason: str = "ok"
) -> MTurkBonus:
    return MTurkBonus(worker, assignment, D(amount), reason)


def worked_example_settings(**changes: object) -> PaySettings:
    values: dict[str, object] = {
        "currency": "GBP",
        "rate_per_judgement": D("0.05"),
        "rate_per_hour": D("8.00"),
        "fee_percent": D("33.33"),
        "bonus_per_gold_right": D("0.02"),
        "accuracy_bonus": D("0.50"),
        "accuracy_threshold": 0.80,
        "accuracy_min_gold": 5,
        "session_bonus": D("0.25"),
    }
    values.update(changes)
    return PaySettings(**values)  # type: ignore[arg-type]


# --- one worker ------------------------------------------------------------------------------------


def test_worked_example_every_figure_by_hand() -> None:
    pay = worker_pay(worked_example_settings(), WORKED_EXAMPLE)
    # hours: 1800 s / 3600 = 0.5
    assert pay.hours == D("0.5")
    # base: 30 × 0.05 = 1.50, plus 0.5 h × 8.00 = 4.00 -> 5.50
    assert pay.base == D("5.50")
    # accuracy 7/8 = 0.875 ≥ 0.80 over 8 ≥ 5 gold answers -> earned
    assert pay.accuracy_bonus_earned
    # bonus: 7 × 0.02 = 0.14, + 0.50 accuracy, + 1 × 0.25 session -> 0.89
    assert pay.bonus == D("0.89")
    # total: 5.50 + 0.89 = 6.39
    assert pay.total == D("6.39")
    # fee: 6.39 × 0.3333 = 2.129787 -> 2.13
    assert pay.fee == D("2.13")
    # cost: 6.39 + 2.13 = 8.52
    assert pay.cost == D("8.52")
    # effective hourly: 6.39 / 0.5 = 12.78
    assert pay.effective_hourly == D("12.78")
    # nothing discarded, nothing wasted
    assert pay.discarded_pay == D("0.00") and pay.discarded_cost == D("0.00")
    assert pay.currency == "GBP"


def test_rounding_is_half_up_at_the_cent() -> None:
    assert cents(D("0.005")) == D("0.01")  # half-even would give 0.00
    assert cents(D("0.025")) == D("0.03")  # half-even would give 0.02
    assert cents(D("0.0249")) == D("0.02")
    assert cents(D("1E+40")) == D("1E+40")  # past the 28-digit context, still rounded, not refused
    # base: 1 × 0.025 = 0.025 -> 0.03
    settings = PaySettings("GBP", rate_per_judgement=D("0.025"))
    assert worker_pay(settings, WorkerWork("w", judgements=1)).base == D("0.03")
    # fee: total 30 × 0.05 = 1.50; 1.50 × 0.3333 = 0.49995 -> 0.50
    settings = PaySettings("GBP", rate_per_judgement=D("0.05"), fee_percent=D("33.33"))
    assert worker_pay(settings, WorkerWork("w", judgements=30)).fee == D("0.50")


def test_each_figure_is_rounded_on_its_own_so_the_statement_adds_up() -> None:
    # base: 1 × 0.005 = 0.005 -> 0.01; bonus: 1 session × 0.005 -> 0.01; total 0.02 (not 0.01 from 0.010)
    settings = PaySettings("GBP", rate_per_judgement=D("0.005"), session_bonus=D("0.005"))
    pay = worker_pay(settings, WorkerWork("w", judgements=1, sessions_completed=1))
    assert (pay.base, pay.bonus, pay.total) == (D("0.01"), D("0.01"), D("0.02"))


def test_effective_hourly_is_none_without_measured_time() -> None:
    pay = worker_pay(worked_example_settings(), WorkerWork("w", judgements=10))
    assert pay.effective_hourly is None
    # and the hourly part of base is then nothing: 10 × 0.05 = 0.50
    assert pay.base == D("0.50")


def test_a_few_microseconds_on_task_give_an_absurd_rate_not_an_error() -> None:
    settings = PaySettings("GBP", rate_per_judgement=D("1"))
    pay = worker_pay(settings, WorkerWork("w", 1, seconds_on_task=1e-300))
    assert pay.effective_hourly is not None and pay.effective_hourly > D("1E+300")


def test_accuracy_bonus_threshold_is_read_as_written_and_needs_enough_gold() -> None:
    settings = worked_example_settings()
    # 4/5 = 0.8 exactly reaches a threshold of 0.80 (the float 0.8 is a hair above 4/5)
    assert worker_pay(settings, WorkerWork("w", gold_answered=5, gold_right=4)).accuracy_bonus_earned
    # 3/4 = 0.75 < 0.80
    assert not worker_pay(settings, WorkerWork("w", gold_answered=4, gold_right=3)).accuracy_bonus_earned
    # 4/4 = 1.0 but only 4 gold answered, fewer than the 5 required
    four_of_four = worker_pay(settings, WorkerWork("w", gold_answered=4, gold_right=4))
    assert not four_of_four.accuracy_bonus_earned
    # bonus then is only 4 × 0.02 = 0.08
    assert four_of_four.bonus == D("0.08")


def test_discarded_judgements_are_paid_and_reported_as_wasted() -> None:
    settings = PaySettings("USD", rate_per_judgement=D("0.10"), rate_per_hour=D("6.00"), fee_percent=D("20"))
    pay = worker_pay(settings, WorkerWork("w", judgements=6, discarded=4, seconds_on_task=600))
    # base: 10 × 0.10 = 1.00, plus 600 s = 1/6 h × 6.00 = 1.00 -> 2.00
    assert pay.base == D("2.00")
    # discarded share: 2.00 × 4/10 = 0.80; its fee 0.80 × 0.20 = 0.16; wasted cost 0.96
    assert pay.discarded_pay == D("0.80")
    assert pay.discarded_cost == D("0.96")


# --- the campaign ----------------------------------------------------------------------------------


def test_median_effective_hourly_below_the_minimum_warns() -> None:
    settings = PaySettings("GBP", rate_per_judgement=D("0.10"))
    assert settings.minimum_hourly == FAIR_MINIMUM_HOURLY == D("9.00")
    workers = [
        WorkerWork("a", judgements=60, seconds_on_task=3600),  # 6.00 in 1 h -> 6.00/h
        WorkerWork("b", judgements=80, seconds_on_task=3600),  # 8.00 in 1 h -> 8.00/h
        WorkerWork("c", judgements=150, seconds_on_task=3600),  # 15.00 in 1 h -> 15.00/h
        WorkerWork("d", judgements=5),  # no time measured: not in the median
    ]
    cost = campaign_cost(settings, workers, judgements_remaining=0)
    # median of 6.00, 8.00, 15.00 = 8.00 < 9.00
    assert cost.median_hourly == D("8.00")
    assert cost.below_minimum
    assert cost.workers_timed == 3
    assert cost.workers_below_minimum == 2
    assert cost.share_below_minimum == pytest.approx(2 / 3)
    # a researcher minimum of 7.50 is met by the median (8.00), with one worker (6.00) below it
    fairer = campaign_cost(
        PaySettings("GBP", rate_per_judgement=D("0.10"), minimum_hourly=D("7.50")), workers, 0
    )
    assert not fairer.below_minimum and fairer.workers_below_minimum == 1


def test_campaign_totals_forecast_from_spending_discarded_cost_and_budget() -> None:
    settings = PaySettings("USD", rate_per_judgement=D("0.10"), fee_percent=D("20"), budget=D("2.00"))
    workers = [WorkerWork("a", judgements=10), WorkerWork("b", judgements=5, discarded=5)]
    cost = campaign_cost(settings, workers, judgements_remaining=100)
    # a: 10 × 0.10 = 1.00, fee 0.20; b: (5 + 5) × 0.10 = 1.00, fee 0.20
    assert cost.paid_to_workers == D("2.00")
    assert cost.fees == D("0.40")
    assert cost.total_cost == D("2.40")
    assert (cost.judgements, cost.discarded, cost.workers) == (15, 5, 2)
    # per kept judgement: 2.40 / 15 = 0.16 (the discarded work and its fee are in it)
    assert cost.cost_per_judgement == D("0.1600")
    # forecast: 100 × 0.16 = 16.00; total 2.40 + 16.00 = 18.40
    assert cost.forecast_basis == "spending"
    assert cost.forecast_to_finish == D("16.00")
    assert cost.forecast_total == D("18.40")
    # b's discarded half: 1.00 × 5/10 = 0.50, + fee 0.10 -> 0.60
    assert cost.discarded_cost == D("0.60")
    # budget 2.00 − 2.40 spent = −0.40: overspent shows as negative
    assert cost.budget_left == D("-0.40")
    assert cost.median_hourly is None and not cost.below_minimum and cost.share_below_minimum is None


def test_forecast_before_any_judgement_comes_from_the_rates() -> None:
    settings = PaySettings("GBP", rate_per_judgement=D("0.05"), rate_per_hour=D("6.00"), fee_percent=D("20"))
    # 30 s a judgement: 30/3600 h × 6.00 = 0.05; (0.05 + 0.05) × 1.20 = 0.12; × 200 = 24.00
    cost = campaign_cost(settings, [], judgements_remaining=200, median_seconds=30)
    assert cost.forecast_basis == "rates"
    assert cost.forecast_to_finish == D("24.00")
    assert cost.forecast_total == D("24.00")
    assert cost.cost_per_judgement is None and cost.total_cost == D("0.00")
    assert cost.budget_left is None
    # an hourly rate and no time known anywhere: no forecast rather than one without its hourly part
    unknown = campaign_cost(settings, [], judgements_remaining=200)
    assert unknown.forecast_to_finish is None and unknown.forecast_basis is None
    assert unknown.forecast_total is None
    # without an hourly rate no time is needed: 200 × 0.05 × 1.20 = 12.00
    per_judgement_only = PaySettings("GBP", rate_per_judgement=D("0.05"), fee_percent=D("20"))
    assert campaign_cost(per_judgement_only, [], judgements_remaining=200).forecast_to_finish == D("12.00")


def test_forecast_from_rates_prefers_time_measured_on_discarded_work() -> None:
    settings = PaySettings("GBP", rate_per_judgement=D("0.05"), rate_per_hour=D("6.00"), fee_percent=D("20"))
    # nothing kept yet; 2 discarded judgements in 120 s -> 60 s each, which beats the 30 s given
    workers = [WorkerWork("a", discarded=2, seconds_on_task=120)]
    assert median_seconds_per_judgement(workers) == 60
    cost = campaign_cost(settings, workers, judgements_remaining=100, median_seconds=30)
    # 60/3600 h × 6.00 = 0.10; (0.05 + 0.10) × 1.20 = 0.18; × 100 = 18.00
    assert cost.forecast_basis == "rates"
    assert cost.forecast_to_finish == D("18.00")
    # already spent: base 2 × 0.05 + 120/3600 × 6.00 = 0.10 + 0.20 = 0.30, fee 0.06 -> 0.36
    assert cost.total_cost == D("0.36")
    assert cost.forecast_total == D("18.36")


def test_median_seconds_per_judgement_over_workers() -> None:
    workers = [
        WorkerWork("a", judgements=10, seconds_on_task=100),  # 10 s
        WorkerWork("b", judgements=5, discarded=5, seconds_on_task=300),  # 30 s
        WorkerWork("c", judgements=2, seconds_on_task=400),  # 200 s: an open tab, not the median
        WorkerWork("d", judgements=3),  # untimed
    ]
    assert median_seconds_per_judgement(workers) == 30
    assert median_seconds_per_judgement([WorkerWork("d", judgements=3)]) is None


def test_budget_reached_and_the_cost_of_the_next_judgement() -> None:
    settings = PaySettings(
        "GBP",
        rate_per_judgement=D("0.05"),
        rate_per_hour=D("6.00"),
        fee_percent=D("33.33"),
        budget=D("10.00"),
    )
    assert not budget_reached(settings, D("9.99"))
    assert budget_reached(settings, D("10.00"))
    assert not budget_reached(PaySettings("GBP"), D("1000000"))  # no budget, never reached
    # 40 s at 6.00/h = 0.0666…; (0.05 + 0.0666…) × 1.3333 = 0.15554… -> rounded up to 0.16
    assert cost_of_next(settings, 40) == D("0.16")
    # no time yet: 0.05 × 1.3333 = 0.066665 -> 0.07
    assert cost_of_next(settings, None) == D("0.07")
    # 9.84 + 0.16 = 10.00, within the budget; 9.85 + 0.16 = 10.01, over it: refuse the lease
    assert not next_exceeds_budget(settings, D("9.84"), 40)
    assert next_exceeds_budget(settings, D("9.85"), 40)
    assert not next_exceeds_budget(PaySettings("GBP", rate_per_judgement=D("1")), D("1000"), None)


# --- what is still owed ----------------------------------------------------------------------------


def test_unpaid_after_a_partial_payment_pays_only_the_rest_then_nothing() -> None:
    due = {"a": D("5.00"), "b": D("3.00"), "c": D("1.00")}
    paid = {"a": D("2.00"), "c": D("1.50")}  # c was overpaid: nothing owed, nothing clawed back
    first = unpaid(due, paid)
    assert first == {"a": D("3.00"), "b": D("3.00")}
    paid_now = {key: paid.get(key, D(0)) + first.get(key, D(0)) for key in due.keys() | paid.keys()}
    assert unpaid(due, paid_now) == {}


# --- exports ---------------------------------------------------------------------------------------


def test_prolific_bulk_bonus_reads_back_as_written() -> None:
    bonuses = {PROLIFIC_A: D("1.5"), PROLIFIC_B: D("12.34")}
    text = prolific_bulk_bonus(bonuses)
    # one participant_id,amount a line, no header, two decimals
    assert text == f"{PROLIFIC_A},1.50\n{PROLIFIC_B},12.34\n"
    assert parse_prolific_bulk_bonus(text) == bonuses
    assert prolific_bulk_bonus({}) == "" and parse_prolific_bulk_bonus("") == {}


@pytest.mark.parametrize(
    ("bonuses", "message"),
    [
        ({PROLIFIC_A: D("1.00"), "not-a-prolific-id": D("1.00")}, "line 2: 'not-a-prolific-id'"),
        ({PROLIFIC_A: D("0.00")}, "line 1: the amount must be positive"),
        ({PROLIFIC_A: D("1.00"), PROLIFIC_B: D("-1.00")}, "line 2: the amount must be positive"),
        ({PROLIFIC_A: D("1.005")}, "line 1: the amount 1.005 is not a whole number of cents"),
    ],
)
def test_prolific_bulk_bonus_refuses_bad_lines(bonuses: dict[str, D], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        prolific_bulk_bonus(bonuses)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"{PROLIFIC_A},1.00\n{PROLIFIC_B}\n", "line 2: expected 'participant_id,amount'"),
        (f"{PROLIFIC_A},1.00\n\nxyz,1.00\n", "line 3: 'xyz' is not a Prolific participant id"),
        (f"{PROLIFIC_A},1.001\n", "line 1: the amount must be a positive number"),
        (f"{PROLIFIC_A},0\n", "line 1: the amount must be a positive number"),
        (f"{PROLIFIC_A},1.00\n{PROLIFIC_A},2.00\n", "line 2: participant .* is listed twice"),
    ],
)
def test_prolific_parser_refuses_bad_lines(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_prolific_bulk_bonus(text)


def test_mturk_bulk_bonus_reads_back_as_written() -> None:
    bonuses = [
        MTurkBonus(MTURK_A, ASSIGNMENT_1, D("0.89"), 'Gold answers, "accuracy" bonus'),
        MTurkBonus(MTURK_A, ASSIGNMENT_2, D("0.25"), "Session completed"),
        MTurkBonus(MTURK_B, ASSIGNMENT_1, D("2"), "Session completed"),
    ]
    text = mturk_bulk_bonus(bonuses, currency="USD")
    assert text.splitlines()[0] == "workerId,assignmentId,amount,reason"
    assert text.splitlines()[3] == f"{MTURK_B},{ASSIGNMENT_1},2.00,Session completed"
    assert parse_mturk_bulk_bonus(text) == bonuses


@pytest.mark.parametrize(
    ("bonuses", "message"),
    [
        ([bonus(), bonus(worker="B123")], "line 3: 'B123' is not an MTurk worker id"),
        ([bonus(worker="a1b2c3d4e5f6g7")], "line 2: 'a1b2c3d4e5f6g7' is not an MTurk worker id"),
        ([bonus(assignment="assignment-1")], "line 2: 'assignment-1' is not an MTurk assignment id"),
        ([bonus(amount="0")], "line 2: the amount must be positive"),
        ([bonus(reason="  ")], "line 2: the reason is required"),
        ([bonus(reason="two\nlines")], "line 2: the reason must be on one line"),
        ([bonus(), bonus(amount="2")], "line 3: worker .* is listed twice"),
    ],
)
def test_mturk_bulk_bonus_refuses_bad_rows(bonuses: list[MTurkBonus], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mturk_bulk_bonus(bonuses, currency="USD")


def test_mturk_pays_in_dollars_only() -> None:
    with pytest.raises(ValueError, match="currency: MTurk pays in USD, not GBP"):
        mturk_bulk_bonus([MTurkBonus(MTURK_A, ASSIGNMENT_1, D("1"), "ok")], currency="GBP")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("worker,assignment,amount,reason\n", "line 1: the header must be"),
        (f"{MTURK_CSV_HEADER}{MTURK_A},{ASSIGNMENT_1},1.00\n", "line 2: expected 4 fields"),
        (f"{MTURK_CSV_HEADER}{MTURK_A},{ASSIGNMENT_1},-1.00,ok\n", "line 2: the amount"),
        (f"{MTURK_CSV_HEADER}{MTURK_A},{ASSIGNMENT_1},1.00,\n", "line 2: the reason"),
        (f"{MTURK_CSV_HEADER}{MTURK_A},{ASSIGNMENT_1},1.00,ok\nA9,X Y,1.00,ok\n", "line 3: 'X Y'"),
    ],
)
def test_mturk_parser_refuses_bad_lines(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_mturk_bulk_bonus(text)


def test_accounting_csv_reads_back_as_written() -> None:
    settings = worked_example_settings()
    worked = worker_pay(settings, WORKED_EXAMPLE)
    untimed = worker_pay(settings, WorkerWork("w2", judgements=3, discarded=1, seconds_on_task=0))
    rows = [
        AccountingRow.from_pay(worked, "prolific", PROLIFIC_A, pseudonym="annotator-7"),
        AccountingRow.from_pay(untimed, "prolific", ""),  # platform id erased; pseudonym is the key
    ]
    text = accounting_csv(rows)
    lines = text.splitlines()
    assert lines[0] == (
        "pseudonym,platform,platform_id,judgements,discarded,hours,base,bonus,total,fee,currency,effective_hourly"
    )
    assert lines[1] == f"annotator-7,prolific,{PROLIFIC_A},30,0,0.5000,5.50,0.89,6.39,2.13,GBP,12.78"
    # w2: (3 + 1) × 0.05 = 0.20; fee 0.20 × 0.3333 = 0.06666 -> 0.07; no time, no hourly rate
    assert lines[2] == "w2,prolific,,3,1,0.0000,0.20,0.00,0.20,0.07,GBP,"
    assert parse_accounting_csv(text) == rows


def test_accounting_parser_names_the_bad_line() -> None:
    text = accounting_csv([]) + "w,prolific,,three,0,0,0,0,0,0,GBP,\n"
    with pytest.raises(ValueError, match="line 2: a number could not be read"):
        parse_accounting_csv(text)


# --- validation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"currency": "gbp"}, "currency"),
        ({"currency": "POUND"}, "currency"),
        ({"rate_per_judgement": D("-0.01")}, "rate_per_judgement"),
        ({"rate_per_hour": D("-1")}, "rate_per_hour"),
        ({"fee_percent": D("100")}, "fee_percent"),
        ({"fee_percent": D("-1")}, "fee_percent"),
        ({"bonus_per_gold_right": D("-0.02")}, "bonus_per_gold_right"),
        ({"accuracy_bonus": D("-0.50")}, "accuracy_bonus"),
        ({"accuracy_threshold": 1.2}, "accuracy_threshold"),
        ({"accuracy_threshold": -0.1}, "accuracy_threshold"),
        ({"accuracy_min_gold": 0}, "accuracy_min_gold"),
        ({"session_bonus": D("-0.25")}, "session_bonus"),
        ({"minimum_hourly": D("-9")}, "minimum_hourly"),
        ({"budget": D("-100")}, "budget"),
        ({"rate_per_hour": D("NaN")}, "rate_per_hour"),
    ],
)
def test_settings_validation_names_the_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=rf"^{field} "):
        worked_example_settings(**change)


def test_zero_rates_are_allowed() -> None:
    settings = PaySettings("USD", rate_per_judgement=D("0"), rate_per_hour=D("0"), budget=D("0"))
    assert worker_pay(settings, WorkerWork("w", judgements=5, seconds_on_task=60)).total == D("0.00")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"worker": ""}, "worker"),
        ({"judgements": -1}, "judgements"),
        ({"discarded": -1}, "discarded"),
        ({"seconds_on_task": -1.0}, "seconds_on_task"),
        ({"seconds_on_task": float("inf")}, "seconds_on_task"),
        ({"gold_answered": 2, "gold_right": 3}, "gold_right"),
        ({"sessions_completed": -1}, "sessions_completed"),
    ],
)
def test_work_validation_names_the_field(change: dict[str, object], field: str) -> None:
    values: dict[str, object] = {"worker": "w"}
    values.update(change)
    with pytest.raises(ValueError, match=rf"^{field} "):
        WorkerWork(**values)  # type: ignore[arg-type]


def test_campaign_refuses_negative_remaining() -> None:
    with pytest.raises(ValueError, match=r"^judgements_remaining "):
        campaign_cost(PaySettings("GBP"), [], judgements_remaining=-1)


# --- properties ------------------------------------------------------------------------------------

money = st.decimals(min_value=0, max_value=5, places=3, allow_nan=False, allow_infinity=False)
work = st.builds(
    WorkerWork,
    worker=st.text("abcdef", min_size=1, max_size=4),
    judgements=st.integers(0, 500),
    discarded=st.integers(0, 50),
    seconds_on_task=st.floats(0, 36_000, allow_nan=False),
    gold_answered=st.just(0),
    sessions_completed=st.integers(0, 3),
)


@given(
    rate=money,
    hourly=money,
    fee=st.decimals(min_value=0, max_value=50, places=2),
    session=money,
    workers=st.lists(work, max_size=12),
)
def test_campaign_paid_to_workers_is_the_sum_of_rounded_worker_totals(
    rate: D, hourly: D, fee: D, session: D, workers: list[WorkerWork]
) -> None:
    settings = PaySettings(
        "GBP", rate_per_judgement=rate, rate_per_hour=hourly, fee_percent=fee, session_bonus=session
    )
    cost = campaign_cost(settings, workers, judgements_remaining=10)
    totals = [worker_pay(settings, w).total for w in workers]
    assert all(total == cents(total) for total in totals)
    assert cost.paid_to_workers == sum(totals, D("0.00"))
    assert cost.fees == sum((worker_pay(settings, w).fee for w in workers), D("0.00"))
    assert cost.total_cost == cost.paid_to_workers + cost.fees


@given(
    due=st.dictionaries(st.text(min_size=1, max_size=5), st.decimals(min_value=0, max_value=100, places=2)),
    share=st.decimals(min_value=0, max_value=1, places=2),
)
def test_unpaid_of_what_is_due_is_nothing_and_a_partial_payment_completes(
    due: dict[str, D], share: D
) -> None:
    assert unpaid(due, due) == {}
    paid = {key: cents(amount * share) for key, amount in due.items()}
    rest = unpaid(due, paid)
    assert all(amount > 0 for amount in rest.values())
    assert unpaid(due, {key: paid[key] + rest.get(key, D(0)) for key in due}) == {}
