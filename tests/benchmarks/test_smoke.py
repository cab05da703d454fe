"""Each benchmark runs in its --quick form, so a broken benchmark is caught by the suite."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_DIR, missing


@pytest.mark.parametrize("script", ["bench_trec_eval.py", "bench_crowd.py", "bench_rouge.py"])
def test_benchmark_quick_mode_reports_ratios(script):
    result = subprocess.run(
        [sys.executable, str(PROJECT_DIR / "benchmarks" / script), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PROJECT_DIR,
    )
    assert result.returncode == 0, result.stderr
    assert "cores: " in result.stdout
    assert "/ ours" in result.stdout or "/cranfield" in result.stdout
    if script == "bench_rouge.py":  # real summaries from ../shared/data, else the shipped demo's abstracts
        assert "texts: sentences of " in result.stdout


def test_load_benchmark_quick_mode_checks_correctness_under_gunicorn():
    """The load benchmark end to end on a small scale: its own PostgreSQL database, gunicorn, the
    client layer, the correctness check and the profile. Ground truth runs eagerly: the Redis db
    of the test run is flushed by other tests, so the smoke run leaves Redis alone."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] != "django.db.backends.postgresql":
        missing("the load benchmark needs PostgreSQL: set DATABASE_URL=postgres://… (dev.py test does)")
    url = (
        f"postgres://{database['USER']}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"
        f"/{database['NAME']}_loadsmoke"
    )
    result = subprocess.run(
        [
            sys.executable,
            str(PROJECT_DIR / "benchmarks" / "bench_load.py"),
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
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PROJECT_DIR,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cores: " in result.stdout
    assert "correctness: ok" in result.stdout
    table = re.search(r"\| submit \(POST\) \| (\d+) \|", result.stdout)
    assert table is not None and int(table.group(1)) > 0, result.stdout
    assert "EXPLAIN ANALYZE of the claim" in result.stdout
