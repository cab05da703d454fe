"""dev.py, the README's two commands: a missing service is an error under CI, a skip elsewhere."""

from __future__ import annotations

import importlib.util
import socket

import pytest

from tests.conftest import PROJECT_DIR


@pytest.fixture
def dev():
    spec = importlib.util.spec_from_file_location("dev_script", PROJECT_DIR / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_missing_service_fails_the_run_under_ci(dev, monkeypatch):
    monkeypatch.setattr(dev, "IN_CI", True)
    with pytest.raises(SystemExit, match="CI needs it"):
        dev.ensure_service("Redis", ("127.0.0.1", closed_port()), ["no-such-command-here"])


def test_a_missing_service_is_reported_and_skipped_outside_ci(dev, monkeypatch, capsys):
    monkeypatch.setattr(dev, "IN_CI", False)
    assert dev.ensure_service("Redis", ("127.0.0.1", closed_port()), ["no-such-command-here"]) is False
    assert "will be skipped" in capsys.readouterr().out


def test_ci_runs_exactly_the_readme_test_command():
    readme = (PROJECT_DIR / "README.md").read_text()
    ci = (PROJECT_DIR / ".ci" / "run").read_text()
    assert "python3.11 dev.py test" in readme.split("\n\n")[1]
    assert "dev.py test" in ci.splitlines()[-1]
