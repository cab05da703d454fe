"""The researcher's pages on a project of 1,000,000 items, 100 runs and 100 annotators (issue 28, item 6):
each page's response time (median, p95, max over repeated requests through Django's whole request path:
middleware, session, the view, the template), its SQL statements, and the plan of its slowest statement.

    .venv/bin/python benchmarks/bench_pages.py              # the issue's size (about 10 minutes to build)
    .venv/bin/python benchmarks/bench_pages.py --quick      # 20,000 items, 10 runs, 20 annotators

The project is built by the app's own paths: ``import_collection`` (topics, documents, runs of 10
documents per topic pooled to depth 10, each run pooling its own documents, so the pool is topics ×
runs × 10 items), ``record_judgements`` (three judgements on a share of the items, some disputed and
referred to the researcher), a ground-truth snapshot and an evaluation of every run. Needs PostgreSQL
and Redis (``--database-url``, ``--redis-url``); the database named there is dropped and created again.
Prints a Markdown table for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load import app_environment, app_settings, drop_database, migrated  # noqa: E402

TARGET_P95_MS = 300


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_pages")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--annotators", type=int, default=100)
    parser.add_argument(
        "--judged-share", type=float, default=0.1, help="share of the items judged three times"
    )
    parser.add_argument("--requests", type=int, default=20, help="timed requests per page")
    parser.add_argument("--quick", action="store_true", help="200 topics, 10 runs, 20 annotators, 5 requests")
    parser.add_argument("--keep-database", action="store_true")
    parser.add_argument(
        "--reuse-database", action="store_true", help="time the pages of a database kept by --keep-database"
    )
    args = parser.parse_args()
    if args.quick:
        args.topics, args.runs, args.annotators, args.requests = 200, 10, 20, 5
    return args


def build(args: argparse.Namespace) -> tuple[object, dict[str, float]]:
    """The project, and how long each step of building it took (seconds)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group
    from django.db import connection

    from annotation.judging.assignment import RecordedJudgement, record_judgements
    from annotation.models import Project, Task
    from annotation.permissions import RESEARCHERS_GROUP
    from evaluation.collection.flow import import_collection
    from evaluation.ground_truth.build import build_snapshot
    from evaluation.jobs import embedded
    from evaluation.scoring.jobs import request_evaluation

    rng = random.Random(0)
    users = get_user_model()
    owner = users.objects.create(username="bench-pages-owner", password=make_password("x"))
    owner.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    project = Project.objects.create(
        name="bench pages",
        owner=owner,
        assignments_per_task=3,
        adjudication_rule=Project.AdjudicationRule.NOT_UNANIMOUS,
        adjudicated_by="researcher",
    )
    password = make_password("x")  # one hash for all: hashing 100 passwords is not the benchmark
    people = users.objects.bulk_create(
        users(username=f"bench-pages-a{i}", password=password) for i in range(args.annotators)
    )
    project.annotators.set(people)
    n_documents = 10 * args.runs * 10  # each topic pools 10 × runs documents out of these
    topics = [{"id": f"T{t}", "title": f"topic {t}"} for t in range(args.topics)]
    documents = [{"id": f"D{d}", "text": f"text of document {d}"} for d in range(n_documents)]
    runs = []
    for r in range(args.runs):
        lines = []
        for t in range(args.topics):
            for rank in range(1, 11):
                document = (t * 37 + r * 10 + rank - 1) % n_documents
                lines.append(f"T{t} Q0 D{document} {rank} {20 - rank} run{r:03d}")
        runs.append("\n".join(lines) + "\n")
    timings = {}
    started = time.perf_counter()
    import_collection(project, topics=topics, documents=documents, runs=runs, pool_depth=10)
    timings["import (topics, documents, runs, pool)"] = time.perf_counter() - started

    started = time.perf_counter()
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM).order_by("id")
    chosen = [task for task in items.iterator(chunk_size=20_000) if rng.random() < args.judged_share]
    for start in range(0, len(chosen), 20_000):
        record_judgements(
            project,
            [
                RecordedJudgement(task, person, int(rng.random() < 0.3))
                for task in chosen[start : start + 20_000]
                for person in rng.sample(people, 3)
            ],
        )
    timings[f"{3 * len(chosen):,} judgements on {len(chosen):,} items"] = time.perf_counter() - started

    started = time.perf_counter()
    snapshot = build_snapshot(project.pk)
    timings["ground-truth snapshot"] = time.perf_counter() - started
    started = time.perf_counter()
    request_evaluation(project, snapshot=snapshot)
    embedded.run_queued()
    timings["evaluation of every run (in this process)"] = time.perf_counter() - started
    # What autovacuum does within a minute of such writes: without fresh statistics PostgreSQL plans
    # for the empty tables it last saw (a grouped subquery run once per item).
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    timings["VACUUM ANALYZE"] = time.perf_counter() - started
    return project, timings


class Statements:
    """The SQL statements a request runs, each with its duration (Django's execute wrapper)."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, str, tuple]] = []

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seen.append((time.perf_counter() - started, sql, params))


def timed(client, url: str, requests: int) -> tuple[list[float], Statements]:
    from django.db import connection

    for _ in range(2):  # warm: caches, the first plan
        response = client.get(url, HTTP_HOST="127.0.0.1", secure=True)
        assert response.status_code == 200, (url, response.status_code)
    seconds = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(url, HTTP_HOST="127.0.0.1", secure=True)
        seconds.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
    statements = Statements()
    with connection.execute_wrapper(statements):
        client.get(url, HTTP_HOST="127.0.0.1", secure=True)
    return seconds, statements


def plan(sql: str, params) -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS OFF, COSTS OFF) {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


def main() -> None:
    args = parse_arguments()
    # Jobs run here, when asked (``embedded.run_queued``), not on a worker.
    settings = {
        "CELERY_TASK_ALWAYS_EAGER": "true",
        "GROUND_TRUTH_EMBEDDED_RUNNER": "manual",
        "STATIC_ROOT": tempfile.mkdtemp(prefix="bench-pages-static-"),
    }
    if args.reuse_database:
        migrated(app_settings("pages", args.database_url, args.redis_url, **settings))
    else:
        app_environment("pages", args.database_url, args.redis_url, **settings)
    from django.contrib.staticfiles.storage import staticfiles_storage
    from django.core.management import call_command
    from django.test import Client

    from annotation.models import Project

    call_command("collectstatic", "--noinput", verbosity=0)  # the pages' static files, as served
    staticfiles_storage.hashed_files, staticfiles_storage.manifest_hash = staticfiles_storage.load_manifest()
    if args.reuse_database:
        project, timings = Project.objects.get(name="bench pages"), {}
    else:
        project, timings = build(args)
    client = Client()
    client.force_login(project.owner)
    from tests.scoring.test_page_query_counts import pages  # the pages whose statements the suite counts

    results = {name: timed(client, url, args.requests) for name, url in pages(project).items()}
    items = project.tasks.count()
    print(
        f"\n{items:,} tasks, {args.runs} runs, {args.annotators} annotators; {args.requests} timed requests "
        f"per page after 2 warming; os.cpu_count() {os.cpu_count()}, load {os.getloadavg()[0]:.1f}\n"
    )
    print("| building | seconds |\n| --- | --- |")
    for name, seconds in timings.items():
        print(f"| {name} | {seconds:.1f} |")
    print("\n| page | median (ms) | p95 (ms) | max (ms) | statements | slowest statement (ms) |")
    print("| --- | --- | --- | --- | --- | --- |")
    slow = []
    for name, (seconds, statements) in results.items():
        ms = sorted(1000 * s for s in seconds)
        p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
        slowest = max(statements.seen, key=lambda seen: seen[0])
        print(
            f"| {name} | {statistics.median(ms):.0f} | {p95:.0f} | {ms[-1]:.0f} | {len(statements.seen)} "
            f"| {1000 * slowest[0]:.0f} |"
        )
        if p95 > TARGET_P95_MS / 3:
            slow.append((name, slowest))
    for name, (seconds, sql, params) in slow:
        print(f"\n{name}: slowest statement {1000 * seconds:.0f} ms\n\n    {sql}\n")
        print("\n".join(f"    {line}" for line in plan(sql, params).splitlines()))
    if not args.keep_database:
        drop_database(args.database_url)


if __name__ == "__main__":
    main()
