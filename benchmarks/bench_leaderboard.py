"""A campaign of 100 runs × 50 topics × 1,000 documents, end to end on PostgreSQL, Redis and real
Celery workers: import (store the runs, pool them), a ground truth from simulated judgements, then
the evaluation job (every run scored with every trec_eval measure, the trust checks) with 1 and
with 2 worker processes. Beside it, in this process, the metric computation alone (ours, and
pytrec_eval on the same qrels and runs) to show the share the maths takes of the job.

    .venv/bin/python benchmarks/bench_leaderboard.py            # the issue's size
    .venv/bin/python benchmarks/bench_leaderboard.py --quick    # 10 runs × 5 topics × 100 documents

Needs PostgreSQL and Redis (``--database-url``, ``--redis-url``); the database named there is
dropped and created again. Prints a Markdown table for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))
sys.path.insert(0, str(Path(__file__).resolve().parent))
BIN = Path(sys.executable).parent

from bench_load import app_environment, drop_database, stop  # noqa: E402


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_board")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/10")
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--depth", type=int, default=1000, help="documents per topic in each run")
    parser.add_argument("--pool-depth", type=int, default=10)
    parser.add_argument("--workers", default="1,2", help="worker process counts to time, comma-separated")
    parser.add_argument("--quick", action="store_true", help="10 runs × 5 topics × 100 documents, 1 worker")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.topics, args.depth, args.workers = 10, 5, 100, "1"
    return args


def collection(args: argparse.Namespace, seed: int = 0):
    """Topics, documents, each topic's relevant set, and run texts: each run ranks a topic's
    candidates by a noisy relevance signal of its own quality, so the runs differ and agree as real
    systems do (and the depth-k pool stays a few hundred documents per topic)."""
    rng = random.Random(seed)
    n_documents = max(4 * args.depth, 2000)
    documents = [{"id": f"D{i}", "text": f"document {i}"} for i in range(n_documents)]
    topics = [{"id": str(401 + t), "title": f"topic {t}"} for t in range(args.topics)]
    relevant = {}
    candidates = {}
    for topic in topics:
        pool = rng.sample(range(n_documents), min(n_documents, int(args.depth * 1.5)))
        relevant[topic["id"]] = set(pool[: max(5, args.depth // 25)])
        candidates[topic["id"]] = pool
    runs = []
    for r in range(args.runs):
        quality = rng.uniform(0.2, 3.0)
        lines = []
        for topic in topics:
            qid = topic["id"]
            scored = [(quality * (doc in relevant[qid]) + rng.gauss(0, 1), doc) for doc in candidates[qid]]
            scored.sort(reverse=True)
            lines.extend(
                f"{qid} Q0 D{doc} {rank} {score:.6f} run{r:03d}"
                for rank, (score, doc) in enumerate(scored[: args.depth], start=1)
            )
        runs.append("\n".join(lines) + "\n")
    return topics, documents, relevant, runs


def judge_pool(
    project, relevant: dict[str, set[int]], k: int = 3, accuracy: float = 0.85, seed: int = 1
) -> int:
    """k simulated judgements per pooled item (each right with probability ``accuracy``), stored as
    the assignment engine stores them (an assignment and a judgement each)."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import Assignment, Judgement

    rng = random.Random(seed)
    users = get_user_model()
    annotators = [users.objects.create(username=f"bench-board-{i}") for i in range(k)]
    project.annotators.set(annotators)
    tasks = list(project.tasks.values_list("pk", "topic__external_id", "document__external_id"))
    expires = timezone.now() + timedelta(hours=1)
    count, submitted = 0, Assignment.Status.SUBMITTED
    for annotator in annotators:
        assignments = Assignment.objects.bulk_create(
            [
                Assignment(task_id=pk, annotator=annotator, status=submitted, expires_at=expires)
                for pk, _, _ in tasks
            ],
            batch_size=5000,
        )
        judgements = []
        for assignment, (pk, topic, document) in zip(assignments, tasks, strict=True):
            truth = int(int(document[1:]) in relevant[topic])
            label = truth if rng.random() < accuracy else 1 - truth
            judgements.append(
                Judgement(
                    project=project, task_id=pk, annotator=annotator, assignment=assignment, label=label,
                    answer={"label": label},
                )
            )  # fmt: skip
        Judgement.objects.bulk_create(judgements, batch_size=5000)
        count += len(judgements)
    return count


def start_workers(count: int, environment: dict[str, str], workdir: Path) -> list[subprocess.Popen]:
    """``count`` worker processes of one child each (the production command's shape)."""
    processes = []
    for index in range(count):
        log_path = workdir / f"worker{index}.log"
        log = open(log_path, "w")  # noqa: SIM115 - lives as long as the worker
        processes.append(
            subprocess.Popen(
                [str(BIN / "celery"), "-A", "cranfield", "worker", "--loglevel", "INFO", "--concurrency", "1",
                 "-n", f"bench-board-{index}@%h", "--without-gossip", "--without-mingle",
                 "--prefetch-multiplier", "1"],
                cwd=PROJECT_DIR, env={**os.environ, **environment}, stdout=log, stderr=subprocess.STDOUT,
            )
        )  # fmt: skip
    for index, process in enumerate(processes):
        log_path = workdir / f"worker{index}.log"
        deadline = time.monotonic() + 60
        while "ready." not in log_path.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"celery worker did not start:\n{log_path.read_text()}")
            time.sleep(0.2)
    return processes


def timed_evaluation(project, snapshot, workers: int, environment, workdir: Path) -> float:
    """Seconds from the request to the job's done, with ``workers`` worker processes."""
    from evaluation.models import Evaluation
    from evaluation.scoring.jobs import request_evaluation

    processes = start_workers(workers, environment, workdir)
    try:
        started = time.perf_counter()
        evaluation = request_evaluation(project, snapshot=snapshot)
        while True:
            evaluation.refresh_from_db()
            if evaluation.status in {Evaluation.Status.DONE, Evaluation.Status.FAILED}:
                break
            time.sleep(0.1)
        elapsed = time.perf_counter() - started
        if evaluation.status != Evaluation.Status.DONE:
            raise SystemExit(f"evaluation failed: {evaluation.error}")
        return elapsed
    finally:
        for process in processes:
            stop(process)


def metric_share(project, snapshot) -> tuple[float, float, float]:
    """(ours, pytrec_eval, reading the runs) in seconds, every run against the snapshot's qrels."""
    import pytrec_eval

    from evaluation.collection.runs import stored_run
    from evaluation.ground_truth.downloads import snapshot_qrels
    from evaluation.metrics.trec.measures import evaluate, parse_measures

    qrels = snapshot_qrels(snapshot)
    started = time.perf_counter()
    runs = {run.tag: stored_run(run.pk) for run in project.runs.all()}
    reading = time.perf_counter() - started
    measures = parse_measures(["all_trec"])
    started = time.perf_counter()
    ours = {tag: evaluate(qrels, run, measures, complete=True) for tag, run in runs.items()}
    our_seconds = time.perf_counter() - started
    started = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, pytrec_eval.supported_measures)
    theirs = {tag: evaluator.evaluate(run) for tag, run in runs.items()}
    their_seconds = time.perf_counter() - started
    for tag in runs:  # the same numbers, or the timing means nothing
        for topic, values in theirs[tag].items():
            assert abs(values["map"] - ours[tag][topic]["map"]) < 1e-9, (tag, topic)
    return our_seconds, their_seconds, reading


def main() -> None:
    args = parse_arguments()
    workdir = Path(tempfile.mkdtemp(prefix="bench-board-"))
    environment = app_environment("leaderboard", args.database_url, args.redis_url)
    from django.contrib.auth import get_user_model

    from annotation.models import Project
    from evaluation.collection.flow import import_collection
    from evaluation.ground_truth.build import build_snapshot

    try:
        started = time.perf_counter()
        topics, documents, relevant, runs = collection(args)
        generating = time.perf_counter() - started
        owner = get_user_model().objects.create(username="bench-board-owner")
        project = Project.objects.create(name="bench leaderboard", owner=owner, assignments_per_task=3)
        started = time.perf_counter()
        summary = import_collection(
            project, topics=topics, documents=documents, runs=runs, pool_depth=args.pool_depth
        )
        importing = time.perf_counter() - started
        judgements = judge_pool(project, relevant)
        started = time.perf_counter()
        snapshot = build_snapshot(project.pk)
        snapshotting = time.perf_counter() - started
        timings = {
            workers: timed_evaluation(project, snapshot, workers, environment, workdir)
            for workers in (int(w) for w in args.workers.split(","))
        }
        ours, theirs, reading = metric_share(project, snapshot)
    finally:
        if not args.keep_database:
            drop_database(args.database_url)
    lines = sum(text.count("\n") for text in runs)
    print(f"\n{args.runs} runs × {args.topics} topics × {args.depth} documents ({lines:,} run lines), "
          f"pool depth {args.pool_depth}: {summary.tasks_created:,} items, "
          f"{judgements:,} simulated judgements; "
          f"os.cpu_count() {os.cpu_count()}, load {os.getloadavg()[0]:.1f}\n")  # fmt: skip
    print("| step | seconds |\n| --- | --- |")
    print(f"| generate the collection (not the app's work) | {generating:.1f} |")
    print(f"| import: parse, store {lines:,} run lines, pool | {importing:.1f} |")
    print(f"| ground-truth snapshot of {judgements:,} judgements | {snapshotting:.1f} |")
    for workers, seconds in timings.items():
        print(f"| evaluation job, {workers} worker process{'es' if workers > 1 else ''} | {seconds:.1f} |")
    print(f"| in one process: read every stored run | {reading:.1f} |")
    print(f"| in one process: our all_trec on every run | {ours:.1f} |")
    print(f"| in one process: pytrec_eval, all its measures, on every run | {theirs:.1f} |")
    if len(timings) > 1:
        one, two = timings.get(1), timings.get(2)
        if one and two:
            print(f"\n1 → 2 workers: {one / two:.2f}× faster.")
    print(f"pytrec_eval ÷ ours on the metric computation: {theirs / ours:.2f}.")


if __name__ == "__main__":
    main()
