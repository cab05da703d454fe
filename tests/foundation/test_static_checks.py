"""The project's static checks run with its tests, so `dev.py test` (and so `.ci/run`) enforces them:
ruff (style, and a complexity limit), mypy with the Django and DRF stubs, and import-linter's
contracts (annotation never imports evaluation; the pure packages import no Django, DRF or Celery)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROJECT_DIR = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def run(tool: str, *args: str) -> subprocess.CompletedProcess:
    executable = BIN / tool
    if not executable.exists():
        pytest.fail(f"{tool} is not installed in {BIN}: it is in the dev extra (pip install -e '.[dev]')")
    return subprocess.run(
        [str(executable), *args], cwd=PROJECT_DIR, capture_output=True, text=True, timeout=600
    )


def test_ruff_finds_nothing():
    result = run("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_import_contracts_hold():
    result = run("lint-imports", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_mypy_finds_no_error():
    result = run("mypy", "--cache-dir", "/dev/null")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_contract_catches_an_arrow_from_annotation_to_evaluation(tmp_path):
    """The first contract is not vacuous: a module of annotation importing evaluation breaks it."""
    import shutil

    copy = tmp_path / "project"
    shutil.copytree(
        PROJECT_DIR, copy, ignore=shutil.ignore_patterns(".venv", ".git", "*.pyc", "test-artifacts")
    )
    (copy / "annotation" / "leak.py").write_text("from evaluation.models import GroundTruthSnapshot\n")
    result = subprocess.run(
        [str(BIN / "lint-imports"), "--no-cache"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(copy), "PATH": str(BIN)},
    )
    assert result.returncode != 0
    assert "annotation.leak -> evaluation.models" in result.stdout
