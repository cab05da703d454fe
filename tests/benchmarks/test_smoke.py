"""Each benchmark runs in its --quick form, so a broken benchmark is caught by the suite."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import PROJECT_DIR


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
