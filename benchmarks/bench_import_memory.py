"""Peak memory of the web and worker processes while a large collection goes through an import job
(issue 27): bodies of 100 MB, 500 MB and 1 GB sent to ``POST /api/projects/<id>/import-jobs/`` on
gunicorn as ``docker/entrypoint.sh`` runs it (``cranfield/gunicorn.py``), PostgreSQL, Redis and a real
Celery worker, each size on freshly started processes. The peak is each process's ``VmHWM`` from
/proc (its resident high-water mark since it started); the idle figure is the same just before the
upload, so the difference is what the import cost.

    .venv/bin/python benchmarks/bench_import_memory.py                 # 100, 500 and 1,000 MB
    .venv/bin/python benchmarks/bench_import_memory.py --bundles       # … and each project's bundle
    .venv/bin/python benchmarks/bench_import_memory.py --sizes 20      # a quick look

The body is written to a temporary file first and sent from it (the sender holds none of it). Needs
PostgreSQL and Redis (``--database-url``, ``--redis-url``); the database named there is dropped and
created again. Prints a Markdown table for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
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
from bench_imports import researcher_session  # noqa: E402
from bench_load import app_environment, drop_database, free_port, process_tree, start_worker, stop  # noqa: E402

WORDS = ["boundary", "layer", "flow", "heat", "transfer", "wing", "flutter", "pressure", "shock", "laminar"]
MB = 1_000_000


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_memory")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/6")
    parser.add_argument(
        "--sizes", default="100,500,1000", help="body sizes in MB (10^6 bytes), comma-separated"
    )
    parser.add_argument("--bundles", action="store_true", help="also export and import each project's bundle")
    parser.add_argument("--keep-database", action="store_true")
    return parser.parse_args()


def write_body(path: Path, size: int, seed: int = 0) -> int:
    """A collection of about ``size`` bytes, nearly all documents of ~2 kB of text (a real collection's
    shape: 1 GB is 500,000 abstracts), 50 topics and a run pooled to depth 10; returns the documents'
    count."""
    rng = random.Random(seed)
    topics = [{"id": str(t), "title": f"topic {t}"} for t in range(1, 51)]
    run = "".join(f"{t} Q0 D{t * 10 + r} {r + 1} {100 - r}.5 sys\n" for t in range(1, 51) for r in range(20))
    with path.open("wb") as out:
        out.write(json.dumps({"topics": topics, "runs": [run], "pool_depth": 10})[:-1].encode())
        out.write(b', "documents": [')
        written, count = out.tell(), 0
        while written < size - 3000:
            text = " ".join(rng.choices(WORDS, k=260))
            entry = json.dumps({"id": f"D{count}", "title": f"report {count}", "text": text}).encode()
            out.write((b", " if count else b"") + entry)
            written += len(entry) + 2
            count += 1
        out.write(b"]}")
    return count


def peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def children_peak(parent: int) -> int:
    """The largest high-water mark of ``parent``'s children (gunicorn's workers, Celery's pool), MB."""
    return max((peak_kb(pid) for pid in process_tree(parent)[1:]), default=0) // 1000


def start_web(environment: dict[str, str], workdir: Path) -> tuple[subprocess.Popen, str]:
    """gunicorn with the production settings (``cranfield/gunicorn.py``) on a free port."""
    port = free_port()
    log = open(workdir / "gunicorn.log", "w")  # noqa: SIM115 - lives as long as the server
    process = subprocess.Popen(
        [str(BIN / "gunicorn"), "cranfield.wsgi:application", "-c", "python:cranfield.gunicorn",
         "--bind", f"127.0.0.1:{port}", "--access-logfile", str(workdir / "access.log")],
        cwd=PROJECT_DIR, env={**os.environ, **environment}, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            requests.get(base + "/api/projects/", timeout=5)
            return process, base
        except requests.RequestException:
            time.sleep(0.1)
    raise SystemExit("gunicorn did not start: " + (workdir / "gunicorn.log").read_text())


def wait_for(session: requests.Session, job: dict, what: str) -> dict:
    while job["status"] in {"queued", "running"}:
        time.sleep(1)
        job = session.get(job["url"], timeout=60).json()
    if job["status"] != "done":
        raise SystemExit(f"{what}: the job failed: {job}")
    return job


def row(
    step: str, size: int, documents: int, processes: tuple, idle: tuple, sent: float, done: float
) -> dict:
    """One table row: ``processes`` (web, worker) and their ``idle`` peaks, read now."""
    web, worker = processes
    return {
        "step": step, "size": size, "documents": documents, "uploaded": sent, "done": done,
        "web": (idle[0], children_peak(web.pid)), "worker": (idle[1], children_peak(worker.pid)),
    }  # fmt: skip


def measure(size_mb: int, environment: dict[str, str], workdir: Path, bundles: bool) -> list[dict]:
    """The collection's import as a job; with ``bundles``, then its bundle exported and imported as a
    new project, on processes started afresh. One row per step."""
    from annotation.models import Document, Project

    body = workdir / "body.json"
    documents = write_body(body, size_mb * MB)
    owner, session = researcher_session(f"memory-{size_mb}")
    project = Project.objects.create(name=f"{size_mb} MB", owner=owner)
    rows = []
    web, base = start_web(environment, workdir)
    worker = start_worker(environment, workdir)
    try:
        idle_web, idle_worker = children_peak(web.pid), children_peak(worker.pid)
        started = time.perf_counter()
        with body.open("rb") as data:
            response = session.post(
                f"{base}/api/projects/{project.pk}/import-jobs/",
                data=data,
                headers={"Content-Type": "application/json"},
                timeout=3600,
            )
        uploaded = time.perf_counter() - started
        if response.status_code != 202:
            raise SystemExit(f"{size_mb} MB: {response.status_code} {response.text[:500]}")
        wait_for(session, response.json(), f"{size_mb} MB")
        stored = Document.objects.filter(project=project).count()
        if stored != documents:
            raise SystemExit(f"{size_mb} MB: {stored:,} documents stored of {documents:,}")
        done = time.perf_counter() - started
        idle = (idle_web, idle_worker)
        rows.append(
            row("collection import job", body.stat().st_size, documents, (web, worker), idle, uploaded, done)
        )
    finally:
        stop(web)
        stop(worker)
        body.unlink()
    if not bundles:
        return rows
    bundle = workdir / "bundle.zip"
    web, base = start_web(environment, workdir)
    worker = start_worker(environment, workdir)
    try:
        idle_web, idle_worker = children_peak(web.pid), children_peak(worker.pid)
        started = time.perf_counter()
        with session.get(f"{base}/api/projects/{project.pk}/bundle/", stream=True, timeout=3600) as response:
            response.raise_for_status()
            with bundle.open("wb") as out:
                for piece in response.iter_content(1 << 20):
                    out.write(piece)
        exported = time.perf_counter() - started
        idle = (idle_web, idle_worker)
        rows.append(
            row("bundle export", bundle.stat().st_size, documents, (web, worker), idle, exported, exported)
        )
        started = time.perf_counter()
        with bundle.open("rb") as data:
            response = session.post(
                f"{base}/api/bundles/", data=data, headers={"Content-Type": "application/zip"}, timeout=3600
            )
        uploaded = time.perf_counter() - started
        if response.status_code != 202:
            raise SystemExit(f"{size_mb} MB bundle: {response.status_code} {response.text[:500]}")
        job = wait_for(session, response.json(), f"{size_mb} MB bundle")
        copy = Project.objects.exclude(pk=project.pk).filter(owner=owner).get()
        if Document.objects.filter(project=copy).count() != documents:
            raise SystemExit(f"{size_mb} MB bundle: the copy lacks documents ({job})")
        done = time.perf_counter() - started
        rows.append(
            row("bundle import job", bundle.stat().st_size, documents, (web, worker), idle, uploaded, done)
        )
    finally:
        stop(web)
        stop(worker)
        bundle.unlink(missing_ok=True)
    return rows


def main() -> None:
    args = parse_arguments()
    environment = app_environment("memory", args.database_url, args.redis_url)
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-memory-") as directory:
            for size in [int(s) for s in args.sizes.split(",")]:
                for row in measure(size, environment, Path(directory), args.bundles):
                    rows.append(row)
                    print(f"{size} MB: {row}", file=sys.stderr, flush=True)
    finally:
        if not args.keep_database:
            drop_database(args.database_url)
    print(
        f"\n{os.cpu_count()} cores; peak resident memory (VmHWM) of each process, idle → after the import\n"
    )
    print(
        "| step | body | documents | web (gunicorn worker) MB | worker (Celery child) MB | sent s | done s |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['step']} | {row['size'] / MB:,.0f} MB | {row['documents']:,} "
            f"| {row['web'][0]} → {row['web'][1]} | {row['worker'][0]} → {row['worker'][1]} "
            f"| {row['uploaded']:.1f} | {row['done']:.1f} |"
        )


if __name__ == "__main__":
    main()
