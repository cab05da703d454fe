"""The Pay page and its API at the size of a paid campaign (issue 23): 1,000 crowd workers who came in by a
study link and 100,000 judgements, on PostgreSQL; and the budget guard every paid worker's claim asks.

    .venv/bin/python benchmarks/bench_pay.py           # 1,000 workers, 100,000 judgements (k = 3)
    .venv/bin/python benchmarks/bench_pay.py --quick   # 50 workers, 1,500 judgements (a smoke run)

The workers, their sessions and judgements (1 % of them on gold items) are stored in bulk; then the
page (``GET /projects/<id>/pay/``, through Django's whole request path in this process), the API
(``GET /api/projects/<id>/pay/``) and ``budget_refusal`` are timed, each many times: p50 and p95 in ms.
The database named by ``--database-url`` is dropped and created again. Prints Markdown for
BENCHMARKS.md with the machine's core count.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_judgements import researcher
from bench_load import app_environment, drop_database, vacuum_analyze

K = 3


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_pay")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/4")
    parser.add_argument("--workers", type=int, default=1000)
    parser.add_argument("--judgements", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20, help="requests timed per figure")
    parser.add_argument("--quick", action="store_true", help="50 workers, 1,500 judgements, 5 rounds")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.workers, args.judgements, args.rounds = 50, 1500, 5
    return args


def seed(owner, workers: int, judgements: int):
    """A relevance project with a Prolific link, ``workers`` link workers (one completed session each)
    and ``judgements`` judgements, k per item, 1 % of the items gold; pay settings with a budget."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from annotation.judging.platforms import create_link
    from annotation.models import (
        Assignment,
        Document,
        Judgement,
        Membership,
        PlatformWorker,
        Project,
        ProjectPay,
        StudySession,
        Task,
        Topic,
    )

    project = Project.objects.create(name="bench pay", owner=owner, assignments_per_task=K)
    link = create_link(project, owner, platform="prolific", tasks_per_session=judgements // workers + 1)
    ProjectPay.objects.create(
        project=project,
        currency="GBP",
        per_judgement=Decimal("0.05"),
        per_hour=Decimal("6.00"),
        fee_percent=Decimal("33.33"),
        bonus_per_gold_right=Decimal("0.02"),
        accuracy_bonus=Decimal("0.50"),
        session_bonus=Decimal("0.25"),
        budget=Decimal("100000"),
    )
    users = User.objects.bulk_create(
        [User(username=f"prolific-bench{n:05d}", password="!") for n in range(workers)]
    )
    platform_workers = PlatformWorker.objects.bulk_create(
        [
            PlatformWorker(project=project, platform="prolific", platform_id=f"{n:024x}", annotator=user)
            for n, user in enumerate(users)
        ]
    )
    Membership.objects.bulk_create(
        [Membership(project=project, annotator=user, joined_via="study_link") for user in users]
    )
    StudySession.objects.bulk_create(
        [
            StudySession(link=link, worker=worker, platform_session=f"s{worker.pk}", outcome="completed")
            for worker in platform_workers
        ]
    )
    topic = Topic.objects.create(project=project, external_id="1", title="bench")
    items = judgements // K
    documents = Document.objects.bulk_create(
        [Document(project=project, external_id=f"d{i}", text="text") for i in range(items)], batch_size=5000
    )
    gold_every = 100
    tasks = Task.objects.bulk_create(
        [
            Task(
                project=project,
                topic=topic,
                document=document,
                kind="gold" if i % gold_every == 0 else "item",
                gold_answer={"label": 1} if i % gold_every == 0 else None,
                pool_rank=i + 1,
                required_judgements=K,
                slots_taken=K,
                completed=True,
            )
            for i, document in enumerate(documents)
        ],
        batch_size=5000,
    )
    now = timezone.now()
    leases, rows = [], []
    for i, task in enumerate(tasks):
        for j in range(K):
            user = users[(i * K + j) % workers]
            leases.append(
                Assignment(task=task, annotator=user, status="submitted", expires_at=now, shown_at=now)
            )
    Assignment.objects.bulk_create(leases, batch_size=5000)
    for n, lease in enumerate(leases):
        label = n % 2
        rows.append(
            Judgement(
                project=project,
                task_id=lease.task_id,
                annotator_id=lease.annotator_id,
                assignment=lease,
                label=label,
                answer={"label": label},
                seconds_spent=20.0 + n % 30,
                seconds_on_task=15.0 + n % 30,
            )
        )
    Judgement.objects.bulk_create(rows, batch_size=5000)
    return project


def timed(call, rounds: int) -> tuple[float, float]:
    seconds = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        seconds.append((time.perf_counter() - started) * 1000)
    seconds.sort()
    return statistics.median(seconds), seconds[max(0, round(0.95 * len(seconds)) - 1)]


def main() -> None:
    args = parse_arguments()
    static = tempfile.mkdtemp(prefix="bench-pay-static-")
    app_environment(
        "pay", args.database_url, args.redis_url, CELERY_TASK_ALWAYS_EAGER="false", STATIC_ROOT=static
    )
    from django.contrib.staticfiles.storage import staticfiles_storage
    from django.core.management import call_command
    from django.test import Client

    call_command("collectstatic", "--noinput", verbosity=0)  # the page's static files, as served
    staticfiles_storage.hashed_files, staticfiles_storage.manifest_hash = staticfiles_storage.load_manifest()
    from annotation.pay.costs import budget_refusal

    owner, api = researcher()
    rows = []
    try:
        started = time.perf_counter()
        project = seed(owner, args.workers, args.judgements)
        vacuum_analyze()  # as autovacuum would soon after a bulk load: the planner's statistics
        seeded = time.perf_counter() - started
        page = Client(HTTP_HOST="127.0.0.1")
        page.force_login(owner)

        def get_page() -> None:
            response = page.get(f"/projects/{project.pk}/pay/")
            assert response.status_code == 200, response.status_code

        def get_api() -> None:
            response = api.get(f"/api/projects/{project.pk}/pay/")
            assert response.status_code == 200, response.status_code

        get_page()  # warm: templates compiled, connections open
        rows.append(("Pay page (`GET /projects/<id>/pay/`)", *timed(get_page, args.rounds)))
        rows.append(("Pay API (`GET /api/projects/<id>/pay/`, every worker)", *timed(get_api, args.rounds)))
        rows.append(
            (
                "budget guard (`budget_refusal`, each paid worker's claim)",
                *timed(lambda: budget_refusal(project), args.rounds * 5),
            )
        )
    finally:
        if not args.keep_database:
            drop_database(args.database_url)
    print(
        f"\n{args.workers:,} link workers, {args.judgements - args.judgements % K:,} judgements (k = {K}); "
        f"seeded in {seeded:.1f} s; cores: {os.cpu_count()}\n"
    )
    print("| request | p50 ms | p95 ms |")
    print("| --- | ---: | ---: |")
    for name, p50, p95 in rows:
        print(f"| {name} | {p50:.1f} | {p95:.1f} |")


if __name__ == "__main__":
    main()
