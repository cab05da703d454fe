"""A whole collection in one API call each, end to end on gunicorn, PostgreSQL, Redis and a real Celery
worker: 100,000 documents (with 1,000 topics), then a 1,000-topic × 1,000-deep run, each sent to
``POST /api/projects/<id>/import-jobs/`` (gzip) and polled to the end; then the project's bundle
exported (``GET …/bundle/``) and imported again as a new project (``POST /api/bundles/``).

Beside each, in this process, the same import through ``collection.import_from_body`` alone, so the
job's cost over the import itself is a ratio measured in the same run.

    .venv/bin/python benchmarks/bench_imports.py            # the issue's size
    .venv/bin/python benchmarks/bench_imports.py --quick    # 2,000 documents, 20 × 100 run

Needs PostgreSQL and Redis (``--database-url``, ``--redis-url``); the database named there is
dropped and created again. Prints a Markdown table for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))
sys.path.insert(0, str(Path(__file__).resolve().parent))
BIN = Path(sys.executable).parent

import requests  # noqa: E402
from bench_leaderboard import start_workers  # noqa: E402
from bench_load import app_environment, drop_database, free_port, stop  # noqa: E402

WORDS = ["boundary", "layer", "flow", "heat", "transfer", "wing", "flutter", "pressure", "shock", "laminar"]


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_imports"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/9")
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="2,000 documents, a 20-topic × 100-deep run")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.documents, args.topics, args.depth = 2000, 20, 100
    return args


def bodies(args: argparse.Namespace) -> tuple[bytes, bytes]:
    rng = random.Random(0)
    documents = [
        {"id": f"D{i}", "title": f"document {i}", "text": " ".join(rng.choices(WORDS, k=120))}
        for i in range(args.documents)
    ]
    topics = [{"id": str(t), "title": f"topic {t}"} for t in range(1, args.topics + 1)]
    lines = [
        f"{t} Q0 D{d} {rank} {args.depth - rank}.25 big\n"
        for t in range(1, args.topics + 1)
        for rank, d in enumerate(rng.sample(range(args.documents), args.depth), start=1)
    ]
    collection = json.dumps({"topics": topics, "documents": documents}).encode()
    run = json.dumps({"runs": ["".join(lines)], "pool_depth": 10}).encode()
    return collection, run


def start_server(environment: dict[str, str], workdir: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    log = open(workdir / "gunicorn.log", "w")  # noqa: SIM115 - lives as long as the server
    process = subprocess.Popen(
        [str(BIN / "gunicorn"), "cranfield.wsgi", "-b", f"127.0.0.1:{port}", "-w", "2", "--timeout", "600"],
        cwd=PROJECT_DIR, env={**os.environ, **environment}, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            requests.get(base + "/api/projects/", timeout=5)  # JSON: no page, so no static files needed
            return process, base
        except requests.RequestException:
            time.sleep(0.1)
    raise SystemExit("gunicorn did not start: " + (workdir / "gunicorn.log").read_text())


def run_job(session: requests.Session, url: str, body: bytes, content_type: str) -> tuple[dict, float, float]:
    """Send a body as an import job (gzip); return the finished job, the upload's and the whole's seconds."""
    started = time.perf_counter()
    packed = gzip.compress(body, compresslevel=1)
    response = session.post(
        url, data=packed, headers={"Content-Type": content_type, "Content-Encoding": "gzip"}, timeout=600
    )
    uploaded = time.perf_counter() - started
    if response.status_code != 202:
        raise SystemExit(f"{url}: {response.status_code} {response.text[:500]}")
    job = response.json()
    while job["status"] in {"queued", "running"}:
        time.sleep(0.25)
        job = session.get(job["url"], timeout=30).json()
    if job["status"] != "done":
        raise SystemExit(f"import job failed: {job}")
    return job, uploaded, time.perf_counter() - started


def direct(project, body: bytes) -> float:
    """The same import in this process, without the API or the job: the work itself."""
    from evaluation.collection.flow import import_from_body

    started = time.perf_counter()
    import_from_body(project, json.loads(body))
    return time.perf_counter() - started


def researcher_session(username: str):
    """A new researcher account and an HTTP session that sends its API token."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from rest_framework.authtoken.models import Token

    from annotation.permissions import RESEARCHERS_GROUP

    owner = get_user_model().objects.create(username=username)
    owner.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    session = requests.Session()
    session.headers["Authorization"] = f"Token {Token.objects.create(user=owner).key}"
    return owner, session


def main() -> None:
    args = parse_arguments()
    workdir = Path(tempfile.mkdtemp(prefix="bench-imports-"))
    environment = app_environment("imports", args.database_url, args.redis_url)
    from annotation.models import Project

    collection, run = bodies(args)
    owner, session = researcher_session("bench-imports")
    server, base = start_server(environment, workdir)
    workers = start_workers(1, environment, workdir)
    rows = []
    try:
        via_api = Project.objects.create(name="bench imports", owner=owner)
        in_process = Project.objects.create(name="bench imports, direct", owner=owner)
        jobs_url = f"{base}/api/projects/{via_api.pk}/import-jobs/"
        named = [
            (f"{args.documents:,} documents, {args.topics:,} topics", collection),
            (f"a {args.topics:,}-topic × {args.depth:,}-deep run, pooled to 10", run),
        ]
        for label, body in named:
            _, uploaded, total = run_job(session, jobs_url, body, "application/json")
            alone = direct(in_process, body)
            rows.append((label, len(body), uploaded, total, alone))
        started = time.perf_counter()
        bundle = session.get(f"{base}/api/projects/{via_api.pk}/bundle/", timeout=600)
        exporting = time.perf_counter() - started
        bundle.raise_for_status()
        bundle_job, _, bundle_seconds = run_job(
            session, f"{base}/api/bundles/", bundle.content, "application/zip"
        )
        counts = bundle_job["summary"]["counts"]
    finally:
        for process in [server, *workers]:
            stop(process)
        if not args.keep_database:
            drop_database(args.database_url)
    load = os.getloadavg()[0]
    print(f"\nos.cpu_count() {os.cpu_count()}, load {load:.1f}; gunicorn 2 workers, 1 Celery worker\n")
    print("| one API call | body (MB) | upload (s) | call to job done (s) | import alone (s) | ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, size, uploaded, total, alone in rows:
        cells = f"{size / 1e6:.1f} | {uploaded:.1f} | {total:.1f} | {alone:.1f} | {total / alone:.2f}"
        print(f"| {label} | {cells} |")
    print(f"\nBundle of the result: {len(bundle.content) / 1e6:.1f} MB, exported in {exporting:.1f} s; "
          f"imported as a new project in {bundle_seconds:.1f} s ({counts}).")  # fmt: skip


if __name__ == "__main__":
    main()
