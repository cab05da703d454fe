"""benchmarks/bench_cli.py on tiny inputs, one timed run each: every command and peer script runs, and
the outputs are checked to agree, so a broken benchmark is caught by the suite."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import PROJECT_DIR


def test_cli_benchmark_quick_mode_checks_outputs_and_reports_ratios():
    result = subprocess.run(
        [sys.executable, str(PROJECT_DIR / "benchmarks" / "bench_cli.py"), "--quick", "--runs", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=PROJECT_DIR,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cores: " in result.stdout
    for part in ("(a) start-up", "(b) trec-eval", "(c) rouge --stem", "(d) aggregate"):
        assert part in result.stdout, result.stdout
    assert result.stdout.count("time / ours") == 3
