"""A LitePyramid campaign at REALSumm's size through the app (issue 26), on PostgreSQL: each stage timed.

    .venv/bin/python benchmarks/bench_pyramid.py           # 100 inputs × 25 systems × 10 SCUs, k = 3
    .venv/bin/python benchmarks/bench_pyramid.py --quick   # 5 inputs × 5 systems × 4 SCUs (a smoke run)

1. **import**: references (two per input), SCUs (weights 1–2 from the references that express them) and
   the systems' summaries, one body to ``POST /api/projects/<id>/pyramid/import/`` through Django's
   whole request path in this process (middleware, token, JSON parser, view): 25,000 presence items;
2. **judge**: a simulated crowd of 30 workers (accuracies U(0.7, 0.95)) answers every item k = 3 times
   (75,000 judgements), sent to the judgement import in calls of 25,000 (the path for answers collected
   on a crowd platform);
3. **ground truth**: the snapshot (majority vote, agreement with intervals);
4. **scores**: every summary's and system's Pyramid, modified Pyramid and LitePyramid with bootstrap
   intervals and the per-system Fleiss' kappa and Krippendorff's alpha (``pyramid.scores``), and beside it
   the pure scoring alone (``metrics.pyramid``) on the same labels.

The database named by ``--database-url`` is dropped and created again. Prints Markdown for BENCHMARKS.md
with the machine's core count.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_judgements import researcher, send
from bench_load import app_environment, drop_database


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_pyramid"
    )
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/5")
    parser.add_argument("--inputs", type=int, default=100)
    parser.add_argument("--systems", type=int, default=25)
    parser.add_argument("--units", type=int, default=10, help="SCUs per input")
    parser.add_argument("--quick", action="store_true", help="5 inputs × 5 systems × 4 SCUs")
    parser.add_argument("--keep-database", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.inputs, args.systems, args.units = 5, 5, 4
    return args


def body(args: argparse.Namespace, rng: random.Random) -> dict:
    words = [f"w{n}" for n in range(2000)]
    references, units, summaries = [], [], []
    for i in range(args.inputs):
        references += [
            {"input": f"d{i}", "id": r, "text": " ".join(rng.sample(words, 60))} for r in ("r1", "r2")
        ]
        for u in range(args.units):
            named = rng.choice((["r1"], ["r2"], ["r1", "r2"]))
            units.append(
                {
                    "input": f"d{i}",
                    "id": str(u),
                    "statement": " ".join(rng.sample(words, 8)),
                    "references": named,
                }
            )
        for s in range(args.systems):
            summaries.append(
                {"input": f"d{i}", "system": f"sys{s:02d}", "text": " ".join(rng.sample(words, 70))}
            )
    return {"references": references, "units": units, "summaries": summaries}


def answers(campaign: dict, rng: random.Random, k: int = 3) -> list[dict]:
    """Every item's k answers by distinct simulated workers; each summary's true presence rate is its
    system's skill, and each worker is right with their own accuracy."""
    workers = [(f"worker{n:02d}", rng.uniform(0.7, 0.95)) for n in range(30)]
    skill = {s["system"]: 0.2 + 0.6 * int(s["system"][3:]) / 25 for s in campaign["summaries"]}
    by_input: dict[str, list[str]] = {}
    for unit in campaign["units"]:
        by_input.setdefault(unit["input"], []).append(unit["id"])
    rows = []
    for summary in campaign["summaries"]:
        for unit in by_input[summary["input"]]:
            truth = int(rng.random() < skill[summary["system"]])
            for worker, accuracy in rng.sample(workers, k):
                label = truth if rng.random() < accuracy else 1 - truth
                rows.append(
                    {
                        "topic": f"{summary['input']}#{unit}",
                        "document": f"{summary['system']}#{summary['input']}",
                        "annotator": worker,
                        "label": label,
                    }
                )
    return rows


def main() -> None:
    args = parse_arguments()
    app_environment("pyramid", args.database_url, args.redis_url, CELERY_TASK_ALWAYS_EAGER="false")
    from annotation.models import Project
    from evaluation.ground_truth.build import build_snapshot
    from evaluation.metrics.pyramid import summary_scores, system_scores
    from evaluation.pyramid.scores import pyramid_inputs, snapshot_pyramid

    rng = random.Random(26)
    owner, client = researcher()
    lines = []
    try:
        project = Project.objects.create(
            name="bench pyramid", owner=owner, task_type="scu_presence", assignments_per_task=3
        )
        campaign = body(args, rng)
        started = time.perf_counter()
        response = client.post(
            f"/api/projects/{project.pk}/pyramid/import/",
            json.dumps(campaign),
            content_type="application/json",
        )
        if response.status_code != 201:
            raise SystemExit(f"pyramid import: {response.status_code} {response.content[:500]!r}")
        items = response.json()["tasks_created"]
        lines.append(
            (
                "import (references, SCUs, summaries → items)",
                f"{items:,} items",
                time.perf_counter() - started,
            )
        )
        rows = answers(campaign, rng)
        started = time.perf_counter()
        send(client, project.pk, rows, 25_000)
        lines.append(("judge (judgement import)", f"{len(rows):,} judgements", time.perf_counter() - started))
        started = time.perf_counter()
        snapshot = build_snapshot(project.pk)
        lines.append(
            (
                "ground truth (majority, agreement)",
                f"snapshot v{snapshot.version}",
                time.perf_counter() - started,
            )
        )
        started = time.perf_counter()
        scores = snapshot_pyramid(snapshot)
        lines.append(
            (
                "scores (summaries, systems, agreement)",
                f"{len(scores['summaries']):,} summaries",
                time.perf_counter() - started,
            )
        )
        weights, references = pyramid_inputs(project)
        present: dict = {}
        labels = dict(snapshot.labels.values_list("task_id", "label"))
        for task_id, topic_id, system, input_id in project.tasks.values_list(
            "pk", "topic_id", "system_id", "input_id"
        ):
            found = present.setdefault((system, input_id), set())
            if labels.get(task_id) == 1:
                found.add(str(topic_id))
        started = time.perf_counter()
        system_scores(summary_scores(weights, present, references))
        lines.append(("of which the pure scoring (metrics.pyramid)", "", time.perf_counter() - started))
    finally:
        if not args.keep_database:
            drop_database(args.database_url)
    size = f"{args.inputs} inputs × {args.systems} systems × {args.units} SCUs, k = 3"
    print(f"\n{size}; cores: {os.cpu_count()}\n")
    print("| stage | size | seconds |")
    print("| --- | ---: | ---: |")
    for stage, size, seconds in lines:
        print(f"| {stage} | {size} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
