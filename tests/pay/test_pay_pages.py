"""Pay, cost and budget of a project's crowd workers through the app: figures against hand
computations on controlled times, the budget cap stopping leases, and payment files read back by
parsers written from the platforms' formats, never paying twice."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.crowd.pay import parse_accounting_csv, parse_mturk_bulk_bonus, parse_prolific_bulk_bonus
from annotation.judging.assignment import AssignmentError, block_annotator, claim_next_task, submit_judgement
from annotation.judging.platforms import Arrival, arrive, create_link
from annotation.models import Judgement, PaymentExport, Project, ProjectPay, StudyLink, StudySession, Task
from annotation.pay.costs import budget_refusal, committed_cost
from tests.annotation.factories import make_gold_project
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

PIDS = ("5f1a2b3c4d5e6f7a8b9c0d1e", "60aa0bb1cc2dd3ee4ff50617")


@pytest.fixture
def project(researcher):
    # 10 items and 5 gold items (expected label 1 for even document numbers), k = 1.
    return make_gold_project(researcher, items=10, gold=5, k=1)


def worker(link: StudyLink, pid: str, session: str = "s1", platform_session: str | None = None):
    return arrive(link, Arrival(pid, platform_session or session, "study1", "")).worker.annotator


def judge(project, annotator, count: int, *, seconds: float, label: int = 1, kind: str | None = None) -> None:
    """``count`` judgements by ``annotator`` (of gold items only when ``kind`` is gold), each taking
    ``seconds`` on task (the clock is set afterwards: the figures depend on it alone)."""
    for _ in range(count):
        if kind == Task.Kind.GOLD:
            project.gold_rate = 1.0
        lease = claim_next_task(project, annotator)
        assert lease is not None and (kind is None or lease.task.kind == kind)
        submit_judgement(lease.pk, annotator, {"label": label})
    project.gold_rate = 0.0
    Judgement.objects.filter(annotator=annotator).update(seconds_on_task=seconds)


def set_pay(project, **fields) -> ProjectPay:
    pay, _ = ProjectPay.objects.update_or_create(project=project, defaults=fields)
    return pay


def test_the_figures_equal_the_hand_computation(researcher, project):
    link = create_link(project, researcher, platform="prolific", tasks_per_session=20)
    set_pay(
        project,
        currency="GBP",
        per_judgement=Decimal("0.05"),
        per_hour=Decimal("8.00"),
        fee_percent=Decimal("33.33"),
        bonus_per_gold_right=Decimal("0.02"),
        accuracy_bonus=Decimal("0.50"),
        accuracy_threshold=0.8,
        accuracy_min_gold=2,
        session_bonus=Decimal("0.25"),
        minimum_hourly=Decimal("9.00"),
    )
    first, second = worker(link, PIDS[0]), worker(link, PIDS[1])
    # First: 4 items and 2 gold items (labels 1: right on the even documents), 60 s each = 0.1 h.
    judge(project, first, 4, seconds=60)
    judge(project, first, 2, seconds=60, kind=Task.Kind.GOLD)
    # Second: 3 items, 300 s each = 0.25 h.
    judge(project, second, 3, seconds=300)
    StudySession.objects.filter(worker__annotator=first).update(outcome="completed")
    gold_right = sum(
        Judgement.objects.get(annotator=first, task=task).answer == task.gold_answer
        for task in Task.objects.filter(kind=Task.Kind.GOLD, judgements__annotator=first)
    )
    body = api(researcher).get(reverse("pay-api", args=[project.pk])).json()
    workers = {w["platform_id"]: w for w in body["workers"]}
    # First: base 6 × 0.05 + 0.1 h × 8.00 = 0.30 + 0.80 = 1.10; bonus gold_right × 0.02, the accuracy
    # bonus when both gold are right (2/2 ≥ 0.8 over ≥ 2 gold), one session × 0.25.
    bonus = gold_right * Decimal("0.02") + (Decimal("0.50") if gold_right == 2 else 0) + Decimal("0.25")
    assert Decimal(workers[PIDS[0]]["base"]) == Decimal("1.10")
    assert Decimal(workers[PIDS[0]]["bonus"]) == bonus
    first_total = Decimal("1.10") + bonus
    assert Decimal(workers[PIDS[0]]["effective_hourly"]) == (first_total / Decimal("0.1")).quantize(
        Decimal("0.01")
    )
    # Second: 3 × 0.05 + 0.25 h × 8.00 = 0.15 + 2.00 = 2.15, no bonus (no session completed); 8.60 an hour.
    assert (workers[PIDS[1]]["base"], workers[PIDS[1]]["bonus"], workers[PIDS[1]]["effective_hourly"]) == (
        "2.15",
        "0.00",
        "8.60",
    )
    figures = body["figures"]
    fee = lambda amount: (amount * Decimal("0.3333")).quantize(Decimal("0.01"), "ROUND_HALF_UP")  # noqa: E731
    paid = first_total + Decimal("2.15")
    fees = fee(first_total) + fee(Decimal("2.15"))
    assert Decimal(figures["paid_to_workers"]) == paid and Decimal(figures["fees"]) == fees
    assert Decimal(figures["total_cost"]) == paid + fees
    assert figures["judgements"] == 9
    # 10 items need 10 judgements; 7 given: 3 left, forecast at the cost per judgement so far.
    assert figures["judgements_remaining"] == 3 and figures["forecast_basis"] == "spending"
    assert Decimal(figures["forecast_to_finish"]) == ((paid + fees) * 3 / 9).quantize(
        Decimal("0.01"), "ROUND_HALF_UP"
    )
    # The median of the two hourly rates: one is 8.60, below the 9.00 minimum.
    assert figures["workers_below_minimum"] == 1


def test_the_budget_cap_stops_new_leases_and_the_worker_leaves_with_the_code(client, researcher, project):
    link = create_link(
        project, researcher, platform="prolific", tasks_per_session=10, completion_code="PAIDUP"
    )
    # 1.00 a judgement with a 20 % fee: 1.20 each; a budget of 3.00 allows two and refuses the third.
    set_pay(
        project,
        currency="GBP",
        per_judgement=Decimal("1.00"),
        fee_percent=Decimal("20"),
        budget=Decimal("3.00"),
    )
    client.post(f"{reverse('study', args=[link.slug])}?PROLIFIC_PID={PIDS[0]}&STUDY_ID=s&SESSION_ID=a")
    for _ in range(2):
        client.post(reverse("claim", args=[project.pk]))
        lease = project.tasks.get(assignments__status="active").assignments.get(status="active")
        client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "1"})
    assert Judgement.objects.count() == 2
    assert committed_cost(project, project.pay)[0] == Decimal("2.40")
    assert budget_refusal(project) is not None
    annotator = StudySession.objects.get().worker.annotator
    with pytest.raises(AssignmentError, match="budget is spent"):
        claim_next_task(project, annotator)
    done = client.get(reverse("judge", args=[project.pk]))
    assert done["Location"] == reverse("study-done", args=[link.slug])
    assert "PAIDUP" in client.get(done["Location"]).content.decode()
    client.force_login(researcher)
    page = client.get(reverse("pay-page", args=[project.pk])).content.decode()
    assert "The budget is reached" in page and "0.60 GBP left" in page


def test_payment_files_pay_what_is_owed_once_and_read_back(researcher, project):
    link = create_link(project, researcher, platform="prolific", tasks_per_session=20)
    set_pay(
        project,
        currency="GBP",
        per_judgement=Decimal("0.10"),
        session_bonus=Decimal("1.00"),
        base_paid_by_platform=False,
    )
    first = worker(link, PIDS[0])
    judge(project, first, 3, seconds=30)
    url = reverse("payments-api", args=[project.pk])
    made = api(researcher).post(url, {"kind": "prolific"}, format="json")
    assert made.status_code == 201
    assert parse_prolific_bulk_bonus(made.json()["file"]) == {PIDS[0]: Decimal("0.30")}
    again = api(researcher).post(url, {"kind": "prolific"}, format="json")
    assert again.status_code == 200 and again.json()["file"] is None  # nobody paid twice
    judge(project, first, 2, seconds=30)
    StudySession.objects.update(outcome="completed")
    second = worker(link, PIDS[1])
    judge(project, second, 1, seconds=30)
    # First: 5 × 0.10 + 1.00 for the completed session − 0.30 paid = 1.20; second: 0.10.
    later = api(researcher).post(url, {"kind": "prolific"}, format="json").json()
    assert parse_prolific_bulk_bonus(later["file"]) == {PIDS[0]: Decimal("1.20"), PIDS[1]: Decimal("0.10")}
    assert [e["total"] for e in api(researcher).get(url).json()["results"]] == ["1.30", "0.30"]
    # Bonuses only, when the platform pays the base reward itself: first has had more than 1.00 already.
    set_pay(project, base_paid_by_platform=True)
    assert api(researcher).post(url, {"kind": "prolific"}, format="json").json()["file"] is None


def test_an_mturk_file_pays_against_each_workers_assignment_in_dollars(researcher, project):
    link = create_link(project, researcher, platform="mturk", tasks_per_session=20)
    set_pay(project, currency="GBP", per_judgement=Decimal("0.10"), bonus_per_gold_right=Decimal("0.05"))
    annotator = worker(link, "A1WORKER2EXAMPLE", platform_session="ASSIGNMENT7")
    judge(project, annotator, 2, seconds=30, kind=Task.Kind.GOLD, label=1)
    url = reverse("payments-api", args=[project.pk])
    refused = api(researcher).post(url, {"kind": "mturk"}, format="json")
    assert refused.status_code == 400 and "USD" in refused.json()["kind"][0]
    assert not PaymentExport.objects.exists()
    set_pay(project, currency="USD", base_paid_by_platform=False)
    right = sum(j.answer == j.task.gold_answer for j in Judgement.objects.select_related("task"))
    made = api(researcher).post(url, {"kind": "mturk"}, format="json")
    rows = parse_mturk_bulk_bonus(made.json()["file"])
    # 2 × 0.10 base + 0.05 per gold item answered right.
    assert [(r.worker_id, r.assignment_id, r.amount) for r in rows] == [
        ("A1WORKER2EXAMPLE", "ASSIGNMENT7", Decimal("0.20") + Decimal("0.05") * right)
    ]
    assert rows[0].reason.startswith("Thank you for your work on")


def test_the_accounts_and_the_block_lists(client, researcher, project):
    link = create_link(project, researcher, platform="prolific", tasks_per_session=20)
    set_pay(project, currency="EUR", per_judgement=Decimal("0.20"))
    kept, blocked = worker(link, PIDS[0]), worker(link, PIDS[1])
    judge(project, kept, 2, seconds=36)
    judge(project, blocked, 3, seconds=36)
    block_annotator(project, blocked, "failed checks")
    client.force_login(researcher)
    rows = parse_accounting_csv(client.get(reverse("pay-accounting", args=[project.pk])).content.decode())
    by_id = {row.platform_id: row for row in rows}
    assert (by_id[PIDS[0]].judgements, by_id[PIDS[0]].total, by_id[PIDS[0]].currency) == (
        2,
        Decimal("0.40"),
        "EUR",
    )
    # The blocked worker's judgements are discarded (left out of the ground truth) but paid.
    assert (by_id[PIDS[1]].judgements, by_id[PIDS[1]].discarded, by_id[PIDS[1]].total) == (
        0,
        3,
        Decimal("0.60"),
    )
    body = api(researcher).get(reverse("pay-api", args=[project.pk])).json()
    assert body["figures"]["discarded_cost"] == "0.60"
    listed = client.get(reverse("pay-blocked", args=[project.pk, "prolific"])).content.decode()
    assert listed == f"{PIDS[1]}\n"
    assert client.get(reverse("pay-blocked", args=[project.pk, "mturk"])).content == b""


def test_the_pay_page_saves_settings_and_names_a_bad_field(client, researcher, project):
    client.force_login(researcher)
    url = reverse("pay-page", args=[project.pk])
    page = client.get(url)
    assert page.status_code == 200 and b"No paid worker yet" in page.content
    form = {
        "currency": "usd",
        "per_judgement": "0.04",
        "per_hour": "0",
        "fee_percent": "20",
        "bonus_per_gold_right": "0",
        "accuracy_bonus": "0",
        "accuracy_threshold": "0.8",
        "accuracy_min_gold": "5",
        "session_bonus": "0",
        "minimum_hourly": "9.00",
        "budget": "",
        "base_paid_by_platform": "on",
    }
    assert client.post(url, form).status_code == 302
    assert (project.pay.currency, project.pay.per_judgement, project.pay.budget) == (
        "USD",
        Decimal("0.0400"),
        None,
    )
    bad = client.post(url, {**form, "fee_percent": "120", "currency": "U$D"})
    assert bad.status_code == 200 and "an ISO code of three letters" in bad.content.decode()
    assert "Ensure this value is less than or equal to 99.99" in bad.content.decode()
    patched = api(researcher).patch(
        reverse("pay-api", args=[project.pk]), {"budget": "50", "per_hour": 7.5}, format="json"
    )
    assert patched.status_code == 200 and patched.json()["settings"]["budget"] == "50.00"
    assert patched.json()["settings"]["currency"] == "USD"  # what was not sent is kept
    bad = api(researcher).patch(
        reverse("pay-api", args=[project.pk]), {"budget": -1, "tip": 1}, format="json"
    )
    assert bad.status_code == 400 and bad.json() == {"tip": ["not a pay setting"]}


def test_a_dry_run_shows_what_the_new_items_would_cost_with_the_pay_settings(client, researcher):
    """Issue 26, item 5 (and the collection import's dry run): tasks and, with pay settings, the cost."""
    from tests.pyramid.test_pyramid_app import BODY

    project = Project.objects.create(
        name="LP", owner=researcher, task_type="scu_presence", assignments_per_task=3
    )
    url = reverse("pyramid-import-api", args=[project.pk])
    assert api(researcher).post(url, BODY | {"dry_run": True}, format="json").json()["cost"] is None
    # 10 items × k = 3 = 30 judgements at 0.05 with a 20 % fee: 30 × 0.06 = 1.80.
    set_pay(project, currency="USD", per_judgement=Decimal("0.05"), fee_percent=Decimal("20"))
    dry = api(researcher).post(url, BODY | {"dry_run": True}, format="json").json()
    assert dry["cost"] == {"currency": "USD", "judgements": 30, "amount": "1.80", "basis": "rates"}
    client.force_login(researcher)
    upload = SimpleUploadedFile("body.json", json.dumps(BODY).encode(), content_type="application/json")
    page = client.post(
        reverse("pyramid-page", args=[project.pk]), {"file": upload, "preview": "1"}, follow=True
    )
    assert (
        "about 1.80 USD with the platform&#x27;s fee (from the pay rates, bonuses left out)"
        in page.content.decode()
    )
    relevance = make_gold_project(researcher, items=4, gold=0, k=2)
    set_pay(relevance, currency="GBP", per_judgement=Decimal("0.10"))
    more = api(researcher).post(
        reverse("import-api", args=[relevance.pk]),
        {
            "documents": [{"id": "new", "text": "x"}],
            "items": [{"topic": "1", "document": "new"}],
            "dry_run": True,
        },
        format="json",
    )
    # One new item × k = 2 at 0.10, no fee.
    assert more.status_code == 200 and more.json()["cost"]["amount"] == "0.20", more.content


def test_the_budget_guard_reads_the_cost_again_only_near_the_budget(
    researcher, project, django_assert_num_queries
):
    link = create_link(project, researcher, platform="prolific", tasks_per_session=20)
    set_pay(project, currency="GBP", per_judgement=Decimal("0.01"), budget=Decimal("1000"))
    judge(project, worker(link, PIDS[0]), 2, seconds=30)
    assert budget_refusal(project) is None  # reads the committed cost (0.02) and keeps it
    with django_assert_num_queries(1):  # far from the budget: only the pay row
        assert budget_refusal(project) is None
    # 2,000 judgements at 0.01 = 20.00: a budget 19.00 above the cost is near, and read every time.
    set_pay(project, budget=Decimal("19.02"))
    with django_assert_num_queries(5):  # the pay row and the four aggregates of the committed cost
        assert budget_refusal(project) is None
    set_pay(project, budget=Decimal("0.02"))
    assert "budget is spent" in budget_refusal(project)
