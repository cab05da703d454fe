"""Each benchmark runs in its --quick form, so a broken benchmark is caught by the suite."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_DIR, missing


def run_benchmark(script: str, *arguments: str, timeout: int = 300) -> str:
    """``benchmarks/<script> arguments`` in a fresh interpreter; its standard output once it succeeded."""
    result = subprocess.run(
        [sys.executable, str(PROJECT_DIR / "benchmarks" / script), *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=PROJECT_DIR,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.parametrize("script", ["bench_trec_eval.py", "bench_crowd.py", "bench_rouge.py"])
def test_benchmark_quick_mode_reports_ratios(script):
    stdout = run_benchmark(script, "--quick")
    assert "cores: " in stdout
    assert "/ ours" in stdout or "/cranfield" in stdout
    if script == "bench_rouge.py":  # real summaries from ../shared/data, else the shipped demo's abstracts
        assert "texts: sentences of " in stdout


def own_database(suffix: str, who: str) -> str:
    """A PostgreSQL URL beside the test database's, for a benchmark to drop and create."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.postgresql":
        missing(f"{who} needs PostgreSQL: set DATABASE_URL=postgres://… (dev.py test does)")
    host, port = database["HOST"] or "127.0.0.1", database["PORT"] or 5432
    return f"postgres://{database['USER']}@{host}:{port}/{database['NAME']}_{suffix}"


def run_on_own_services(script: str, redis_url: str, redis_db: int, *arguments: str) -> str:
    """``benchmarks/<script> arguments`` on a database and a Redis db of its own: a worker another
    benchmark or the integration tests left on theirs must not take its jobs (each db number is
    used by one benchmark only)."""
    name = script.removeprefix("bench_").removesuffix(".py").replace("_", "")
    return run_benchmark(
        script,
        *arguments,
        "--database-url",
        own_database(f"{name}smoke", f"benchmarks/{script}"),
        "--redis-url",
        f"{redis_url.rsplit('/', 1)[0]}/{redis_db}",
    )


def test_load_benchmark_quick_mode_checks_correctness_under_gunicorn():
    """The load benchmark end to end on a small scale: its own PostgreSQL database, gunicorn, the
    client layer, the correctness check and the profile. Ground truth runs eagerly: the Redis db
    of the test run is flushed by other tests, so the smoke run leaves Redis alone."""
    url = own_database("loadsmoke", "the load benchmark")
    stdout = run_benchmark(
        "bench_load.py",
        "--quick",
        "--database-url",
        url,
        "--ground-truth",
        "eager",
        "--scenarios",
        "closed",
        "--annotators",
        "4",
        "--seconds",
        "1.5",
        "--large-items",
        "0",
        "--profile-rounds",
        "3",
        timeout=120,
    )
    assert "cores: " in stdout
    assert "correctness: ok" in stdout
    table = re.search(r"\| submit \(POST\) \| (\d+) \|", stdout)
    assert table is not None and int(table.group(1)) > 0, stdout
    assert "EXPLAIN ANALYZE of the claim" in stdout


def test_leaderboard_benchmark_quick_mode_runs_a_real_worker(redis_url):
    """The campaign benchmark on a small scale: its own database, a real Celery worker on the test
    Redis, the evaluation job end to end, and the metric computation checked against pytrec_eval."""
    stdout = run_on_own_services("bench_leaderboard.py", redis_url, 9, "--quick")
    assert "os.cpu_count() " in stdout
    assert re.search(r"\| evaluation job, 1 worker process \| [\d.]+ \|", stdout), stdout
    assert "pytrec_eval ÷ ours" in stdout


def test_imports_benchmark_quick_mode_runs_jobs_through_a_real_worker(redis_url):
    """The import-job benchmark on a small scale: its own database, gunicorn, a real Celery worker,
    a collection and a run each imported by one API call, then the bundle out and back in."""
    stdout = run_on_own_services("bench_imports.py", redis_url, 8, "--quick")
    assert "os.cpu_count() " in stdout
    assert re.search(
        r"\| 2,000 documents, 20 topics \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|", stdout
    )
    assert "imported as a new project in" in stdout


def test_ir_datasets_benchmark_quick_mode_imports_a_registered_collection_as_a_job(redis_url):
    """The ir_datasets import benchmark on a small scale: a generated collection registered with
    ir_datasets, imported by the import job in its own database, every record stored."""
    stdout = run_on_own_services("bench_ir_datasets.py", redis_url, 7, "--quick")
    assert "cores: " in stdout
    assert re.search(
        r"\| 2,000 documents, 20 topics, 400 qrels, a run of 2,000 lines pooled to 10 \(200 items\) "
        r"\| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|",
        stdout,
    )


def test_judgements_benchmark_imports_and_builds_ground_truths_on_a_small_scale(redis_url):
    """Judgements in through the API's import and ground truths out, small: every judgement stored
    (the benchmark checks), the COPY floor beside each import, crowd-kit's Dawid–Skene beside ours."""
    stdout = run_on_own_services("bench_judgements.py", redis_url, 11, "--quick")
    assert "os.cpu_count() " in stdout
    assert re.search(r"\| ratings \| 600 \| [\d.]+ \| [\d.]+ \| [\d,]+ \| [\d.]+ \| [\d.]+ \|", stdout)
    assert re.search(r"\| labels \| 5,000 \| ", stdout)
    assert re.search(r"\| labels, Dawid–Skene \(5,000\) \| [\d.]+ \| ", stdout)
    assert "crowd-kit DawidSkene(n_iter=100) on the same 5,000 labels" in stdout


def test_pages_benchmark_times_every_researcher_page_on_a_small_project(redis_url):
    """The pages benchmark on 20,000 items: every page answers 200 (the benchmark checks) and is
    timed with its statement count, and the slow ones' plans are printed."""
    stdout = run_on_own_services("bench_pages.py", redis_url, 13, "--quick", "--requests", "2")
    assert "os.cpu_count() " in stdout
    for page in ("item browser, disputed", "adjudication queue", "leaderboard", "Annotators page"):
        assert re.search(rf"\| {page} \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \|", stdout), page


def test_import_memory_benchmark_measures_each_process_on_a_small_body(redis_url):
    """The memory benchmark on a 5 MB collection: gunicorn as production runs it and a real worker,
    the import job with its processes' peaks (the bundle steps' code is the imports benchmark's)."""
    stdout = run_on_own_services("bench_import_memory.py", redis_url, 6, "--sizes", "5")
    assert "cores; peak resident memory (VmHWM)" in stdout
    for step in ("collection import job",):
        found = re.search(rf"\| {step} \| [\d,]+ MB \| ([\d,]+) \| (\d+) → (\d+) \| (\d+) → (\d+) \|", stdout)
        assert found, stdout
        documents, web_idle, web_peak, worker_idle, worker_peak = (
            int(g.replace(",", "")) for g in found.groups()
        )
        assert documents > 2000 and 0 < web_idle <= web_peak and 0 < worker_idle <= worker_peak


def test_text_benchmark_quick_mode_checks_against_peers_and_runs_the_app(redis_url):
    """The text benchmark on 4 systems × 30 inputs: ROUGE against rouge-score and the correlation
    matrix against SciPy (it asserts both agree), then the campaign through gunicorn, PostgreSQL,
    Redis and a real Celery worker: import, ratings, snapshot, text evaluation, meta-evaluation."""
    stdout = run_on_own_services("bench_text.py", redis_url, 10, "--quick", "--app")
    assert "cores: " in stdout
    assert re.search(
        r"\| ROUGE-1/2/L/Lsum stemmed, best of 4: rouge-score \| [\d.]+ \| [\d.]+ \| [\d.]+ \|", stdout
    )
    assert "correlations equal SciPy's" in stdout
    assert re.search(r"\| text evaluation job on the worker [^|]* \| [\d.]+ \|", stdout), stdout
    assert re.search(r"\| one metric × dimension[^|]* \| [\d.]+ \|", stdout), stdout


def test_the_small_sample_measurements_run_in_their_quick_form():
    """benchmarks/small_samples.py: the coverage and power tables behind annotation/crowd/minimums.py."""
    stdout = run_benchmark("small_samples.py", "--quick")
    assert "cores: " in stdout
    for heading in (
        "1. mean over n topics",
        "2. Cohen's kappa of two annotators",
        "3. Williams' test over n systems",
    ):
        assert heading in stdout


def test_the_sampled_pool_simulation_runs_in_its_quick_form(data_set):
    """benchmarks/bench_sampled_pool.py: inferred MAP against full judgement on Cranfield."""
    data_set("cranfield")  # skips (fails in CI) without the Cranfield files
    stdout = run_benchmark("bench_sampled_pool.py", "--quick")
    rows = re.findall(r"^\| (\d+\.\d)% \| 1-10:", stdout, re.MULTILINE)
    assert [round(float(share)) for share in rows] == [10, 20, 30], stdout


def test_pyramid_benchmark_times_a_small_campaign_through_the_app(redis_url):
    """Import, judgement import, snapshot and Pyramid scores of a small LitePyramid campaign."""
    stdout = run_on_own_services("bench_pyramid.py", redis_url, 5, "--quick")
    assert "5 inputs × 5 systems × 4 SCUs, k = 3; cores: " in stdout
    assert re.search(r"\| import \(references, SCUs, summaries → items\) \| 100 items \| [\d.]+ \|", stdout)
    assert re.search(r"\| judge \(judgement import\) \| 300 judgements \| [\d.]+ \|", stdout)
    assert re.search(r"\| scores \(summaries, systems, agreement\) \| 25 summaries \| [\d.]+ \|", stdout)


def test_pay_benchmark_times_the_pay_page_of_a_small_paid_campaign(redis_url):
    """The Pay page, its API and the budget guard on a small campaign of link workers (issue 23)."""
    stdout = run_on_own_services("bench_pay.py", redis_url, 4, "--quick")
    assert "50 link workers, 1,500 judgements (k = 3)" in stdout and "cores: " in stdout
    for request in ("Pay page", "Pay API", "budget guard"):
        assert re.search(rf"\| {request} .*\| [\d.]+ \| [\d.]+ \|", stdout), stdout
