"""Judgements in and ground truth out at a campaign's size (issue 28, items 2 and 3), on PostgreSQL.

    .venv/bin/python benchmarks/bench_judgements.py            # the issue's size (a few minutes)
    .venv/bin/python benchmarks/bench_judgements.py --quick    # 600 ratings, 5,000 labels (a smoke run)
    .venv/bin/python benchmarks/bench_judgements.py --profile  # also cProfile's top entries per step

Two projects, each created by the collection import (not timed), then:

1. **ratings**: a 4-dimension Likert project of 20,000 items, k = 3; 60,000 ratings by 3 raters sent
   to the judgement import (``POST /api/projects/<id>/judgements/import/`` through Django's full
   request path in this process: middleware, token authentication, the JSON parser, the view) in
   calls of 15,000, then its ground-truth snapshot (means, medians, both alphas with intervals);
2. **labels**: a binary-relevance project of 300,000 items, k = 3 and a third of them referred to a
   fourth assessor — 1,000,000 judgements by 100 annotators of accuracies U(0.55, 0.95) — imported in
   calls of 100,000, then its snapshot with Dawid–Skene and agreement with bootstrap intervals,
   built in a child process whose peak resident memory is reported. Beside it, crowd-kit's
   DawidSkene on the same 1,000,000 labels in this process (the peer's time for the aggregation
   alone, from a ready DataFrame).

Beside each import, the physical floor in the same run: PostgreSQL's ``COPY`` of the same number of
rows into three scratch tables shaped as the three the import writes (assignment, judgement,
revision), so the ratio says how far the import is from the database's own speed. The database
named by ``--database-url`` is dropped and created again. Prints Markdown for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import multiprocessing
import os
import pstats
import random
import resource
import sys
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load import app_environment, drop_database  # noqa: E402

DIMENSIONS = ("relevance", "consistency", "fluency", "coherence")


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_judgements"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/11")
    parser.add_argument("--rating-items", type=int, default=20_000)
    parser.add_argument("--label-items", type=int, default=300_000)
    parser.add_argument("--quick", action="store_true", help="200 rated items, 1,500 labelled items")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top entries per step")
    parser.add_argument(
        "--statements", action="store_true", help="print the SQL statements that took longest, summed by kind"
    )
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.rating_items, args.label_items = 200, 1_500
    return args


class StatementTimes:
    """Seconds of each kind of SQL statement (its first 70 characters), summed, while installed."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            kind = " ".join(str(sql).split())[:70]
            self.seconds[kind] = self.seconds.get(kind, 0.0) + time.perf_counter() - started

    def report(self, label: str) -> None:
        print(f"--- statements: {label}", file=sys.stderr)
        for kind, seconds in sorted(self.seconds.items(), key=lambda item: -item[1])[:12]:
            print(f"{seconds:8.3f} s  {kind}", file=sys.stderr)


def timed(label: str, work, profile: bool, statements: bool = False):
    """Run ``work()``; return (result, wall seconds, CPU seconds of this process)."""
    if statements:
        from django.db import connection

        times = StatementTimes()
        with connection.execute_wrapper(times):
            result = timed(label, work, profile)
        times.report(label)
        return result
    profiler = cProfile.Profile() if profile else None
    started, cpu = time.perf_counter(), time.process_time()
    if profiler:
        profiler.enable()
    result = work()
    if profiler:
        profiler.disable()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    if profiler:
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
        stats.print_stats(os.environ.get("BENCH_PROFILE_FILTER", ""), 45)
        if os.environ.get("BENCH_PROFILE_CALLERS"):
            stats.print_callers(os.environ["BENCH_PROFILE_CALLERS"])
        print(f"--- profile: {label}\n{out.getvalue()}", file=sys.stderr)
    return result, wall, cpu


def researcher():
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client
    from rest_framework.authtoken.models import Token

    from annotation.permissions import RESEARCHERS_GROUP

    owner = get_user_model().objects.create(username="bench-judgements")
    owner.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    token = Token.objects.create(user=owner).key
    return owner, Client(HTTP_AUTHORIZATION=f"Token {token}", HTTP_HOST="127.0.0.1")


def new_project(client, **fields) -> int:
    response = client.post("/api/projects/", json.dumps(fields), content_type="application/json")
    if response.status_code != 201:
        raise SystemExit(f"project: {response.status_code} {response.content[:500]!r}")
    return response.json()["id"]


def create_items(project_id: int, items: int, topics: int) -> None:
    from annotation.models import Project
    from evaluation.collection.flow import import_from_body

    body = {
        "topics": [{"id": f"t{t}", "title": f"topic {t}"} for t in range(topics)],
        "documents": [{"id": f"d{i}", "text": f"document {i}"} for i in range(items)],
        "items": [{"topic": f"t{i % topics}", "document": f"d{i}"} for i in range(items)],
    }
    import_from_body(Project.objects.get(pk=project_id), body)


def send(client, project_id: int, judgements: list[dict], per_call: int) -> None:
    """Post the judgements in calls of ``per_call``; check every one of them is stored."""
    from annotation.models import Judgement

    for start in range(0, len(judgements), per_call):
        response = client.post(
            f"/api/projects/{project_id}/judgements/import/",
            json.dumps({"judgements": judgements[start : start + per_call], "create_annotators": True}),
            content_type="application/json",
        )
        if response.status_code != 201:
            raise SystemExit(f"judgement import: {response.status_code} {response.content[:500]!r}")
    stored = Judgement.objects.filter(project_id=project_id).count()
    if stored != len(judgements):
        raise SystemExit(f"judgement import: {stored:,} judgements stored of {len(judgements):,} sent")


def copy_floor(rows: int) -> float:
    """Seconds for PostgreSQL to COPY ``rows`` rows into each of three scratch tables shaped as the
    judgement import's three (assignment, judgement, revision): the database's own speed."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE floor_assignment (LIKE annotation_assignment INCLUDING ALL);"
            "CREATE TEMP TABLE floor_judgement (LIKE annotation_judgement INCLUDING ALL);"
            "CREATE TEMP TABLE floor_revision (LIKE annotation_judgementrevision INCLUDING ALL)"
        )
    raw = connection.connection
    started = time.perf_counter()
    with raw.cursor() as cursor:
        with cursor.copy(
            "COPY floor_assignment (task_id, annotator_id, status, created_at, expires_at) FROM STDIN"
        ) as copy:
            for i in range(rows):
                copy.write_row((i, 1, "submitted", "2026-01-01", "2026-01-01"))
        with cursor.copy(
            "COPY floor_judgement (project_id, task_id, annotator_id, assignment_id, label, answer,"
            " created_at, updated_at, revision) FROM STDIN"
        ) as copy:
            for i in range(rows):
                copy.write_row((1, i, 1, i, 1, '{"label": 1}', "2026-01-01", "2026-01-01", 1))
        with cursor.copy(
            "COPY floor_revision (judgement_id, number, label, answer, created_at) FROM STDIN"
        ) as copy:
            for i in range(rows):
                copy.write_row((i, 1, 1, '{"label": 1}', "2026-01-01"))
    seconds = time.perf_counter() - started
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE floor_assignment, floor_judgement, floor_revision")
    return seconds


def ratings(items: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(items):
        quality = rng.uniform(1, 5)
        for rater in range(3):
            answer = {d: max(1, min(5, round(quality + rng.gauss(0, 0.8)))) for d in DIMENSIONS}
            rows.append(
                {
                    "topic": f"t{i % 50}",
                    "document": f"d{i}",
                    "annotator": f"rater{rater}",
                    "answer": {"scores": answer},
                }
            )
    return rows


def labels(items: int, annotators: int = 100, seed: int = 0) -> tuple[list[dict], list[int]]:
    """k = 3 on every item and a fourth label on every third item; (judgements, referred item numbers)."""
    rng = random.Random(seed)
    accuracy = [rng.uniform(0.55, 0.95) for _ in range(annotators)]
    rows, referred = [], []
    for i in range(items):
        truth = rng.random() < 0.3
        extra = i % 3 == 0
        if extra:
            referred.append(i)
        for a in rng.sample(range(annotators), 4 if extra else 3):
            label = truth if rng.random() < accuracy[a] else not truth
            rows.append(
                {"topic": f"t{i % 1000}", "document": f"d{i}", "annotator": f"worker{a}", "label": int(label)}
            )
    return rows, referred


def snapshot_in_child(project_id: int, method: str | None, queue) -> None:
    from django.db import connections

    from evaluation.ground_truth.build import build_snapshot

    connections.close_all()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started, cpu = time.perf_counter(), time.process_time()
    stages: list[tuple[str, float]] = []
    snapshot = build_snapshot(
        project_id, method=method, progress=lambda s, _: stages.append((s, time.perf_counter()))
    )
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    steps = [(s, t - started) for s, t in stages]
    queue.put((snapshot.version if snapshot else None, wall, cpu, before / 1024, peak / 1024, steps))


def snapshot(project_id: int, method: str | None = None):
    """Build the project's snapshot in a forked child (a worker's work, alone in its process)."""
    from django.db import connections

    connections.close_all()
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=snapshot_in_child, args=(project_id, method, queue))
    child.start()
    result = queue.get()
    child.join()
    if result[0] is None:
        raise SystemExit("no snapshot was written")
    return result


def crowdkit_dawid_skene(rows: list[dict]) -> float:
    import pandas as pd
    from crowdkit.aggregation import DawidSkene

    frame = pd.DataFrame(
        {
            "task": [r["document"] for r in rows],
            "worker": [r["annotator"] for r in rows],
            "label": [r["label"] for r in rows],
        }
    )
    started = time.perf_counter()
    DawidSkene(n_iter=100).fit_predict(frame)
    return time.perf_counter() - started


def main() -> None:
    args = parse_arguments()
    app_environment("judgements", args.database_url, args.redis_url, CELERY_TASK_ALWAYS_EAGER="false")
    # The import requests a ground truth after storing, as in production (queued in Redis, no
    # worker takes it); this benchmark builds each snapshot itself, timed.
    _, client = researcher()
    lines = []
    try:
        rated = new_project(
            client,
            name="bench ratings",
            task_type="likert",
            config={"dimensions": list(DIMENSIONS), "scale": [1, 5]},
            assignments_per_task=3,
        )
        create_items(rated, args.rating_items, 50)
        rows = ratings(args.rating_items)
        _, wall, cpu = timed(
            "rating import", lambda: send(client, rated, rows, 15_000), args.profile, args.statements
        )
        floor = copy_floor(len(rows))
        lines.append(("ratings", len(rows), wall, cpu, floor))
        rated_snapshot = snapshot(rated)

        labelled = new_project(
            client, name="bench labels", task_type="binary_relevance", assignments_per_task=3
        )
        create_items(labelled, args.label_items, 1000)
        rows, referred = labels(args.label_items)
        from annotation.models import Task

        # A third of the items went to an extra assessor (the adjudication rule's referral).
        ids = {f"d{i}" for i in referred}
        Task.objects.filter(project_id=labelled, document__external_id__in=ids).update(required_judgements=4)
        _, wall, cpu = timed(
            "label import", lambda: send(client, labelled, rows, 100_000), args.profile, args.statements
        )
        floor = copy_floor(len(rows))
        lines.append(("labels", len(rows), wall, cpu, floor))
        labelled_snapshot = snapshot(labelled, "dawid_skene")
        peer = crowdkit_dawid_skene(rows)
    finally:
        if not args.keep_database:
            drop_database(args.database_url)

    print(f"\nos.cpu_count() {os.cpu_count()}, load {os.getloadavg()[0]:.1f}\n")
    print("| judgement import | judgements | wall (s) | CPU (s) | per second | COPY floor (s) | ÷ floor |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, count, wall, cpu, floor in lines:
        rate = f"{count / wall:,.0f}"
        print(f"| {name} | {count:,} | {wall:.2f} | {cpu:.2f} | {rate} | {floor:.2f} | {wall / floor:.1f} |")
    print("\n| ground truth | wall (s) | CPU (s) | peak RSS (MB), before → peak | stages (s from start) |")
    print("| --- | --- | --- | --- | --- |")
    for name, (_, wall, cpu, before, peak, steps) in [
        (f"ratings ({args.rating_items * 3:,})", rated_snapshot),
        (f"labels, Dawid–Skene ({len(rows):,})", labelled_snapshot),
    ]:
        stages = "; ".join(f"{s} {t:.1f}" for s, t in steps)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {before:.0f} → {peak:.0f} | {stages} |")
    print(
        f"\ncrowd-kit DawidSkene(n_iter=100) on the same {len(rows):,} labels, from a DataFrame: {peer:.2f} s"
    )


if __name__ == "__main__":
    main()
