"""An ir_datasets collection imported as a job: 100,000 generated documents and 1,000 topics (20 qrels
and a 100-deep scoreddocs run per topic), written as files and registered with ir_datasets in this
process (``JsonlDocs``, ``TsvQueries``, ``TrecQrels``, ``TrecScoredDocs``), then imported into a new
project by ``evaluation.irds`` as an import job run here, as ``manage.py import_ir_datasets`` runs it
(claimed, with heartbeat and progress, finished once; its run pooled to depth 10).

Beside it, in the same run, the time ir_datasets alone takes to read the same records, so the
import's cost over reading is a ratio measured on the same machine and load.

    .venv/bin/python benchmarks/bench_ir_datasets.py            # the issue's size
    .venv/bin/python benchmarks/bench_ir_datasets.py --quick    # 2,000 documents, 20 topics

Needs PostgreSQL (``--database-url``: that database is dropped and created again) and Redis
(``--redis-url``: the scoring the import announces is queued there, and that Redis database is
flushed at the end). Prints a Markdown table for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load import app_environment, drop_database  # noqa: E402

WORDS = ["boundary", "layer", "flow", "heat", "transfer", "wing", "flutter", "pressure", "shock", "laminar"]
DATASET = "bench-generated"
QRELS_PER_TOPIC = 20
RUN_DEPTH = 100


class TitledDoc(NamedTuple):
    doc_id: str
    title: str
    text: str


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_irds")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--documents", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="2,000 documents, 20 topics")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.documents, args.topics = 2000, 20
    return args


def write_collection(folder: Path, documents: int, topics: int) -> None:
    """The generated collection's files: the same every time (seeded)."""
    rng = random.Random(0)
    with open(folder / "docs.jsonl", "w") as out:
        for i in range(documents):
            text = " ".join(rng.choices(WORDS, k=120))
            out.write(json.dumps({"doc_id": f"D{i}", "title": f"document {i}", "text": text}) + "\n")
    with open(folder / "queries.tsv", "w") as out:
        for t in range(1, topics + 1):
            out.write(f"{t}\t{' '.join(rng.choices(WORDS, k=4))}\n")
    with open(folder / "qrels.txt", "w") as qrels, open(folder / "run.txt", "w") as run:
        for t in range(1, topics + 1):
            retrieved = rng.sample(range(documents), RUN_DEPTH)
            for d in retrieved[:QRELS_PER_TOPIC]:
                qrels.write(f"{t} 0 D{d} {rng.randint(0, 2)}\n")
            for rank, d in enumerate(retrieved, start=1):
                run.write(f"{t} Q0 D{d} {rank} {RUN_DEPTH - rank}.5 generated\n")


def register(folder: Path) -> None:
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import JsonlDocs, TrecQrels, TrecScoredDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    ir_datasets.registry.register(
        DATASET,
        Dataset(
            JsonlDocs(
                LocalDownload(folder / "docs.jsonl"),
                doc_cls=TitledDoc,
                mapping={field: field for field in TitledDoc._fields},
                docstore_path=str(folder / "docstore"),
            ),
            TsvQueries(LocalDownload(folder / "queries.tsv")),
            TrecQrels(LocalDownload(folder / "qrels.txt"), {}),
            TrecScoredDocs(LocalDownload(folder / "run.txt")),
        ),
    )


def reading_alone() -> float:
    """Seconds ir_datasets takes to read every record the import reads."""
    import ir_datasets

    dataset = ir_datasets.load(DATASET)
    started = time.perf_counter()
    for records in (
        dataset.queries_iter(),
        dataset.qrels_iter(),
        dataset.scoreddocs_iter(),
        dataset.docs_iter(),
    ):
        for _ in records:
            pass
    return time.perf_counter() - started


def import_as_job(owner) -> tuple[dict, float]:
    """The import as a job run in this process; its summary and seconds."""
    from django.db import transaction

    from annotation.models import Project
    from evaluation.collection import import_jobs
    from evaluation.irds.importing import choice_from, create_import
    from evaluation.models import ImportJob

    project = Project.objects.create(name="bench ir_datasets", owner=owner)
    request = {"dataset": DATASET, "title_field": "title", "scoreddocs": True, "pool_depth": 10}
    started = time.perf_counter()
    with transaction.atomic():
        job = create_import(owner, project, choice_from(request))
    import_jobs.run(job.pk)
    seconds = time.perf_counter() - started
    job.refresh_from_db()
    if job.status != ImportJob.Status.DONE:
        raise SystemExit(f"the import job failed: {job.errors or job.error}")
    return job.summary, seconds


def main() -> None:
    args = parse_arguments()
    folder = Path(tempfile.mkdtemp(prefix="bench-irds-"))
    started = time.perf_counter()
    write_collection(folder, args.documents, args.topics)
    generated = time.perf_counter() - started
    app_environment("irds", args.database_url, args.redis_url)
    register(folder)
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.create(username="bench-irds")
    try:
        alone = reading_alone()
        summary, seconds = import_as_job(owner)
    finally:
        if not args.keep_database:
            drop_database(args.database_url)
        import redis

        redis.Redis.from_url(args.redis_url).flushdb()
    size = sum(path.stat().st_size for path in folder.iterdir() if path.is_file())
    load = os.getloadavg()[0]
    print(
        f"\ncores: {os.cpu_count()}, load {load:.1f}; the job in this process; "
        f"files generated in {generated:.1f} s"
    )
    print("\n| collection | files (MB) | ir_datasets reading alone (s) | import job (s) | job / reading |")
    print("| --- | --- | --- | --- | --- |")
    label = (
        f"{summary['documents_created']:,} documents, {summary['topics_created']:,} topics, "
        f"{summary['qrels_created']:,} qrels, a run of {args.topics * RUN_DEPTH:,} lines pooled to 10 "
        f"({summary['tasks_created']:,} items)"
    )
    print(f"| {label} | {size / 1e6:.1f} | {alone:.1f} | {seconds:.1f} | {seconds / alone:.1f} |")


if __name__ == "__main__":
    main()
