"""The TER benchmark runs in its --quick form: same scores as sacrebleu, and faster."""

from __future__ import annotations

import re

from tests.benchmarks.test_smoke import run_benchmark


def test_ter_benchmark_quick_mode_reports_equal_scores_and_a_ratio_above_one():
    stdout = run_benchmark("bench_ter.py", "--quick")
    assert "cores: " in stdout
    assert re.search(r"same scores on all \d+ outputs", stdout), stdout
    ratio = re.search(r"sacrebleu time / ours ([\d.]+)", stdout)
    assert ratio is not None and float(ratio.group(1)) > 1, stdout
