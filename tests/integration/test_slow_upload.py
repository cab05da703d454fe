"""An upload from a slow client finishes (issue 27): gunicorn as production runs it
(``cranfield/gunicorn.py``: sync workers that report in as a body arrives, ``cranfield.heartbeat``)
takes an import job sent far more slowly than its worker timeout allows and answers 202, and the job
imports it. The same sender against plain sync workers, the set-up this replaced, is cut off at the
timeout (a 30 MB upload at 0.4 MB/s ended in gunicorn's HTML 500 after 60 s), which shows the test can
tell the two apart. The timeout is 2 s here, not production's 60, so the slow upload takes seconds."""

from __future__ import annotations

import json
import socket
import time
from urllib.parse import urlparse

import pytest
import requests

from tests.integration.servers import Gunicorn, deployment_environment, manage

pytestmark = pytest.mark.slow

TIMEOUT = 2  # gunicorn's --timeout here
SENDING_SECONDS = 7  # over three timeouts


def send_slowly(base: str, path: str, token: str, body: bytes, seconds: float) -> tuple[int, bytes]:
    """POST ``body`` in 20 pieces spread over ``seconds``; the status and the whole response (status
    0 if the server closed the connection without one)."""
    address = urlparse(base)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {address.netloc}\r\nAuthorization: Token {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    response = b""
    try:
        with socket.create_connection((address.hostname, address.port), timeout=60) as connection:
            connection.sendall(head.encode())
            step = -(-len(body) // 20)
            for start in range(0, len(body), step):
                connection.sendall(body[start : start + step])
                time.sleep(seconds / 20)
            while chunk := connection.recv(65536):
                response += chunk
    except (ConnectionResetError, BrokenPipeError):
        pass
    status = int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/") else 0
    return status, response


@pytest.fixture(scope="module")
def install(tmp_path_factory):
    """The newcomer's install (SQLite, jobs in-process, the demo) and the researcher's token."""
    folder = tmp_path_factory.mktemp("slow-upload")
    environment = deployment_environment(SQLITE_PATH=str(folder / "db.sqlite3"), LOG_LEVEL="WARNING")
    manage(environment, "migrate", "--noinput")
    manage(environment, "load_demo")
    token = manage(environment, "drf_create_token", "researcher").split("Generated token")[1].split()[0]
    return environment, token, folder


def a_collection(prefix: str) -> bytes:
    documents = [{"id": f"{prefix}-{i}", "text": f"slow upload {i} " * 150} for i in range(200)]
    return json.dumps({"documents": documents}).encode()


def test_a_slow_upload_to_the_production_server_finishes_and_is_imported(install):
    environment, token, folder = install
    server = Gunicorn(
        environment, folder / "gthread.log", workers=1, threads=1, options=("--timeout", str(TIMEOUT))
    )
    try:
        api = requests.Session()
        api.headers["Authorization"] = f"Token {token}"
        project = api.get(server.base + "/api/projects/", timeout=30).json()["results"][0]["id"]
        body = a_collection("slow")
        started = time.monotonic()
        status, response = send_slowly(
            server.base, f"/api/projects/{project}/import-jobs/", token, body, SENDING_SECONDS
        )
        assert time.monotonic() - started > 3 * TIMEOUT
        assert status == 202, response[-2000:]
        job = json.loads(response.split(b"\r\n\r\n", 1)[1])
        assert job["body_bytes"] == len(body)
        for _ in range(300):
            job = api.get(job["url"], timeout=30).json()
            if job["status"] not in {"queued", "running"}:
                break
            time.sleep(0.1)
        assert job["status"] == "done", job
        assert job["summary"]["documents_created"] == 200
    finally:
        server.stop()


def test_the_same_sender_against_plain_sync_workers_is_cut_off(install):
    environment, token, folder = install
    plain = folder / "plain_gunicorn.py"  # gunicorn's defaults (sync workers), without the report hook
    plain.write_text("")
    server = Gunicorn(
        environment,
        folder / "sync.log",
        workers=1,
        threads=1,
        options=("--timeout", str(TIMEOUT), "-c", str(plain)),
    )
    try:
        status, _ = send_slowly(
            server.base, "/api/projects/1/import-jobs/", token, a_collection("cut"), SENDING_SECONDS
        )
        assert status != 202
        assert "WORKER TIMEOUT" in server.log_path.read_text()
    finally:
        server.stop()
