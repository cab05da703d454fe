"""Text outputs scored and set against ratings: 20 systems × 1,000 inputs × 4 references.

    .venv/bin/python benchmarks/bench_text.py           # the issue's size (several minutes)
    .venv/bin/python benchmarks/bench_text.py --quick   # 4 systems × 30 inputs (a smoke run)

Texts are sentences of real summaries (``bench_rouge.sentences``: ROUGE-1.5.5's SL2003 sample and
DialSummEval's summaries when ``../shared/data`` has them, else the shipped demo's Cranfield
abstracts). Each input gets 4 references of 2–4 sentences; each system copies a share of one
reference's sentences (its skill) and fills the rest from the pool; simulated ratings on 4 dimensions
follow the skill with noise.

In one process, on the same outputs, each timed once (the machine is shared: read the ratios):

1. every metric of ``metrics.text_scores`` (ROUGE-1/2/L/Lsum/W/SU4, BLEU, chrF, TER, WER) on every
   output — what a text evaluation job computes;
2. ROUGE-1/2/L/Lsum stemmed, best of the 4 references: ours (``RougeScorer``) against rouge-score's
   ``score_multi``, after checking they agree on every output;
3. the meta-evaluation's matrix (10 metrics × 4 dimensions × 3 levels × 3 methods, no intervals):
   ours (``meta_evaluation.level_correlation``) against the same numbers by pandas group-bys and SciPy,
   after checking they agree.

With ``--app``, then the same campaign end to end through the application, on gunicorn (2 workers),
PostgreSQL, Redis and Celery worker processes (``--workers``, 2 by default, one child each;
``--database-url``, ``--redis-url``; that database is dropped and created again): a rating project
created over the API, the outputs, inputs and references sent as one import job, three simulated raters'
scores of every output sent to the judgement import, the worker's ground-truth snapshot (means, medians,
both alphas per dimension, with intervals), the text evaluation job (every metric on every output), and
the meta-evaluation read over the API (the matrix at each level, and one metric × dimension with every
bootstrap interval and Williams' test).

    .venv/bin/python benchmarks/bench_text.py --app          # pure, then through the app
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT_DIR))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402
from bench_rouge import sentences  # noqa: E402
from rouge_score import rouge_scorer  # noqa: E402
from scipy import stats  # noqa: E402

from evaluation.metrics.meta_evaluation import LEVELS, METHODS, level_correlation, paired  # noqa: E402
from evaluation.metrics.rouge.scores import RougeScorer  # noqa: E402
from evaluation.metrics.text.scores import METRICS, Output, score_outputs  # noqa: E402

DIMENSIONS = ("relevance", "consistency", "fluency", "coherence")
SCIPY = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}


def campaign(systems: int, inputs: int, references: int, seed: int = 0):
    pool, source = sentences()
    rng = random.Random(seed)
    refs = {
        f"in{i}": [" ".join(rng.sample(pool, rng.randint(2, 4))) for _ in range(references)]
        for i in range(inputs)
    }
    skills = {f"system{s:02d}": (s + 1) / (systems + 1) for s in range(systems)}
    outputs, ratings = [], {d: [] for d in DIMENSIONS}
    for system, skill in skills.items():
        for input_id, texts in refs.items():
            base = texts[rng.randrange(references)].split(". ")
            words = [part if rng.random() < skill else rng.choice(pool) for part in base]
            outputs.append(Output(system, input_id, ". ".join(words)))
            for dimension in DIMENSIONS:
                rating = min(5.0, max(1.0, 1 + 4 * skill + rng.gauss(0, 0.8)))
                ratings[dimension].append((system, input_id, rating))
    return outputs, refs, ratings, source


def timed(function):
    started = time.perf_counter()
    value = function()
    return value, time.perf_counter() - started


def scipy_matrix(metric_rows, human_rows) -> dict:
    """The same correlations with pandas group-bys and SciPy, written from the definitions."""
    frame = pd.DataFrame(metric_rows, columns=["system", "input", "metric"]).merge(
        pd.DataFrame(human_rows, columns=["system", "input", "human"]), on=["system", "input"]
    )
    out = {}
    for method, function in SCIPY.items():
        out[("global", method)] = function(frame["metric"], frame["human"]).statistic
        means = frame.groupby("system")[["metric", "human"]].mean()
        out[("system", method)] = function(means["metric"], means["human"]).statistic
        per_input = [function(g["metric"], g["human"]).statistic for _, g in frame.groupby("input")]
        out[("summary", method)] = float(pd.Series(per_input).mean())
    return out


def rater_scores(outputs, seed: int = 1) -> list[dict]:
    """Three simulated raters' integer scores of every output on every dimension (the pure part's
    mean ratings stand for what such raters average to; the app stores each rater's)."""
    rng = random.Random(seed)
    skills = {}
    rows = []
    for output in outputs:
        skill = skills.setdefault(output.system, int(output.system[-2:]) + 1)
        for rater in range(3):
            scores = {d: min(5, max(1, round(1 + 4 * skill / 21 + rng.gauss(0, 0.8)))) for d in DIMENSIONS}
            rows.append(
                {
                    "topic": output.input,
                    "document": f"{output.input}-{output.system}",
                    "annotator": f"bench-rater-{rater}",
                    "answer": {"scores": scores},
                }
            )
    return rows


def through_the_app(args, outputs, refs) -> list[tuple[str, float]]:
    """The campaign through gunicorn, PostgreSQL, Redis and a Celery worker; seconds per step."""
    import tempfile

    from bench_imports import researcher_session, run_job, start_server
    from bench_leaderboard import start_workers
    from bench_load import app_environment, drop_database, stop

    workdir = Path(tempfile.mkdtemp(prefix="bench-text-"))
    environment = app_environment(
        "text", args.database_url, args.redis_url, GROUND_TRUTH_DEBOUNCE_SECONDS="1"
    )
    _, session = researcher_session("bench-text")
    server, base = start_server(environment, workdir)
    workers = start_workers(args.workers, environment, workdir)
    steps: list[tuple[str, float]] = []

    def step(label: str, function):
        value, seconds = timed(function)
        steps.append((label, seconds))
        print(f"  {label}: {seconds:.1f} s", flush=True)
        return value

    def wait(url: str, done) -> dict:
        while True:
            found = session.get(url, timeout=60).json()
            if done(found):
                return found
            if found.get("status") == "failed":
                raise SystemExit(f"{url}: {found}")
            time.sleep(0.5)

    try:
        project = session.post(
            f"{base}/api/projects/",
            json={
                "name": "bench text",
                "task_type": "likert",
                "config": {"dimensions": list(DIMENSIONS), "scale": [1, 5]},
                "assignments_per_task": 3,
            },
        ).json()["id"]
        body = {
            "topics": [{"id": i, "title": f"input {i}"} for i in refs],
            "documents": [{"id": f"{o.input}-{o.system}", "text": o.text} for o in outputs],
            "items": [
                {"topic": o.input, "document": f"{o.input}-{o.system}", "system": o.system, "input": o.input}
                for o in outputs
            ],
            "references": [{"input": i, "text": t} for i, texts in refs.items() for t in texts],
        }
        step(
            f"import job: {len(outputs):,} outputs, {len(refs):,} inputs, "
            f"{sum(len(t) for t in refs.values()):,} references",
            lambda: run_job(
                session,
                f"{base}/api/projects/{project}/import-jobs/",
                json.dumps(body).encode(),
                "application/json",
            ),
        )
        ratings = rater_scores(outputs)

        def import_ratings():
            # In calls of 15,000 (a body stays under MAX_REQUEST_BODY_MB), each item's three at once.
            for start in range(0, len(ratings), 15_000):
                response = session.post(
                    f"{base}/api/projects/{project}/judgements/import/",
                    json={"judgements": ratings[start : start + 15_000], "create_annotators": True},
                    timeout=1200,
                )
                if response.status_code != 201:
                    raise SystemExit(f"judgement import: {response.status_code} {response.text[:500]}")

        step(f"judgement import: {len(ratings):,} ratings by 3 raters, in calls of 15,000", import_ratings)
        # The ratings arrive in several calls, and a snapshot may be written between two of them: wait
        # for the one built from all of them (timed from the last call's answer).
        step(
            "ground truth on the worker (means, medians, alphas with intervals)",
            lambda: wait(
                f"{base}/api/projects/{project}/snapshots/",
                lambda page: any(s["input_judgement_count"] == len(ratings) for s in page["results"]),
            ),
        )
        requested = session.post(f"{base}/api/projects/{project}/text-evaluations/", json={}).json()
        job = step(
            "text evaluation job on the worker (10 metrics × every output)",
            lambda: wait(requested["url"], lambda j: j["status"] == "done"),
        )
        matrix_url = f"{base}/api/projects/{project}/text-evaluations/{job['id']}/meta-evaluation/"
        for level in LEVELS:
            step(
                f"meta-evaluation matrix over the API, {level} level (40 cells)",
                lambda level=level: session.get(
                    matrix_url, params={"level": level, "method": "kendall"}, timeout=600
                ).raise_for_status(),
            )
        step(
            "one metric × dimension: 9 correlations with 200-resample intervals, Williams' test",
            lambda: session.get(
                f"{base}/api/projects/{project}/text-evaluations/{job['id']}/scatter/",
                params={"metric": "rouge2", "dimension": "relevance"},
                timeout=600,
            ).raise_for_status(),
        )
    finally:
        for process in [server, *workers]:
            stop(process)
        drop_database(args.database_url)
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--inputs", type=int, default=1000)
    parser.add_argument("--references", type=int, default=4)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--app", action="store_true", help="then end to end through the application")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/cranfield_bench_text")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--workers", type=int, default=2, help="Celery worker processes (one child each)")
    args = parser.parse_args()
    if args.quick:
        args.systems, args.inputs = 4, 30
    outputs, refs, ratings, source = campaign(args.systems, args.inputs, args.references)
    print(f"cores: {os.cpu_count()}; load {os.getloadavg()[0]:.1f}; texts: sentences of {source}")
    print(
        f"{args.systems} systems × {args.inputs:,} inputs × {args.references} references = "
        f"{len(outputs):,} outputs\n"
    )

    # Each metric alone on a sample: TER (sacrebleu's shift search) takes most of a job's time. The
    # in-process part then scores every output with every metric but TER (the full job, TER included,
    # runs through the application with --app).
    sample = outputs[:: max(1, len(outputs) // 1000)][:1000]
    per_metric = []
    for name, group in [("ROUGE ×6", list(METRICS[:6])), ("BLEU", ["bleu"]), ("chrF", ["chrf"]),
                        ("TER", ["ter"]), ("WER", ["wer"])]:  # fmt: skip
        _, seconds = timed(lambda group=group: score_outputs(sample, refs, metrics=group))
        per_metric.append((name, seconds))
    cheap = [name for name in METRICS if name != "ter"]
    every, every_seconds = timed(lambda: score_outputs(outputs, refs, metrics=cheap))
    ours_rouge = RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], stem=True)
    kit = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    mine, rouge_seconds = timed(lambda: [ours_rouge.score(o.text, refs[o.input]) for o in outputs])
    theirs, kit_seconds = timed(lambda: [kit.score_multi(refs[o.input], o.text) for o in outputs])
    worst = max(
        abs(a[name].fmeasure - b[name].fmeasure) for a, b in zip(mine, theirs, strict=True) for name in a
    )
    assert worst < 1e-12, f"ROUGE differs from rouge-score by {worst}"
    assert all(
        every.per_output[(o.system, o.input)]["rouge1"] == m["rouge1"].fmeasure
        for o, m in zip(outputs, mine, strict=True)
    )

    metric_rows = {m: [(s, i, v[m]) for (s, i), v in every.per_output.items()] for m in cheap}

    def ours_matrix():
        return {
            (m, d, level, method): level_correlation(paired(metric_rows[m], ratings[d]), level, method)
            for m in cheap
            for d in DIMENSIONS
            for level in LEVELS
            for method in METHODS
        }

    def their_matrix():
        found = {}
        for m in cheap:
            for d in DIMENSIONS:
                for (level, method), value in scipy_matrix(metric_rows[m], ratings[d]).items():
                    found[(m, d, level, method)] = value
        return found

    matrix, matrix_seconds = timed(ours_matrix)
    reference, scipy_seconds = timed(their_matrix)
    worst = max(abs(matrix[key] - reference[key]) for key in matrix)
    assert worst < 1e-9, f"correlations differ from SciPy's by {worst}"

    total = sum(seconds for _, seconds in per_metric)
    print(f"| each metric alone on {len(sample):,} outputs | seconds | share |")
    print("| --- | --- | --- |")
    for name, seconds in per_metric:
        print(f"| {name} | {seconds:.1f} | {seconds / total:.0%} |")
    print()
    rows = [
        ("every metric but TER on every output (ROUGE ×6, BLEU, chrF, WER)", every_seconds, None),
        (f"ROUGE-1/2/L/Lsum stemmed, best of {args.references}: rouge-score", rouge_seconds, kit_seconds),
        (
            f"meta-evaluation matrix ({len(matrix):,} correlations): pandas + SciPy",
            matrix_seconds,
            scipy_seconds,
        ),
    ]
    print("| step | ours (s) | peer (s) | peer / ours |")
    print("| --- | --- | --- | --- |")
    for label, ours, peer in rows:
        cells = f"{ours:.1f} | {peer:.1f} | {peer / ours:.2f}" if peer is not None else f"{ours:.1f} | — | —"
        print(f"| {label} | {cells} |")
    best = max(cheap, key=lambda m: matrix[(m, "relevance", "system", "kendall")])
    print(f"\nchecks: ROUGE equals rouge-score's on all {len(outputs):,} outputs; "
          f"{len(matrix):,} correlations equal SciPy's;")  # fmt: skip
    kendall = matrix[(best, "relevance", "system", "kendall")]
    print(f"system-level Kendall with relevance, best metric: {best} {kendall:.3f}")
    if args.app:
        print(
            f"\nThrough the application (gunicorn 2 workers, {args.workers} Celery worker "
            f"process{'es' if args.workers > 1 else ''}, PostgreSQL, Redis):"
        )
        steps = through_the_app(args, outputs, refs)
        print("\n| step, end to end | seconds |")
        print("| --- | --- |")
        for label, seconds in steps:
            print(f"| {label} | {seconds:.1f} |")
        print(f"| **all** | {sum(seconds for _, seconds in steps):.1f} |")
        print(f"\nload after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
