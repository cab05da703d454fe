"""50 annotators asking for their next task and submitting judgements against gunicorn + PostgreSQL.

    .venv/bin/python benchmarks/bench_load.py            # 2,000 items, k = 3, 50 annotators (~15 min)
    .venv/bin/python benchmarks/bench_load.py --quick    # 200 items, 6 annotators, a few seconds each
    .venv/bin/python benchmarks/bench_load.py --items 100000 --start-judged 0.3333 --scenarios realistic

What it does, in order:

1. Creates a fresh PostgreSQL database (``--database-url``, dropped at the end unless
   ``--keep-database``), migrates it, collects the static files, seeds one project (``--items``
   tasks, k = ``--k``, 40 pooled documents per topic, abstracts of ~1,000 characters) and
   ``--annotators`` annotators, all through Django's ORM.
2. For each gunicorn configuration (``--configs``) starts gunicorn as a subprocess with production
   settings (DEBUG off, own SECRET_KEY, ALLOWED_HOSTS=127.0.0.1, whitenoise's manifest) and logs
   every annotator in through Django's login page.
3. Runs each scenario (``--scenarios``) from a fresh state (no judgements, or ``--start-judged``
   of the pool judged), after waiting for an idle machine (``--quiet-wait``): every annotator is a
   thread in this process looping ``next_task`` → think → ``submit`` (``annotator_client.py``, which
   goes as a browser does: the judging page and POST next only when no task is held, then POST
   submit answered with the next task's page, as the judging page's script asks; with
   ``--round-trip redirect``, as a browser without the script: POST submit, then GET judge),
   ``realistic`` thinking U(2, 5) s per judgement, ``tough`` U(0.25, 0.75) s, ``closed`` not at all
   (saturation: 50 requests always in flight, so latency is queueing, see Little's law below).
   Reported per operation and per HTTP request: count, rate, p50/p90/p99/max, errors, and the CPU
   of gunicorn, the PostgreSQL backends, the worker, this process and everything else (/proc).
4. Checks correctness after each scenario: judgements in the database = submissions the clients
   saw accepted, no task above k, no annotator twice on a task, slot counters and ``completed``
   flags consistent.
5. Profiles the three requests in-process (Django's test client on the same database and
   settings): queries per request, time in SQL, the slowest query with EXPLAIN ANALYZE, on the
   seeded project and on a ``--large-items`` project, both a third of the way through (k
   judgements on the first third of the pool).

Ground truth (``--ground-truth``): ``worker`` (default) sends jobs to Redis db ``--redis-url`` and
runs the production Celery worker (prefork, concurrency 2) against the bench database, so the
debounced job (every 10 s under load) competes for the same cores and row locks, as it would in
production; ``enqueue`` sends jobs to Redis with no worker (the web side only: one job is queued,
and later submissions find it pending); ``eager`` runs them inside the web request (the
embedded default, not production; used by the smoke test, which must not touch the Redis that
other tests flush).

Little's law: with N annotators always waiting on a request (closed loop, no think time) and
throughput X, the mean latency is N / X; on 2 cores that is 50 / X whatever the code does, so the
closed loop shows capacity (X), and the think-time scenarios show latency at a realistic load.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import psycopg
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from annotator_client import (
    INLINE_HEADERS,
    AnnotatorClient,
    ClientError,
    Exchange,
    JudgePage,
    login,
    next_task,
    read_judge_page,
    submit,
)

PROJECT_DIR = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# The bench needs no secrecy, only a key that is not the refused development one.
SECRET_KEY = "bench-load-not-secret-" + "k" * 40
PASSWORD = "bench-annotator-password"
DOCUMENTS_PER_TOPIC = 40
# Words of the Cranfield collection's aeronautics abstracts, for synthetic documents.
WORDS = (
    "boundary",
    "layer",
    "flow",
    "heat",
    "transfer",
    "supersonic",
    "wing",
    "pressure",
    "distribution",
    "shock",
    "wave",
    "laminar",
    "turbulent",
    "skin",
    "friction",
    "mach",
    "number",
    "nozzle",
    "jet",
    "aerodynamic",
    "load",
    "buckling",
    "plate",
    "shell",
    "cylinder",
    "vibration",
    "flutter",
    "thermal",
    "stress",
    "hypersonic",
    "reentry",
    "blunt",
    "body",
    "stagnation",
    "point",
    "viscous",
    "inviscid",
    "experimental",
    "theoretical",
    "approximate",
    "solution",
    "measured",
    "compared",
    "agreement",
)
INSTRUCTIONS = (
    "Read the **topic**, then the document. Mark it *relevant* if any part of it helps answer the\n"
    "topic, even partly; otherwise *not relevant*.\n\n"
    "- Judge the document alone, not its source.\n- Press `r` or `n`, then Enter.\n"
)


@dataclass(frozen=True)
class ServerConfig:
    """A gunicorn configuration; ``sync3`` is what docker/entrypoint.sh runs."""

    key: str
    worker_class: str
    workers: int
    threads: int = 1

    def describe(self) -> str:
        if self.worker_class == "production":
            return "gunicorn as production runs it (cranfield/gunicorn.py)"
        if self.worker_class == "sync":
            return f"gunicorn sync, {self.workers} workers"
        return f"gunicorn gthread, {self.workers} workers x {self.threads} threads"

    def argv(self, port: int, access_log: Path) -> list[str]:
        if self.worker_class == "production":  # the settings file, only the address and the log changed
            return [
                str(BIN / "gunicorn"), "cranfield.wsgi:application", "-c", "python:cranfield.gunicorn",
                "--bind", f"127.0.0.1:{port}", "--access-logfile", str(access_log),
                "--access-logformat", "%(m)s %(U)s %(s)s %(M)s",
            ]  # fmt: skip
        argv = [
            str(BIN / "gunicorn"),
            "cranfield.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(self.workers),
            "--access-logfile",
            str(access_log),
            # Method, path, status and gunicorn's own time for the request in ms (read to written).
            "--access-logformat",
            "%(m)s %(U)s %(s)s %(M)s",
            "--timeout",
            "60",
        ]
        if self.worker_class == "gthread":
            argv += ["--worker-class", "gthread", "--threads", str(self.threads)]
        return argv


CONFIGS = {
    "sync3": ServerConfig("sync3", "sync", 3),
    "sync5": ServerConfig("sync5", "sync", 5),
    "gthread3x1": ServerConfig("gthread3x1", "gthread", 3, 1),
    "production": ServerConfig("production", "production", 3),
    "gthread2x4": ServerConfig("gthread2x4", "gthread", 2, 4),
    "gthread3x4": ServerConfig("gthread3x4", "gthread", 3, 4),
    "gthread2x8": ServerConfig("gthread2x8", "gthread", 2, 8),
}


@dataclass(frozen=True)
class Scenario:
    key: str
    think: tuple[float, float] | None  # uniform think time per judgement (s); None: closed loop
    seconds: float

    def describe(self) -> str:
        if self.think is None:
            return "closed loop, no think time"
        return f"think time U({self.think[0]:g}, {self.think[1]:g}) s"


@dataclass
class Operation:
    kind: str  # "next task" or "submit"
    started: float
    seconds: float
    outcome: str  # ok | error | rejected


@dataclass
class AnnotatorLog:
    operations: list[Operation] = field(default_factory=list)
    accepted_submits: int = 0
    unknown_submits: int = 0  # failed without an answer: may or may not have been committed
    finished_pool: bool = False
    problems: list[str] = field(default_factory=list)  # what went wrong, for the report


# ---------------------------------------------------------------------------------------------
# The database, the Django side (seeding, checks, profiling)


def recreate_database(url: str) -> None:
    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise SystemExit(f"--database-url: database name {name!r} must be a plain lower-case identifier")
    admin = parsed._replace(path="/postgres", query="").geturl()
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {name}")


def drop_database(url: str) -> None:
    from django.db import connections

    connections.close_all()
    parsed = urlparse(url)
    with psycopg.connect(parsed._replace(path="/postgres", query="").geturl(), autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {parsed.path.lstrip('/')} WITH (FORCE)")


def app_environment(name: str, database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    """Production settings for gunicorn, a real Celery worker and this process, on a database just
    created; this process is set up on them and the database migrated."""
    recreate_database(database_url)
    environment = app_settings(name, database_url, redis_url, **extra)
    migrated(environment)
    return environment


def app_settings(name: str, database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    """The production settings ``app_environment`` gives its processes."""
    return {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "DEBUG": "false",
        "SECRET_KEY": f"bench-{name}-not-secret-0123456789abcdefghijklmnopqrstuvwxyz-0123456789",
        "ALLOWED_HOSTS": "127.0.0.1",
        "LOG_LEVEL": "WARNING",
        # Every simulated crowd worker arrives from this machine's one address.
        "STUDY_ARRIVALS_PER_ADDRESS": "1000000",
        **extra,
    }


def migrated(environment: dict[str, str]) -> None:
    """This process set up on ``environment``'s settings, its database migrated."""
    os.environ.update(environment)
    os.environ["DJANGO_SETTINGS_MODULE"] = "cranfield.settings"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", "--noinput", verbosity=0)


def setup_django(environment: dict[str, str], static_root: Path) -> None:
    from django.core.management import call_command

    migrated(environment)
    call_command("collectstatic", "--noinput", verbosity=0)


def abstract(rng: random.Random, characters: int = 1000) -> str:
    words: list[str] = []
    while sum(len(word) + 1 for word in words) < characters:
        words.append(rng.choice(WORDS))
    return " ".join(words).capitalize() + "."


def seed_project(name: str, items: int, k: int, annotator_names: list[str], seed: int = 0) -> int:
    """A project of ``items`` tasks (40 pooled documents per topic), k and its annotators; returns its id."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    from annotation.models import Document, Project, Task, Topic

    rng = random.Random(seed)
    owner, _ = User.objects.get_or_create(username="bench-researcher")
    existing = set(User.objects.filter(username__in=annotator_names).values_list("username", flat=True))
    password = make_password(PASSWORD)  # one PBKDF2 hash for all: seeding stays fast
    User.objects.bulk_create(
        [
            User(username=username, password=password)
            for username in annotator_names
            if username not in existing
        ]
    )
    project = Project.objects.create(
        name=name, owner=owner, assignments_per_task=k, instructions=INSTRUCTIONS, assignment_minutes=30
    )
    project.annotators.set(User.objects.filter(username__in=annotator_names))
    n_topics = -(-items // DOCUMENTS_PER_TOPIC)
    topics = Topic.objects.bulk_create(
        [
            Topic(project=project, external_id=str(i + 1), title=" ".join(rng.sample(WORDS, 4)))
            for i in range(n_topics)
        ]
    )
    documents = Document.objects.bulk_create(
        [
            Document(project=project, external_id=f"d{i}", title=f"Report {i}", text=abstract(rng))
            for i in range(items)
        ],
        batch_size=2000,
    )
    Task.objects.bulk_create(
        [
            Task(
                project=project,
                topic=topics[i // DOCUMENTS_PER_TOPIC],
                document=documents[i],
                pool_rank=i % DOCUMENTS_PER_TOPIC + 1,
                required_judgements=k,
            )
            for i in range(items)
        ],
        batch_size=2000,
    )
    return project.pk


def study_link(project_id: int) -> str:
    """A Prolific link to the project whose sessions never fill; its slug."""
    from annotation.judging.platforms import create_link
    from annotation.models import Project

    link = create_link(Project.objects.get(pk=project_id), None, platform="prolific", tasks_per_session=10**6)
    return link.slug


def vacuum_analyze() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def wait_for_ground_truth_jobs(project_id: int, limit: float = 120.0) -> None:
    """Let the debounced ground-truth job that the last scenario queued finish before the tables
    are emptied: a TRUNCATE while it writes its snapshot deadlocks with it."""
    from evaluation.models import GroundTruthJob

    busy = (GroundTruthJob.Status.QUEUED, GroundTruthJob.Status.RUNNING)
    deadline = time.monotonic() + limit
    while GroundTruthJob.objects.filter(project_id=project_id, status__in=busy).exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"ground-truth jobs still queued or running after {limit:.0f} s")
        time.sleep(0.5)


def reset_project(project_id: int, *, worker_running: bool = True) -> None:
    """Back to no judgements, no leases, no snapshots (TRUNCATE: the bench database holds nothing else).

    With the worker running, its last job is let finish first; once it is stopped, a run it left
    queued never will, and nothing can deadlock with the TRUNCATE.
    """
    from django.db import connection

    if worker_running:
        wait_for_ground_truth_jobs(project_id)

    from annotation.models import Assignment, Judgement, JudgementRevision, Project, Task
    from evaluation.models import (
        Evaluation,
        GroundTruthJob,
        GroundTruthSnapshot,
        RunScore,
        SamplingSimulation,
        SnapshotLabel,
        SnapshotPriorLabel,
    )

    # Every table that refers to these must be truncated with them (PostgreSQL refuses otherwise).
    models = (
        RunScore,
        Evaluation,
        SamplingSimulation,
        SnapshotLabel,
        SnapshotPriorLabel,
        GroundTruthJob,
        GroundTruthSnapshot,
        JudgementRevision,
        Judgement,
        Assignment,
    )
    tables = [model._meta.db_table for model in models]
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(tables)}")
    Task.objects.filter(project_id=project_id).update(slots_taken=0, completed=False)
    Project.objects.filter(pk=project_id).update(ground_truth_pending=False)
    vacuum_analyze()


def advance_campaign(project_id: int, fraction: float) -> int:
    """Give the first ``fraction`` of the pool its k judgements (annotators in turn); returns how many tasks.

    Mid-campaign state for profiling: completed tasks to skip, and annotators with a history.
    """
    from django.db import connection

    from annotation.models import Assignment, Judgement, JudgementRevision, Project, Task

    project = Project.objects.get(pk=project_id)
    annotator_ids = sorted(project.annotators.values_list("pk", flat=True))
    k = project.assignments_per_task
    if len(annotator_ids) < k:
        raise SystemExit(f"a judged start needs at least k = {k} annotators, not {len(annotator_ids)}")
    done = int(Task.objects.filter(project=project).count() * fraction)
    task, assignment, judgement, revision = (
        m._meta.db_table for m in (Task, Assignment, Judgement, JudgementRevision)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            WITH picked AS (
                SELECT id, row_number() OVER (ORDER BY pool_rank, id) - 1 AS n
                FROM {task} WHERE project_id = %(project)s ORDER BY pool_rank, id LIMIT %(done)s
            )
            INSERT INTO {assignment} (task_id, annotator_id, status, created_at, expires_at)
            SELECT picked.id, (%(annotators)s::bigint[])[((picked.n + j) %% %(n_annotators)s) + 1],
                   'submitted', now(), now()
            FROM picked CROSS JOIN generate_series(0, %(k)s - 1) AS j
            """,
            {
                "project": project_id,
                "done": done,
                "annotators": annotator_ids,
                "n_annotators": len(annotator_ids),
                "k": k,
            },
        )
        cursor.execute(
            f"""
            INSERT INTO {judgement}
                (project_id, task_id, annotator_id, assignment_id, label, answer, revision,
                 created_at, updated_at)
            SELECT t.project_id, a.task_id, a.annotator_id, a.id, a.id %% 2,
                   jsonb_build_object('label', a.id %% 2), 1, now(), now()
            FROM {assignment} a JOIN {task} t ON t.id = a.task_id
            WHERE t.project_id = %(project)s AND a.status = 'submitted'
            """,
            {"project": project_id},
        )
        # Every judgement has its first version, as submit_judgement writes it.
        cursor.execute(
            f"""
            INSERT INTO {revision} (judgement_id, number, label, answer, created_at)
            SELECT id, 1, label, answer, created_at FROM {judgement} WHERE project_id = %(project)s
            """,
            {"project": project_id},
        )
        cursor.execute(
            f"""
            UPDATE {task} SET slots_taken = required_judgements, completed = true
            WHERE id IN (SELECT task_id FROM {judgement})  AND project_id = %(project)s
            """,
            {"project": project_id},
        )
    vacuum_analyze()
    return done


def check_correctness(project_id: int, logs: list[AnnotatorLog], already: int = 0) -> list[str]:
    """Problems found (empty: correct): lost or invented judgements, k exceeded, duplicates, bad counters."""
    from django.db.models import Count, F, Q

    from annotation.models import Assignment, Judgement, Project, Task

    problems = []
    judgements = Judgement.objects.filter(task__project_id=project_id)
    stored = judgements.count() - already * Project.objects.get(pk=project_id).assignments_per_task
    accepted = sum(log.accepted_submits for log in logs)
    unknown = sum(log.unknown_submits for log in logs)
    if not accepted <= stored <= accepted + unknown:
        problems.append(f"{stored} judgements stored, clients saw {accepted} accepted (+{unknown} unknown)")
    over_k = (
        Task.objects.filter(project_id=project_id)
        .annotate(n=Count("judgements"))
        .filter(n__gt=F("required_judgements"))
    )
    if over_k.exists():
        problems.append(f"{over_k.count()} tasks have more than k judgements")
    twice = judgements.values("task_id", "annotator_id").annotate(n=Count("id")).filter(n__gt=1)
    if twice.exists():
        problems.append(f"{twice.count()} (task, annotator) pairs judged twice")
    leased_twice = (
        Assignment.objects.filter(task__project_id=project_id)
        .values("task_id", "annotator_id")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
    )
    if leased_twice.exists():
        problems.append(f"{leased_twice.count()} (task, annotator) pairs leased twice")
    tasks = Task.objects.filter(project_id=project_id).annotate(
        live=Count("assignments", filter=Q(assignments__status=Assignment.Status.ACTIVE), distinct=True),
        judged=Count("judgements", distinct=True),
    )
    bad_slots = [t.pk for t in tasks if t.slots_taken != t.live + t.judged]
    if bad_slots:
        problems.append(f"{len(bad_slots)} tasks whose slots_taken != live leases + judgements")
    bad_completed = [t.pk for t in tasks if t.completed != (t.judged >= t.required_judgements)]
    if bad_completed:
        problems.append(f"{len(bad_completed)} tasks whose completed flag disagrees with their judgements")
    return problems


def backend_pids() -> list[int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return [row[0] for row in cursor.fetchall()]


# ---------------------------------------------------------------------------------------------
# Processes: gunicorn, the Celery worker, and CPU accounting from /proc


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_gunicorn(
    config: ServerConfig, environment: dict[str, str], workdir: Path
) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log = open(workdir / f"gunicorn-{config.key}.log", "w")  # noqa: SIM115 - lives as long as the server
    process = subprocess.Popen(
        config.argv(port, workdir / f"access-{config.key}.log"),
        cwd=PROJECT_DIR,
        env={**os.environ, **environment},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if requests.get(base_url + "/accounts/login/", timeout=5).status_code == 200:
                return process, base_url
        except requests.RequestException:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(
                f"gunicorn did not start:\n{(workdir / f'gunicorn-{config.key}.log').read_text()}"
            )
        time.sleep(0.2)


def start_worker(environment: dict[str, str], workdir: Path) -> subprocess.Popen:
    """The production worker command (docker/entrypoint.sh), on the bench database and Redis db."""
    log_path = workdir / "celery.log"
    log = open(log_path, "w")  # noqa: SIM115 - lives as long as the worker
    process = subprocess.Popen(
        [
            str(BIN / "celery"),
            "-A",
            "cranfield",
            "worker",
            "--loglevel",
            "INFO",
            "--concurrency",
            "2",
            "-n",
            "bench-load@%h",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=PROJECT_DIR,
        env={**os.environ, **environment},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while "ready." not in log_path.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"celery worker did not start:\n{log_path.read_text()}")
        time.sleep(0.2)
    return process


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# CPU accounting reads Linux's /proc; elsewhere the CPU figures are left out.
HAVE_PROC = Path("/proc/stat").exists()


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of one process (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def process_tree(pid: int) -> list[int]:
    """The process and its children (gunicorn's and Celery's workers)."""
    if not HAVE_PROC:
        return [pid]
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                children.append(int(entry.name))
    return [pid, *children]


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    if not HAVE_PROC:
        return 0.0, 0.0
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values) - idle) / CLOCK_TICKS, sum(values) / CLOCK_TICKS


@dataclass
class CpuMeter:
    """CPU seconds per group of processes over a window."""

    groups: dict[str, list[int]]
    start: dict[str, dict[int, float]] = field(default_factory=dict)

    def begin(self) -> None:
        self.start = {name: {pid: process_cpu(pid) for pid in pids} for name, pids in self.groups.items()}
        self.start_self = sum(os.times()[:2])
        self.start_machine = machine_busy()

    def end(self, groups: dict[str, list[int]]) -> dict[str, float]:
        used = {}
        for name, pids in groups.items():
            before = self.start.get(name, {})
            used[name] = sum(process_cpu(pid) - before.get(pid, 0.0) for pid in pids)
        used["load generator (this process)"] = sum(os.times()[:2]) - self.start_self
        busy, _ = machine_busy()
        used["other processes (other users of the machine)"] = max(
            0.0, busy - self.start_machine[0] - sum(used.values())
        )
        return used


# ---------------------------------------------------------------------------------------------
# The load


def annotator_loop(
    client: AnnotatorClient,
    project_id: int,
    scenario: Scenario,
    start_at: float,
    deadline: float,
    rng: random.Random,
    log: AnnotatorLog,
    inline: bool = True,
) -> None:
    """next task → think → submit until the deadline.

    ``inline`` (as the judging page's script goes): the submission's answer is the next task's page
    and tells the submission's outcome, so the judging page is opened only to start or when no task
    came with the answer. Otherwise (no script) every submission is followed by the judging page,
    which tells its outcome.
    """

    def think() -> None:
        if scenario.think is not None:
            time.sleep(rng.uniform(*scenario.think))

    time.sleep(max(0.0, start_at - time.perf_counter()))
    # Without the script, a submission's outcome is on the judging page opened after it.
    last_submit: Operation | None = None
    page: JudgePage | None = None
    failures = 0
    while True:
        if page is None:
            page = open_judging_page(client, project_id, inline, log)
            if page is None:
                failures += 1
                if failures > 20 or time.perf_counter() >= deadline:
                    return
                time.sleep(0.1)
                continue
            if last_submit is not None:
                record_outcome(last_submit, page, log)
                last_submit = None
        if page.assignment_id is None:
            log.finished_pool = True
            return
        if time.perf_counter() >= deadline:
            return
        think()
        page, last_submit = send_judgement(client, project_id, page.assignment_id, rng, inline, log)
        if page is None and last_submit is None:
            failures += 1


def send_judgement(
    client: AnnotatorClient,
    project_id: int,
    assignment_id: int,
    rng: random.Random,
    inline: bool,
    log: AnnotatorLog,
) -> tuple[JudgePage | None, Operation | None]:
    """Submit a judgement, timed. Returns the next task's page when the answer is that page (its
    outcome recorded), or the operation whose outcome the next judging page will tell."""
    started = time.perf_counter()
    try:
        answer = submit(client, project_id, assignment_id, rng.randint(0, 1), inline=inline)
    except ClientError as error:
        log.operations.append(Operation("submit", started, time.perf_counter() - started, "error"))
        log.problems.append(f"submit: {error}")
        if client.exchanges and client.exchanges[-1].status is None:
            log.unknown_submits += 1
        return None, None
    operation = Operation("submit", started, time.perf_counter() - started, "ok")
    log.operations.append(operation)
    if answer is None:
        return None, operation
    record_outcome(operation, answer, log)
    # No task in the answer: the pool ran dry for this annotator, or every item left was busy for
    # a moment; the judging page (and POST next) says which.
    return (answer if answer.assignment_id is not None else None), None


def open_judging_page(
    client: AnnotatorClient, project_id: int, inline: bool, log: AnnotatorLog
) -> JudgePage | None:
    """The judging page with a task if one is left (``next_task``), timed; None if it failed."""
    started = time.perf_counter()
    try:
        page = next_task(client, project_id, inline=inline)
    except ClientError as error:
        log.operations.append(Operation("next task", started, time.perf_counter() - started, "error"))
        log.problems.append(f"next task: {error}")
        return None
    log.operations.append(Operation("next task", started, time.perf_counter() - started, "ok"))
    return page


def record_outcome(operation: Operation, page: JudgePage, log: AnnotatorLog) -> None:
    """The page after a submission says whether it was accepted."""
    if page.errors():
        operation.outcome = "rejected"
        log.problems.append(f"submit rejected: {'; '.join(page.errors())}")
    else:
        log.accepted_submits += 1


def login_all(clients: list[AnnotatorClient], usernames: list[str], study: str = "") -> None:
    """Every annotator logged in through the login page; with ``study`` (a study link's slug), each
    arrives instead as a Prolific participant by the link (GET the welcome page, POST Start), as a
    crowd worker does, and becomes a pseudonymous annotator."""
    errors: list[BaseException] = []

    def one(client: AnnotatorClient, username: str) -> None:
        try:
            if study:
                number = usernames.index(username)
                path = f"/study/{study}/?PROLIFIC_PID={number:024x}&STUDY_ID=bench&SESSION_ID=s{number}"
                client.request("study link", "GET", path, {200})
                client.post("start", path, {}, {302})
            else:
                login(client, username, PASSWORD)
        except BaseException as error:  # reported below, after every thread has finished
            errors.append(error)

    threads = [threading.Thread(target=one, args=pair) for pair in zip(clients, usernames, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit(f"login failed: {errors[0]}")


@dataclass
class Figures:
    label: str
    count: int
    per_second: float
    p50: float
    p90: float
    p99: float
    worst: float
    errors: int

    def row(self) -> str:
        return (
            f"| {self.label} | {self.count} | {self.per_second:.1f} | {self.p50:.1f} | {self.p90:.1f} | "
            f"{self.p99:.1f} | {self.worst:.1f} | {self.errors} |"
        )


def figures(label: str, seconds: list[float], errors: int, window: float) -> Figures:
    if not seconds:
        return Figures(label, 0, 0.0, float("nan"), float("nan"), float("nan"), float("nan"), errors)
    ms = np.asarray(seconds) * 1000
    p50, p90, p99 = np.percentile(ms, [50, 90, 99])
    return Figures(label, len(ms), len(ms) / window, p50, p90, p99, float(ms.max()), errors)


TABLE_HEAD = (
    "| request | count | per s | p50 ms | p90 ms | p99 ms | max ms | errors |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- |"
)


def wait_for_quiet(max_seconds: float, threshold: float) -> float:
    """Wait until the machine is nearly idle (other users' load), at most ``max_seconds``; returns
    the share of all cores busy over the last 5 s before starting."""
    cores = os.cpu_count() or 1
    if not HAVE_PROC:
        return 0.0
    deadline = time.monotonic() + max_seconds
    while True:
        before = machine_busy()[0]
        time.sleep(5)
        busy = (machine_busy()[0] - before) / 5 / cores
        if busy < threshold or time.monotonic() >= deadline:
            return busy


def run_scenario(
    scenario: Scenario,
    clients: list[AnnotatorClient],
    project_id: int,
    meter_groups,
    seed: int,
    inline: bool = True,
) -> tuple[list[Figures], list[AnnotatorLog], dict[str, float], float]:
    for client in clients:
        client.exchanges.clear()
        client.retries = 0
    logs = [AnnotatorLog() for _ in clients]
    t0 = time.perf_counter() + 0.5
    deadline = t0 + scenario.seconds
    rng = random.Random(seed)
    stagger = scenario.think[1] if scenario.think else 0.0
    threads = [
        threading.Thread(
            target=annotator_loop,
            args=(
                client,
                project_id,
                scenario,
                t0 + rng.uniform(0, stagger),
                deadline,
                random.Random(seed * 1000 + i),
                log,
                inline,
            ),
        )
        for i, (client, log) in enumerate(zip(clients, logs, strict=True))
    ]
    meter = CpuMeter(meter_groups())
    meter.begin()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    cpu = meter.end(meter_groups())
    # Only what started inside the window counts; the page fetched after the deadline to read
    # the last submission's outcome does not.
    window = min(deadline, max(op.started + op.seconds for log in logs for op in log.operations)) - t0
    operations = [op for log in logs for op in log.operations if t0 <= op.started < deadline]
    exchanges: list[Exchange] = [e for c in clients for e in c.exchanges if t0 <= e.started < deadline]
    rows = []
    for kind, label in (("next task", "next task (judging page)"), ("submit", "submit (POST)")):
        ops = [op for op in operations if op.kind == kind]
        rows.append(figures(label, [op.seconds for op in ops], sum(op.outcome != "ok" for op in ops), window))
    # What the annotator waits for after pressing Enter: the submission and the page it leads to
    # (one request when the answer is that page).
    if inline:
        waits = [op.seconds for op in operations if op.kind == "submit"]
    else:
        waits = [
            first.seconds + then.seconds
            for log in logs
            for first, then in zip(log.operations, log.operations[1:], strict=False)
            if first.kind == "submit" and then.kind == "next task" and t0 <= first.started < deadline
        ]
    rows.append(figures("submit + next page (the annotator's wait)", waits, 0, window))
    for label in ("GET judge", "POST next", "POST submit"):
        chosen = [e for e in exchanges if e.label == label]
        rows.append(
            figures(
                f"HTTP {label}", [e.seconds for e in chosen], sum(e.status is None for e in chosen), window
            )
        )
    return rows, logs, cpu, window


# ---------------------------------------------------------------------------------------------
# In-process profile: queries and time per request


SAVEPOINT_NAME = re.compile(r'"s\d+_x\d+"')
# Only reads are explained: EXPLAIN ANALYZE executes the statement, and a repeated INSERT can fail.
EXPLAINABLE = ("SELECT",)


@dataclass
class Statement:
    sql: str  # with placeholders: the same text for every execution of the same query
    params: object
    seconds: float


@dataclass
class StatementTimer:
    """A ``connection.execute_wrapper`` recording each statement with a perf_counter time."""

    statements: list[Statement] = field(default_factory=list)

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.statements.append(Statement(sql, params, time.perf_counter() - started))


@dataclass
class RequestSample:
    seconds: float
    statements: list[Statement]
    commit_seconds: float
    app_cpu: float  # this thread's CPU: Django and the view, without waiting on PostgreSQL
    database_cpu: float  # the PostgreSQL backend's CPU (/proc, 10 ms ticks: meaningful as a mean)


def drive_requests(project_id: int, username: str, rounds: int, on_request, inline: bool = True) -> None:
    """``rounds`` judgements through Django's whole stack in-process. ``inline``: POST next, then
    POST submit answered with the next task's page, ``rounds`` times; otherwise POST next → GET
    judge → POST submit (answered with a redirect), ``rounds`` times."""
    from django.contrib.auth.models import User
    from django.test import Client

    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(User.objects.get(username=username))
    base = f"/projects/{project_id}"
    headers = {"headers": INLINE_HEADERS} if inline else {}
    if inline:
        answer = on_request("POST next", lambda: client.post(f"{base}/next/", **headers))
        page = read_judge_page(answer.content.decode())
    for _ in range(rounds):
        if not inline:
            on_request("POST next", lambda: client.post(f"{base}/next/"))
            page = read_judge_page(
                on_request("GET judge", lambda: client.get(f"{base}/judge/")).content.decode()
            )
        if page.assignment_id is None:
            return
        path = f"{base}/assignments/{page.assignment_id}/submit/"
        answer = on_request("POST submit", lambda path=path: client.post(path, {"label": "1"}, **headers))
        if inline:
            page = read_judge_page(answer.content.decode())


def profile_requests(
    project_id: int, username: str, rounds: int, inline: bool = True
) -> dict[str, list[RequestSample]]:
    """Time each request and each of its statements (and its COMMIT, where the WAL is flushed)."""
    from django.db import connection

    samples: dict[str, list[RequestSample]] = {"POST next": [], "GET judge": [], "POST submit": []}
    commits: list[float] = []
    original_commit = connection.commit

    def timed_commit():
        started = time.perf_counter()
        try:
            return original_commit()
        finally:
            commits.append(time.perf_counter() - started)

    def on_request(label, call):
        timer = StatementTimer()
        commits.clear()
        connection.ensure_connection()
        backend = connection.connection.info.backend_pid
        with connection.execute_wrapper(timer):
            database_cpu = process_cpu(backend)
            cpu = time.thread_time()
            started = time.perf_counter()
            response = call()
            seconds = time.perf_counter() - started
            cpu = time.thread_time() - cpu
            database_cpu = process_cpu(backend) - database_cpu
        samples[label].append(RequestSample(seconds, timer.statements, sum(commits), cpu, database_cpu))
        return response

    # Warm up first: templates, URL resolvers, the first queries.
    drive_requests(project_id, username, min(rounds, 3), lambda label, call: call(), inline)
    connection.commit = timed_commit  # ATOMIC_REQUESTS commits through connection.commit()
    try:
        drive_requests(project_id, username, rounds, on_request, inline)
    finally:
        del connection.commit
    return samples


def explain(statement: Statement) -> str:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + statement.sql, statement.params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        transaction.set_rollback(True)  # EXPLAIN ANALYZE ran the statement (and took its locks)
    return plan


def cumulative(stats: pstats.Stats, filename_part: str, function: str) -> float:
    return sum(
        value[3]
        for (filename, _, name), value in stats.stats.items()  # type: ignore[attr-defined]
        if name == function and filename_part in filename
    )


def short(sql: str, length: int = 130) -> str:
    text = " ".join(sql.split())
    return text if len(text) <= length else text[: length - 1] + "…"


def print_profile(
    title: str, project_id: int, username: str, rounds: int, top: int = 0, inline: bool = True
) -> None:
    """Profile the three requests in-process; ``top``: also list that many functions by own time."""
    samples = profile_requests(project_id, username, rounds, inline)
    print(f"\n### Profile: {title} (in-process, {rounds} rounds; wall times are medians)\n")
    print(
        "| request | SQL statements | request ms | in SQL ms | COMMIT ms | Django CPU ms (mean) "
        "| PostgreSQL CPU ms (mean) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    by_sql: dict[str, list[Statement]] = {}
    for label, chosen in samples.items():
        if not chosen:
            continue
        total = np.median([s.seconds for s in chosen]) * 1000
        sql = np.median([sum(q.seconds for q in s.statements) for s in chosen]) * 1000
        commit = np.median([s.commit_seconds for s in chosen]) * 1000
        counts = sorted({len(s.statements) for s in chosen})
        count_text = str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
        app_cpu = np.mean([s.app_cpu for s in chosen]) * 1000
        database_cpu = np.mean([s.database_cpu for s in chosen]) * 1000
        database_text = f"{database_cpu:.1f}" if HAVE_PROC else "n/a"
        print(
            f"| {label} | {count_text} | {total:.1f} | {sql:.1f} | {commit:.1f} | {app_cpu:.1f} "
            f"| {database_text} |"
        )
        for sample in chosen:
            for statement in sample.statements:
                by_sql.setdefault(SAVEPOINT_NAME.sub("sp", statement.sql), []).append(statement)
    print("\nStatements of one POST submit (ms):")
    for statement in samples["POST submit"][-1].statements if samples["POST submit"] else []:
        print(f"  {statement.seconds * 1000:6.2f}  {short(statement.sql)}")
    slowest = sorted(by_sql.values(), key=lambda runs: -float(np.mean([r.seconds for r in runs])))
    explainable = [runs for runs in slowest if runs[0].sql.lstrip().upper().startswith(EXPLAINABLE)]
    print("\nSlowest statements (mean ms over their executions):")
    for runs in slowest[:3]:
        print(f"  {np.mean([r.seconds for r in runs]) * 1000:6.2f}  x{len(runs)}  {short(runs[0].sql)}")
    claim = next((runs for runs in by_sql.values() if "SKIP LOCKED" in runs[0].sql), None)
    slowest_select = explainable[0] if explainable else None
    explained = []
    if slowest_select is not None and slowest_select is not claim:
        explained.append(("the slowest SELECT", slowest_select))
    if claim is not None:
        also = ", also the slowest SELECT" if claim is slowest_select else ""
        explained.append((f"the claim (FOR UPDATE SKIP LOCKED){also}", claim))
    for name, runs in explained:
        print(f"\nEXPLAIN ANALYZE of {name}:\n  {short(runs[-1].sql, 400)}")
        for line in explain(runs[-1]).splitlines():
            print("    " + line)

    profiler = cProfile.Profile()
    profiler.enable()
    drive_requests(project_id, username, rounds, lambda label, call: call(), inline)
    profiler.disable()
    stats = pstats.Stats(profiler)
    handler = cumulative(stats, "django/core/handlers/base.py", "get_response")
    sql = cumulative(stats, "django/db/backends/utils.py", "_execute")
    commit = cumulative(stats, "django/db/backends/base/base.py", "commit")
    pages = cumulative(stats, "django/shortcuts.py", "render")
    markdown_time = cumulative(stats, "annotation/judging/views.py", "render_markdown")
    print(
        f"\ncProfile, {rounds} more rounds: Django handler {handler:.2f} s = SQL {sql / handler:.0%}, "
        f"COMMIT {commit / handler:.0%}, page rendering {pages / handler:.0%}, Markdown + nh3 of the "
        f"instructions {markdown_time / handler:.0%}, the rest (middleware, sessions, messages, ORM) "
        f"{1 - (sql + commit + pages + markdown_time) / handler:.0%}"
    )
    if top:
        print(f"\nThe {top} functions with the most own time:")
        stats.sort_stats("tottime").print_stats(top)


# ---------------------------------------------------------------------------------------------


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add = parser.add_argument
    add("--quick", action="store_true", help="a smoke run: small numbers, a few seconds each")
    add("--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_load")
    add("--redis-url", default="redis://127.0.0.1:6379/12")
    add("--ground-truth", choices=["worker", "enqueue", "eager"], default="worker")
    add("--items", type=int, help="tasks in the project (default 2,000; quick 200)")
    add("--k", type=int, default=3)
    add("--annotators", type=int, help="default 50; quick 6")
    add("--start-judged", type=float, default=0.0, help="fraction of the pool judged before each scenario")
    add("--configs", help=f"gunicorn configurations, comma-separated, of {', '.join(CONFIGS)}")
    add("--scenarios", help="comma-separated, of realistic, tough, closed")
    add("--seconds", type=float, help="override every scenario's duration")
    add("--large-items", type=int, help="items of the second project profiled (0: none)")
    add("--profile-rounds", type=int, help="0: no profile")
    add("--profile-top", type=int, default=0, help="list this many functions by own time after the profile")
    add("--profile-only", action="store_true", help="no gunicorn, no load: only the profile")
    add(
        "--round-trip",
        choices=["inline", "redirect"],
        default="inline",
        help="inline: each submission is answered with the next task's page, as the judging page's "
        "script asks (one request per judgement); redirect: as a browser without the script goes "
        "(POST submit, then GET judge)",
    )
    add(
        "--by-link",
        action="store_true",
        help="the annotators arrive as Prolific participants by a study link (pseudonymous, sessions "
        "that never fill) instead of logging in: the capacity of link workers against account users",
    )
    add("--keep-database", action="store_true")
    add("--quiet-wait", type=float, help="wait up to this many s for an idle machine before each run")
    add("--quiet-threshold", type=float, default=0.2, help="idle: this share of all cores busy or less")
    args = parser.parse_args()
    args.inline = args.round_trip == "inline"
    args.items = args.items or (200 if args.quick else 2000)
    args.annotators = args.annotators or (6 if args.quick else 50)
    default_configs = "sync3" if args.quick else "sync3,gthread2x4"
    args.configs = (
        [] if args.profile_only else [CONFIGS[key] for key in (args.configs or default_configs).split(",")]
    )
    durations = {"realistic": 120.0, "tough": 60.0, "closed": 30.0}
    thinks = {"realistic": (2.0, 5.0), "tough": (0.25, 0.75), "closed": None}
    if args.quick:
        durations = dict.fromkeys(durations, 3.0)
    default_scenarios = "tough,closed" if args.quick else "realistic,tough,closed"
    args.scenarios = [
        Scenario(key, thinks[key], args.seconds or durations[key])
        for key in (args.scenarios or default_scenarios).split(",")
    ]
    if args.large_items is None:
        args.large_items = 1000 if args.quick else 100_000
    if args.quiet_wait is None:
        args.quiet_wait = 0 if args.quick else 600
    if args.profile_rounds is None:
        args.profile_rounds = 10 if args.quick else 100
    return args


def server_environment(args: argparse.Namespace, workdir: Path) -> dict[str, str]:
    """Production settings for gunicorn, the worker and this process (which seeds and profiles)."""
    environment = {
        "DATABASE_URL": args.database_url,
        "DEBUG": "false",
        "SECRET_KEY": SECRET_KEY,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_COOKIES": "false",  # plain HTTP on loopback: no TLS terminator in front
        "STATIC_ROOT": str(workdir / "static"),
        "LOG_LEVEL": "WARNING",
    }
    if args.ground_truth == "eager":
        os.environ.pop("REDIS_URL", None)
        environment["CELERY_TASK_ALWAYS_EAGER"] = "true"
    else:
        environment["REDIS_URL"] = args.redis_url
        environment["CELERY_TASK_ALWAYS_EAGER"] = "false"
    return environment


def report_scenario(
    title: str, rows: list[Figures], logs: list[AnnotatorLog], cpu: dict[str, float], window: float
) -> None:
    judgements = sum(log.accepted_submits for log in logs)
    print(f"\n### {title}, {window:.0f} s window\n")
    print(TABLE_HEAD)
    for row in rows:
        print(row.row())
    print(f"\njudgements: {judgements / window:.1f} per s")
    if HAVE_PROC:
        share = ", ".join(f"{name} {seconds / window:.0%}" for name, seconds in cpu.items())
        print(f"CPU (100% = one core): {share}")
        server_cpu = sum(seconds for name, seconds in cpu.items() if not name.startswith(("load", "other")))
        per_judgement = server_cpu / max(judgements, 1) * 1000
        cores = os.cpu_count() or 1
        print(
            f"server CPU per judgement (gunicorn + PostgreSQL + worker): {per_judgement:.1f} ms, so {cores} "
            f"dedicated cores would serve about {cores * 1000 / per_judgement:.0f} judgements per s"
        )
    seen = sorted({problem for log in logs for problem in log.problems})
    if seen:
        print(f"errors ({len(seen)} kinds): " + " | ".join(seen[:5]))
    if any(log.finished_pool for log in logs):
        print("note: the pool ran out for some annotators before the end of the window")
    worst_p99 = max(rows[0].p99, rows[1].p99)
    verdict = "met" if worst_p99 < 100 else "NOT met"
    print(f"target p99 < 100 ms for next task and submit: {verdict} (worst p99 {worst_p99:.0f} ms)")


SERVER_PATHS = (
    ("POST", "/submit/", "POST submit"),
    ("GET", "/judge/", "GET judge"),
    ("POST", "/next/", "POST next"),
)


def report_server_times(access_log: Path, offset: int) -> None:
    """gunicorn's own time per request in this scenario (from its access log, after ``offset``):
    what the server spent, without the wait in the listen queue or the client's side."""
    with open(access_log) as log:
        log.seek(offset)
        lines = [line.split() for line in log]
    print("\nserver side (gunicorn's request time, ms): ", end="")
    shown = []
    for method, part, label in SERVER_PATHS:
        times = [float(f[3]) for f in lines if len(f) == 4 and f[0] == method and f[1].endswith(part)]
        if times:
            p50, p99 = np.percentile(times, [50, 99])
            shown.append(f"{label} p50 {p50:.1f} / p99 {p99:.1f} / max {max(times):.0f}")
    print("; ".join(shown) or "no requests logged")


def run_load(
    args: argparse.Namespace, environment: dict, workdir: Path, project_id: int, users: list[str]
) -> bool:
    """Every configuration × scenario from a fresh state; True if every correctness check passed."""
    worker = start_worker(environment, workdir) if args.ground_truth == "worker" else None
    correct = True
    try:
        for config in args.configs:
            server, base_url = start_gunicorn(config, environment, workdir)
            try:
                clients = [AnnotatorClient(base_url) for _ in users]
                login_all(clients, users, args.study_slug)

                def groups(server=server):
                    found = {
                        "gunicorn": process_tree(server.pid),
                        "PostgreSQL (bench backends)": backend_pids(),
                    }
                    if worker is not None:
                        found["Celery worker"] = process_tree(worker.pid)
                    return found

                for index, scenario in enumerate(args.scenarios):
                    reset_project(project_id, worker_running=worker is not None)
                    already = advance_campaign(project_id, args.start_judged) if args.start_judged else 0
                    if args.quiet_wait:
                        busy = wait_for_quiet(args.quiet_wait, args.quiet_threshold)
                        print(f"\n(machine {busy:.0%} busy before this run)")
                    access_log = workdir / f"access-{config.key}.log"
                    logged_before = access_log.stat().st_size
                    rows, logs, cpu, window = run_scenario(
                        scenario, clients, project_id, groups, seed=index + 1, inline=args.inline
                    )
                    title = f"{config.describe()}; {scenario.describe()}; {len(users)} annotators"
                    report_scenario(title, rows, logs, cpu, window)
                    report_server_times(access_log, logged_before)
                    retries = sum(client.retries for client in clients)
                    if retries:
                        print(f"connections closed by the server on reuse, request sent again: {retries}")
                    problems = check_correctness(project_id, logs, already)
                    # A 5xx is a defect (the deadlock this found), never load: it fails the run too.
                    server_errors = sum(" answered 5" in problem for log in logs for problem in log.problems)
                    if server_errors:
                        problems.append(f"{server_errors} requests answered with a server error (5xx)")
                    if problems:
                        correct = False
                        print("correctness: FAILED: " + "; ".join(problems))
                    else:
                        print("correctness: ok (accepted judgements stored, none over k, no annotator twice)")
            finally:
                stop(server)
    finally:
        if worker is not None:
            stop(worker)
    return correct


def main() -> None:
    # Stopped with SIGTERM (a background run ignores SIGINT), still stop gunicorn and the worker
    # and drop the database: the finally blocks below run on SystemExit.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    args = parse_arguments()
    workdir = Path(tempfile.mkdtemp(prefix="bench-load-"))
    environment = server_environment(args, workdir)
    print(
        f"cores: {os.cpu_count()} (gunicorn, PostgreSQL, Redis, the Celery worker and this load generator "
        "share them)"
    )
    print(
        f"{args.items:,} items, k = {args.k}, {args.annotators} annotators; "
        f"ground truth: {args.ground_truth}; round trip: {args.round_trip}; "
        f"annotators {'arrive by a study link' if args.by_link else 'log in'}; "
        f"{time.strftime('%Y-%m-%d %H:%M')}"
    )
    started = time.perf_counter()
    if args.ground_truth != "eager":
        import redis

        # The bench's own Redis db: empty before, and emptied after of the jobs left queued.
        broker = redis.Redis.from_url(args.redis_url)
        broker.flushdb()
    recreate_database(args.database_url)
    try:
        setup_django(environment, workdir / "static")
        users = [f"annotator{i:02d}" for i in range(args.annotators)]
        project_id = seed_project("Load benchmark", args.items, args.k, users)
        args.study_slug = study_link(project_id) if args.by_link else ""
        vacuum_analyze()
        print(f"database migrated and seeded in {time.perf_counter() - started:.1f} s")
        correct = run_load(args, environment, workdir, project_id, users) if args.configs else True
        if args.profile_rounds:
            reset_project(project_id, worker_running=False)  # run_load stopped it
            advance_campaign(project_id, 1 / 3)
            title = f"{args.items:,} items, a third judged"
            print_profile(title, project_id, users[0], args.profile_rounds, args.profile_top, args.inline)
            if args.large_items:
                large = seed_project("Large", args.large_items, args.k, users, seed=1)
                advance_campaign(large, 1 / 3)
                title = f"{args.large_items:,} items, a third judged"
                print_profile(title, large, users[0], args.profile_rounds, args.profile_top, args.inline)
        print(f"\ntotal {time.perf_counter() - started:.0f} s")
        if not correct:
            raise SystemExit("correctness check failed")
    finally:
        if not args.keep_database:
            drop_database(args.database_url)
        if args.ground_truth != "eager":
            broker.flushdb()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
