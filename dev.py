#!/usr/bin/env python3
"""Set up and run Cranfield on a fresh machine with only Python 3.11: ``python3.11 dev.py COMMAND``.

``run``       creates .venv, installs the project, migrates the embedded SQLite database, loads the
              demo project and starts the development server, printing the URL and the demo logins.
              ``run ADDRESS`` serves elsewhere: ``run 127.0.0.1:8001`` or ``run 8001``. It serves as
              people will see the site (DEBUG off, the site's own error pages); ``DEBUG=true`` before
              the command brings Django's debug pages back for development.
``test``      creates .venv, installs the project with its dev extra, makes sure PostgreSQL, Redis
              and Chromium are there (starting or installing them where this machine allows), and
              runs the whole test suite. Extra arguments go to pytest. Under CI=true a missing
              service or test data set is an error.
``manage``    runs ``.venv/bin/python manage.py ARGS`` on the database ``run`` uses (the embedded
              SQLite file: DATABASE_URL and REDIS_URL are ignored, as by ``run``), e.g.
              ``python3.11 dev.py manage export_qrels 1``.
``cranfield`` runs the ``cranfield`` command line, ``.venv/bin/cranfield ARGS``.

``manage`` and ``cranfield`` create .venv first if needed (a .venv made by ``test`` serves them).

Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}

POSTGRES = ("127.0.0.1", 5432)
REDIS = ("127.0.0.1", 6379)
TEST_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/cranfield"
TEST_REDIS_URL = "redis://127.0.0.1:6379/15"
CHROMIUM = Path("/usr/bin/chromium")


def say(message: str) -> None:
    print(f"[dev.py] {message}", flush=True)


def run(*command: str | Path, **kwargs) -> None:
    subprocess.run([str(part) for part in command], check=True, cwd=ROOT, **kwargs)


def install_fingerprint(spec: str) -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + spec.encode()).hexdigest()


def ensure_venv(extra: str | None) -> None:
    """Create .venv and install the project (editable); skipped when pyproject.toml is unchanged.
    Without an extra, an install with the dev extra (a superset) is as good."""
    if sys.version_info < (3, 11):  # noqa: UP036 - this file runs under whatever python3 is
        sys.exit(f"Cranfield needs Python 3.11 or newer; this is {sys.version.split()[0]}.")
    if not PYTHON.exists():
        say("creating .venv")
        run(sys.executable, "-m", "venv", VENV)
    spec = f".[{extra}]" if extra else "."
    fingerprint = install_fingerprint(spec)
    stamp = VENV / ".cranfield-installed"
    installed = stamp.read_text().split() if stamp.exists() else []
    if fingerprint in installed or (extra is None and install_fingerprint(".[dev]") in installed):
        return
    say(f"installing {spec} into .venv (first time only)")
    run(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(PYTHON, "-m", "pip", "install", "--quiet", "-e", spec)
    stamp.write_text("\n".join([*installed, fingerprint]))


def reachable(address: tuple[str, int]) -> bool:
    try:
        with socket.create_connection(address, timeout=1):
            return True
    except OSError:
        return False


def ensure_service(name: str, address: tuple[str, int], start: list[str]) -> bool:
    """True if the service answers, starting it with ``start`` when it does not (and the tool exists)."""
    if reachable(address):
        return True
    if shutil.which(start[0]):
        say(f"{name} is down; starting it: {' '.join(start)}")
        subprocess.run(start, check=False)
        for _ in range(30):
            if reachable(address):
                return True
            time.sleep(1)
    message = f"{name} is not reachable at {address[0]}:{address[1]}"
    if IN_CI:
        sys.exit(f"[dev.py] {message}: CI needs it (integration tests are never skipped in CI).")
    say(f"{message}; tests that need it will be skipped (they fail under CI=true).")
    return False


def start_postgres_command() -> list[str]:
    versions = sorted(os.listdir("/etc/postgresql")) if os.path.isdir("/etc/postgresql") else []
    version = versions[-1] if versions else "15"
    return ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "start"]


def ensure_chromium() -> None:
    """Install Debian's Chromium for the browser tests if missing and allowed (never a browser download)."""
    if CHROMIUM.exists():
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        say("installing Debian's chromium and chromium-driver for the browser tests")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "chromium", "chromium-driver"], check=False, env=env
        )
    if not CHROMIUM.exists():
        if IN_CI:
            sys.exit("[dev.py] /usr/bin/chromium is missing and could not be installed: CI needs it.")
        say("/usr/bin/chromium is missing; browser tests will be skipped.")


def embedded_env() -> dict[str, str]:
    """The environment of ``run`` and ``manage``: the embedded SQLite database, tasks in-process."""
    return {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}


LOCAL_NAMES = {"127.0.0.1", "localhost", "::1", "[::1]"}


def serve_address(args: list[str]) -> str:
    """``host:port`` to serve on from ``run``'s arguments: none (127.0.0.1:8000), a port, or host:port."""
    if len(args) > 1:
        sys.exit(f"[dev.py] run takes at most one address (e.g. 127.0.0.1:8001), not {' '.join(args)!r}")
    address = args[0] if args else "127.0.0.1:8000"
    if address.isdigit():
        address = f"127.0.0.1:{address}"
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        sys.exit(f"[dev.py] not an address to serve on: {address!r}; give host:port, e.g. 127.0.0.1:8001")
    return address


def local_secret_key() -> str:
    """This checkout's own secret for ``run`` (kept in .venv, made once): a trial serves with DEBUG off,
    which refuses the development secret."""
    path = VENV / ".cranfield-secret-key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
    return path.read_text().strip()


def trial_env(address: str) -> dict[str, str]:
    """``run``'s environment: the embedded default as people will see it (cranfield/settings.py
    LOCAL_TRIAL), answering on ``address``'s host as well as on this machine's own names."""
    env = embedded_env()
    env.setdefault("LOCAL_TRIAL", "true")
    env.setdefault("SECRET_KEY", local_secret_key())
    host = address.rpartition(":")[0]
    if host not in LOCAL_NAMES and "ALLOWED_HOSTS" not in env:
        hosts = ["localhost", "127.0.0.1", "[::1]"]
        env["ALLOWED_HOSTS"] = ",".join([*hosts, "*" if host in {"0.0.0.0", "[::]"} else host])
    return env


def run_banner(address: str) -> str:
    """What ``run`` prints: where to go and as whom. No admin link: Django's admin takes staff
    accounts only, and no demo account is one (the researcher's pages do what a researcher needs)."""
    return (
        f"\n  Cranfield is running at http://{address}/\n"
        "  Demo logins (password cranfield-demo): researcher, annotator1, annotator2, annotator3\n"
        "  As researcher: bring annotators in on a project's Annotators page (accounts, invitation links,\n"
        "  a sign-up code); your API token for scripts is on the home page. "
        f"API docs: http://{address}/api/docs/\n"
        "  Django's admin (/admin/) takes staff accounts only, and no demo account is one;\n"
        "  python3.11 dev.py manage createsuperuser makes one if you need it.\n"
    )


def command_run(args: list[str]) -> None:
    address = serve_address(args)
    ensure_venv(None)
    env = trial_env(address)
    run(PYTHON, "manage.py", "migrate", "--noinput", "-v", "0", env=env)
    run(PYTHON, "manage.py", "load_demo", env=env)
    print(run_banner(address), flush=True)
    os.execve(PYTHON, [str(PYTHON), "manage.py", "runserver", address], env)


def command_test(args: list[str]) -> None:
    ensure_venv("dev")
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    env.setdefault("DEBUG", "true")
    # ranx (a test-only peer) compiles its measures with numba on first use, about a minute; its
    # cache outside the checkout lets later runs, and fresh clones on this machine, skip that.
    env.setdefault("NUMBA_CACHE_DIR", str(Path.home() / ".cache" / "cranfield" / "numba"))
    if ensure_service("PostgreSQL", POSTGRES, start_postgres_command()):
        env.setdefault("DATABASE_URL", TEST_DATABASE_URL)
    redis_start = [
        "redis-server",
        "--daemonize",
        "yes",
        "--bind",
        "127.0.0.1",
        "--port",
        "6379",
        "--save",
        "",
        "--appendonly",
        "no",
    ]
    if ensure_service("Redis", REDIS, redis_start):
        env.setdefault("CRANFIELD_TEST_REDIS_URL", TEST_REDIS_URL)
    ensure_chromium()
    if IN_CI:
        env["CRANFIELD_REQUIRE_SERVICES"] = "1"
    say(f"running the test suite on {'PostgreSQL' if env.get('DATABASE_URL') else 'SQLite'}")
    result = subprocess.run([str(PYTHON), "-m", "pytest", *args], cwd=ROOT, env=env)
    sys.exit(result.returncode)


def command_manage(args: list[str]) -> None:
    ensure_venv(None)
    os.execve(PYTHON, [str(PYTHON), str(ROOT / "manage.py"), *args], embedded_env())


def command_cranfield(args: list[str]) -> None:
    ensure_venv(None)
    script = BIN / ("cranfield.exe" if os.name == "nt" else "cranfield")
    os.execv(script, [str(script), *args])


COMMANDS = {
    "run": command_run,
    "test": command_test,
    "manage": command_manage,
    "cranfield": command_cranfield,
}


def main() -> None:
    commands = COMMANDS
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    main()
