"""A fresh install without the dev extra works: the Dockerfile's install, and the README's run command.

The rest of the suite runs in a .venv with the dev extra, so a product module that imports a dev-only
package (``django_stubs_ext`` once did) passes every other test while a newcomer's ``dev.py run`` and
the Docker image crash. These tests install the project as those two do, into fresh virtualenvs, and
use it. They are slow (each installs every dependency; pip's downloads are cached in
~/.cache/cranfield/pip, so only the first run on a machine fetches them) and run in CI like any other.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR

PIP_CACHE = Path.home() / ".cache" / "cranfield" / "pip"
# Variables of this test run that must not leak into a fresh install's processes.
OUR_VARIABLES = {
    "DATABASE_URL",
    "REDIS_URL",
    "DJANGO_SETTINGS_MODULE",
    "DEBUG",
    "SECRET_KEY",
    "SQLITE_PATH",
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "PIP_NO_CACHE_DIR",
    "LOCAL_TRIAL",
    "ALLOWED_HOSTS",
}

# Imports every module of the product's packages (but the command line's __main__, which runs it) and
# prints how many: a module that needs a package the plain install lacks fails here.
IMPORT_EVERY_MODULE = """
import importlib, os, pkgutil
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cranfield.settings")
import django
django.setup()
names = []
for top in ("cranfield", "annotation", "evaluation"):
    package = importlib.import_module(top)
    modules = pkgutil.walk_packages(package.__path__, top + ".")
    names += [m.name for m in modules if not m.name.endswith("__main__")]
failed = []
for name in names:
    try:
        importlib.import_module(name)
    except Exception as error:
        failed.append(f"{name}: {type(error).__name__}: {error}")
print("imported", len(names) - len(failed), "of", len(names))
print("\\n".join(failed))
"""


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in OUR_VARIABLES}
    return {**env, "PIP_CACHE_DIR": str(PIP_CACHE), "PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra}


def run(command: list[str | Path], cwd: Path, env: dict[str, str], timeout: int = 900) -> str:
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{' '.join(map(str, command))} failed:\n{output[-4000:]}"
    return output


def dockerfile_copies() -> list[tuple[str, str]]:
    """The (source, destination) pairs the Dockerfile copies before it installs the project."""
    pairs = []
    for line in (PROJECT_DIR / "docker" / "Dockerfile").read_text().splitlines():
        if line.startswith("RUN pip install"):
            return pairs
        if line.startswith("COPY "):
            *sources, destination = line.split()[1:]
            pairs += [(source, destination) for source in sources]
    raise AssertionError("the Dockerfile has no 'RUN pip install' line")


def copy_as_dockerfile(app: Path) -> None:
    for source, destination in dockerfile_copies():
        target = app / destination
        if destination.endswith("/") and not (PROJECT_DIR / source).is_dir():
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(PROJECT_DIR / source, target / Path(source).name)
        else:
            shutil.copytree(PROJECT_DIR / source, target, ignore=shutil.ignore_patterns("__pycache__"))


def fresh_venv(path: Path) -> Path:
    # The base interpreter, not this suite's .venv: the new environment must start empty.
    base = Path(getattr(sys, "_base_executable", sys.executable))
    subprocess.run([str(base), "-m", "venv", str(path)], check=True, timeout=120)
    return path / "bin" / "python"


@pytest.mark.slow
def test_the_dockerfile_install_checks_migrates_loads_the_demo_and_imports_every_module(tmp_path):
    app = tmp_path / "app"
    app.mkdir()
    copy_as_dockerfile(app)
    python = fresh_venv(tmp_path / "venv")
    env = clean_env(SQLITE_PATH=str(tmp_path / "cranfield.sqlite3"))
    run([python, "-m", "pip", "install", "--quiet", "."], app, env)
    # Nothing of the dev extra came with it.
    dev_only = "('pytest', 'django_stubs_ext', 'mypy')"
    probe = f"import importlib.util as u; print([m for m in {dev_only} if u.find_spec(m)])"
    assert run([python, "-c", probe], tmp_path, env).strip() == "[]"

    assert "System check identified no issues" in run([python, "manage.py", "check"], app, env)
    run([python, "manage.py", "migrate", "--noinput", "-v", "0"], app, env)
    loaded = run([python, "manage.py", "load_demo"], app, env)
    assert "Demo project loaded: 25 topics, 790 documents" in loaded
    assert "Text evaluation 1: done" in loaded
    imported = run([python, "-c", IMPORT_EVERY_MODULE], app, env)
    counted = re.search(r"imported (\d+) of (\d+)", imported)
    assert counted, imported
    assert counted[1] == counted[2] and int(counted[2]) > 150, imported
    # The image's build step: production static files, with DEBUG off and a secret of its own.
    static = tmp_path / "static"
    run(
        [python, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        app,
        {**env, "DEBUG": "false", "SECRET_KEY": "collectstatic-only", "STATIC_ROOT": str(static)},
    )
    assert (static / "staticfiles.json").exists()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str) -> tuple[int, str, str]:
    """(status, content type, body) without following redirects."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode()


def tracked_files_copy(clone: Path) -> None:
    """The checkout as a fresh clone would have it: the files git tracks, and new ones it does not ignore
    (outside git: all but .venv and the database)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT_DIR,
        capture_output=True,
        check=False,
    )
    names = [n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0 else []
    names = [n for n in names if (PROJECT_DIR / n).is_file()]
    if not names:
        shutil.copytree(
            PROJECT_DIR, clone, ignore=shutil.ignore_patterns(".venv", "*.sqlite3", "__pycache__")
        )
        return
    for name in names:
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT_DIR / name, clone / name)


@pytest.mark.slow
def test_dev_py_run_on_a_fresh_clone_serves_the_demo_on_the_port_given_as_people_see_it(tmp_path):
    """``python3.11 dev.py run 127.0.0.1:PORT``: its own .venv without the dev extra, the demo, the
    site's own 404 page (no debug page naming the URLconf), an icon, a short log."""
    clone = tmp_path / "clone"
    tracked_files_copy(clone)
    port = free_port()
    base = Path(getattr(sys, "_base_executable", sys.executable))
    log_path = tmp_path / "run.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            [str(base), "dev.py", "run", f"127.0.0.1:{port}"],
            cwd=clone,
            env=clean_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 900
        while f"running at http://127.0.0.1:{port}/" not in log_path.read_text():
            assert server.poll() is None, f"dev.py run stopped:\n{log_path.read_text()[-4000:]}"
            assert time.monotonic() < deadline, f"dev.py run did not serve in time:\n{log_path.read_text()}"
            time.sleep(1)
        status = None
        while status != 200 and time.monotonic() < deadline:
            try:
                status, _, login = fetch(f"http://127.0.0.1:{port}/accounts/login/")
            except OSError:
                time.sleep(0.5)
        assert status == 200
        assert 'rel="icon"' in login

        missing_status, _, missing = fetch(f"http://127.0.0.1:{port}/no-such-page/")
        assert missing_status == 404
        assert "Page not found" in missing and "URLconf" not in missing and "Traceback" not in missing

        css = re.search(r'href="(/static/[^"]+\.css)"', login)
        assert css and fetch(f"http://127.0.0.1:{port}{css[1]}")[0] == 200
        icon_status, _, _ = fetch(f"http://127.0.0.1:{port}/favicon.ico")
        assert icon_status == 301
        svg = fetch(f"http://127.0.0.1:{port}/static/annotation/favicon.svg")
        assert svg[0] == 200 and svg[1].startswith("image/svg+xml")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    log_text = log_path.read_text()
    assert "Demo project loaded" in log_text
    assert "AXES: BEGIN" not in log_text
    assert "succeeded in" not in log_text  # no line per in-process task
    # No dev extra in the environment dev.py run made.
    assert not list((clone / ".venv").glob("lib/python*/site-packages/pytest"))
