"""dev.py, the README's commands: a missing service is an error under CI, a skip elsewhere; manage and
cranfield run inside .venv."""

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


def test_manage_runs_the_venv_python_on_the_database_run_uses(dev, monkeypatch):
    """``dev.py manage ARGS`` is ``.venv/bin/python manage.py ARGS`` against the embedded database that
    ``dev.py run`` serves, so the README's ``export_qrels 1`` finds the demo project."""
    calls = []
    monkeypatch.setattr(dev, "ensure_venv", lambda extra: calls.append(("venv", extra)))
    monkeypatch.setattr(dev.os, "execve", lambda path, argv, env: calls.append((path, argv, env)))
    monkeypatch.setenv("DATABASE_URL", "postgres://elsewhere/db")
    monkeypatch.setenv("REDIS_URL", "redis://elsewhere:6379/0")
    monkeypatch.setattr(dev.sys, "argv", ["dev.py", "manage", "export_qrels", "1"])
    dev.main()
    assert calls[0] == ("venv", None)
    path, argv, env = calls[1]
    assert path == dev.PYTHON and argv == [str(dev.PYTHON), str(dev.ROOT / "manage.py"), "export_qrels", "1"]
    assert "DATABASE_URL" not in env and "REDIS_URL" not in env


def test_cranfield_runs_the_venv_console_script(dev, monkeypatch):
    calls = []
    monkeypatch.setattr(dev, "ensure_venv", lambda extra: calls.append(("venv", extra)))
    monkeypatch.setattr(dev.os, "execv", lambda path, argv: calls.append((path, argv)))
    monkeypatch.setattr(dev.sys, "argv", ["dev.py", "cranfield", "trec-eval", "--help"])
    dev.main()
    script = dev.BIN / "cranfield"
    assert calls == [("venv", None), (script, [str(script), "trec-eval", "--help"])]


def test_a_venv_made_by_test_serves_run_manage_and_cranfield_without_reinstalling(dev, monkeypatch, tmp_path):
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    (venv / ".cranfield-installed").write_text(dev.install_fingerprint(".[dev]"))
    monkeypatch.setattr(dev, "VENV", venv)
    monkeypatch.setattr(dev, "PYTHON", venv / "bin" / "python")
    monkeypatch.setattr(dev, "run", lambda *command, **kwargs: pytest.fail(f"ran {command}"))
    dev.ensure_venv(None)
    dev.ensure_venv("dev")


def test_an_unknown_command_lists_every_command(dev, monkeypatch):
    monkeypatch.setattr(dev.sys, "argv", ["dev.py", "serve"])
    with pytest.raises(SystemExit) as exit_info:
        dev.main()
    assert all(f"``{name}``" in str(exit_info.value) for name in dev.COMMANDS)


@pytest.mark.parametrize(
    ("args", "address"),
    [([], "127.0.0.1:8000"), (["8001"], "127.0.0.1:8001"), (["127.0.0.1:8765"], "127.0.0.1:8765"),
     (["[::1]:8002"], "[::1]:8002")],
)  # fmt: skip
def test_run_serves_on_the_address_or_port_given(dev, args, address):
    assert dev.serve_address(args) == address


@pytest.mark.parametrize("args", [["nonsense"], ["127.0.0.1:99999"], ["127.0.0.1:8000", "extra"]])
def test_run_refuses_an_address_it_cannot_serve_on_saying_what_it_takes(dev, args):
    with pytest.raises(SystemExit, match=r"e\.g\. 127\.0\.0\.1:8001"):
        dev.serve_address(args)


def test_run_answers_on_the_host_it_serves_on_and_keeps_its_secret(dev, monkeypatch, tmp_path):
    monkeypatch.setattr(dev, "VENV", tmp_path)
    for name in ("ALLOWED_HOSTS", "SECRET_KEY", "LOCAL_TRIAL", "DEBUG"):
        monkeypatch.delenv(name, raising=False)
    local = dev.trial_env("127.0.0.1:8001")
    assert local["LOCAL_TRIAL"] == "true" and "ALLOWED_HOSTS" not in local
    assert len(local["SECRET_KEY"]) > 50 and dev.trial_env("8002")["SECRET_KEY"] == local["SECRET_KEY"]
    assert dev.trial_env("192.168.1.5:8000")["ALLOWED_HOSTS"].endswith(",192.168.1.5")
    assert dev.trial_env("0.0.0.0:8000")["ALLOWED_HOSTS"].endswith(",*")
