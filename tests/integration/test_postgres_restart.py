"""PostgreSQL restarted mid-load: simulated annotators judge through gunicorn while the database is
stopped and started again under them. Every judgement the server acknowledged is stored, once;
nothing is half-written; while the database is down the answer is a 503 that says so (not a bare
500); service resumes by itself; and the ground truth catches up with every judgement afterwards.

The test runs its own PostgreSQL cluster (``initdb`` in a temporary directory, on a free port) and
its own gunicorn; the machine's PostgreSQL and Redis are never touched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import psycopg
import pytest
import requests

from tests.conftest import missing
from tests.integration.servers import Gunicorn, deployment_environment, free_port, manage

PG_BIN = Path("/usr/lib/postgresql/15/bin")
ANNOTATORS = 4
SETUP = """
from django.contrib.auth.models import User
from annotation.models import Project
from evaluation.collection.flow import import_collection
owner = User.objects.create_user("owner", password="x")
project = Project.objects.create(name="restart", owner=owner, assignments_per_task=2)
people = [User.objects.create_user(f"a{i}", password="judge-password-1") for i in range(4)]  # ANNOTATORS
project.annotators.set(people)
import_collection(project, topics=[{"id": "1", "title": "wing flutter"}],
    documents=[{"id": f"d{i}", "text": f"abstract {i}"} for i in range(400)],
    items=[{"topic": "1", "document": f"d{i}"} for i in range(400)])
print("PROJECT", project.pk)
"""


class Cluster:
    """A PostgreSQL cluster of the test's own, run as the ``postgres`` user (it refuses root)."""

    def __init__(self, root: Path) -> None:
        self.data = root / "data"
        self.port = free_port()
        self.log = root / "postgres.log"
        shutil.chown(root, "postgres")
        self.as_postgres([str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"])

    def as_postgres(self, argv: list[str]) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(prefix + argv, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options,
                          "-w", "start"])  # fmt: skip

    def stop(self) -> None:
        self.as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"])

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"


@pytest.fixture
def cluster():
    if not (PG_BIN / "initdb").exists() or shutil.which("runuser") is None:
        missing("this test starts its own PostgreSQL 15 cluster (initdb, pg_ctl and runuser), not installed")
    root = Path(tempfile.mkdtemp(prefix="cranfield-pg-"))
    own = Cluster(root)
    own.start()
    yield own
    with contextlib.suppress(subprocess.CalledProcessError):  # already stopped by a failing test
        own.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def server(cluster, tmp_path):
    with psycopg.connect(cluster.url("postgres"), autocommit=True) as connection:
        connection.execute("CREATE DATABASE cranfield")
    environment = deployment_environment(
        DATABASE_URL=cluster.url("cranfield"), DEBUG="false", SECRET_KEY="restart-test-" + "x" * 50,
        ALLOWED_HOSTS="127.0.0.1", SECURE_COOKIES="false", STATIC_ROOT=str(tmp_path / "static"),
        GROUND_TRUTH_DEBOUNCE_SECONDS="1",
        LOG_LEVEL="WARNING",
    )  # fmt: skip
    manage(environment, "migrate", "--noinput")
    manage(environment, "collectstatic", "--noinput")
    project_id = int(manage(environment, "shell", "-c", SETUP).split("PROJECT")[1].split()[0])
    gunicorn = Gunicorn(environment, tmp_path / "gunicorn.log")
    base = gunicorn.base
    yield base, project_id
    gunicorn.stop()


class Annotator(threading.Thread):
    """Logs in, then judges until told to stop; records what the server acknowledged and what it
    answered while it could not store anything."""

    def __init__(self, base: str, project_id: int, username: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        from benchmarks.annotator_client import AnnotatorClient

        self.client = AnnotatorClient(base, timeout=20)
        self.project_id = project_id
        self.username = username
        self.halt = stop
        self.acknowledged: list[int] = []  # assignments whose submission answered 302 (stored)
        self.refusals: Counter = Counter()  # (status, says why) of failed requests
        self.ok_times: list[float] = []  # when each stored submission was sent

    def run(self) -> None:
        from benchmarks.annotator_client import ClientError, login, next_task, submit

        login(self.client, self.username, "judge-password-1")
        while not self.halt.is_set():
            try:
                page = next_task(self.client, self.project_id)
                if page.assignment_id is None:
                    return
                sent = time.monotonic()  # when asked: a busy machine may record the answer's time late
                submit(self.client, self.project_id, page.assignment_id, 1)
                self.acknowledged.append(page.assignment_id)
                self.ok_times.append(sent)
            except ClientError:
                last = self.client.exchanges[-1]
                self.refusals[last.status] += 1
                time.sleep(0.2)


def stored(cluster) -> dict:
    with psycopg.connect(cluster.url("cranfield")) as connection:
        one = lambda sql: connection.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "judged assignments": {row[0] for row in connection.execute(
                "SELECT assignment_id FROM annotation_judgement").fetchall()},
            "twice": one("SELECT count(*) FROM (SELECT task_id, annotator_id FROM annotation_judgement "
                         "GROUP BY 1, 2 HAVING count(*) > 1) AS t"),
            "submitted without judgement": one(
                "SELECT count(*) FROM annotation_assignment a WHERE a.status = 'submitted' AND NOT EXISTS "
                "(SELECT 1 FROM annotation_judgement j WHERE j.assignment_id = a.id)"),
            "judgement without revision": one(
                "SELECT count(*) FROM annotation_judgement j WHERE NOT EXISTS "
                "(SELECT 1 FROM annotation_judgementrevision r WHERE r.judgement_id = j.id)"),
            "over k": one("SELECT count(*) FROM annotation_task t WHERE (SELECT count(*) FROM "
                          "annotation_judgement j WHERE j.task_id = t.id) > t.required_judgements"),
            "judgements": one("SELECT count(*) FROM annotation_judgement"),
            "snapshot read": one(
                "SELECT coalesce(max(input_judgement_count), 0) FROM evaluation_groundtruthsnapshot"),
        }  # fmt: skip


def test_a_postgres_restart_loses_nothing_and_service_resumes_by_itself(cluster, server):
    base, project_id = server
    halt = threading.Event()
    people = [Annotator(base, project_id, f"a{i}", halt) for i in range(ANNOTATORS)]
    for person in people:
        person.start()
    time.sleep(4)
    before = sum(len(p.acknowledged) for p in people)
    assert before > 0, [p.refusals for p in people]

    cluster.stop()
    stopped_at = time.monotonic()
    time.sleep(3)
    down_page = requests.get(f"{base}/projects/{project_id}/judge/", timeout=10)
    down_api = requests.get(f"{base}/api/projects/", timeout=10)
    cluster.start()
    restarted_at = time.monotonic()
    time.sleep(6)
    halt.set()
    for person in people:
        person.join(timeout=60)

    # While it was down: a 503 that says what happened, page and API alike.
    assert down_page.status_code == 503 and "database is unavailable" in down_page.text
    assert down_page.headers["Retry-After"] == "5"
    assert down_api.status_code == 503 and "database is unavailable" in down_api.json()["detail"]
    refusals = sum((p.refusals for p in people), Counter())
    assert set(refusals) <= {503}, refusals  # never a 500, never a dropped connection
    # Nothing acknowledged was lost or stored twice; nothing half-written.
    state = stored(cluster)
    acknowledged = [a for p in people for a in p.acknowledged]
    assert len(acknowledged) == len(set(acknowledged))
    assert set(acknowledged) <= state["judged assignments"]
    assert (state["twice"], state["submitted without judgement"], state["judgement without revision"],
            state["over k"]) == (0, 0, 0, 0)  # fmt: skip
    # Service resumed by itself, within seconds of the restart, without restarting gunicorn.
    resumed = [t for p in people for t in p.ok_times if t > restarted_at]
    assert resumed, f"no submission succeeded after the restart ({refusals})"
    assert min(resumed) - restarted_at < 5
    assert all(t < stopped_at or t > restarted_at - 0.5 for p in people for t in p.ok_times)
    # The ground truth catches up with every judgement (a job lost with the outage is replaced).
    deadline = time.monotonic() + 30
    while stored(cluster)["snapshot read"] < state["judgements"] and time.monotonic() < deadline:
        time.sleep(0.5)
    with psycopg.connect(cluster.url("cranfield")) as connection:
        jobs = connection.execute(
            "SELECT id, status, stage, error, created_at FROM evaluation_groundtruthjob ORDER BY id"
        ).fetchall()
        pending = connection.execute("SELECT ground_truth_pending FROM annotation_project").fetchall()
    assert stored(cluster)["snapshot read"] == state["judgements"], (
        "; ".join(f"{j[0]} {j[1]} {j[2][:40]} {j[3][:80]} {j[4]:%H:%M:%S}" for j in jobs),
        pending,
    )
