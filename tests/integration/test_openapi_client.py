"""A test collection moved between two installs by a client that knows only the OpenAPI document.

The source is the newcomer's install (SQLite, in-process jobs, the demo project, as ``dev.py run``
makes it); the destination is a fresh production-like install (a new PostgreSQL database, just
migrated, one superuser). Both are served by gunicorn. The client reads ``/api/schema/`` and finds
every operation by its ``operationId``, its path and query parameters by name, its request's media
type from the schema, and fails on any status the schema does not document for that operation. It
exports the demo's bundle, imports it into the destination, waits for the import job and the
evaluations it requests, and compares the two installs: topics, documents, pool, judgements, snapshots
and every evaluation's leaderboard (as JSON without the databases' keys, and in trec_eval's layout).
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlparse

import psycopg
import pytest
import requests
from django.conf import settings

from evaluation.demo import DEMO_PROJECT_NAME
from tests.integration.servers import Gunicorn, deployment_environment, manage

TOKEN_LINE = "Generated token"
# The keys of rows that the two databases number differently, and when things happened.
LOCAL_KEYS = {"id", "url", "run_id", "project", "external_qrels", "leaderboard", "finished_at", "started_at",
              "created_at", "snapshot", "task", "annotator_id", "download"}  # fmt: skip


class OpenApiClient:
    """Calls a Cranfield server's operations by ``operationId``, knowing nothing but its schema."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        schema = self.session.get(f"{base}/api/schema/", params={"format": "json"}, timeout=30)
        assert schema.status_code == 200, schema.text[:500]
        self.version = schema.json()["info"]["version"]
        self.operations = {
            operation["operationId"]: (method.upper(), path, operation)
            for path, methods in schema.json()["paths"].items()
            for method, operation in methods.items()
        }

    def call(self, operation_id: str, body: Any = None, accept: str = "application/json", **parameters: Any):
        method, path, operation = self.operations[operation_id]
        places = {p["name"]: p["in"] for p in operation.get("parameters", [])}
        unknown = set(parameters) - set(places)
        assert not unknown, f"{operation_id} has no parameter {sorted(unknown)} in the schema"
        url = self.base + path.format(**{k: v for k, v in parameters.items() if places[k] == "path"})
        query = {k: v for k, v in parameters.items() if places[k] == "query"}
        headers = {"Accept": f"{accept}; version={self.version}" if accept == "application/json" else accept}
        data = None
        if body is not None:
            media_type = next(iter(operation["requestBody"]["content"]))
            headers["Content-Type"] = media_type
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
        response = self.session.request(method, url, params=query, data=data, headers=headers, timeout=120)
        documented = set(operation["responses"])
        assert str(response.status_code) in documented, (
            f"{operation_id} answered {response.status_code}, which its schema does not document "
            f"({sorted(documented)}): {response.text[:300]}"
        )
        assert response.ok, f"{operation_id}: {response.status_code} {response.text[:300]}"
        return response

    def every(self, operation_id: str, **parameters: Any) -> list:
        """Every row of a list, following ``next`` if it is paginated."""
        declared = {p["name"] for p in self.operations[operation_id][2].get("parameters", [])}
        if "page_size" in declared:
            parameters = {"page_size": 1000, **parameters}
        page = self.call(operation_id, **parameters).json()
        if isinstance(page, list):
            return page
        rows = list(page["results"])
        while page["next"]:
            next_query = dict(p.split("=", 1) for p in urlparse(page["next"]).query.split("&"))
            page = self.call(operation_id, **{**parameters, **next_query}).json()
            rows += page["results"]
        return rows

    def wait(self, operation_id: str, until, seconds: float = 180, **parameters: Any):
        """Read the operation (every row, if it lists) until ``until`` says so or time is up."""
        _, _, operation = self.operations[operation_id]
        listing = "page" in {p["name"] for p in operation.get("parameters", [])}
        deadline = time.monotonic() + seconds
        while True:
            value = (
                self.every(operation_id, **parameters)
                if listing
                else self.call(operation_id, **parameters).json()
            )
            if until(value) or time.monotonic() > deadline:
                return value
            time.sleep(0.5)


def token_of(environment: dict, username: str) -> str:
    return manage(environment, "drf_create_token", username).split(TOKEN_LINE)[1].split()[0]


@pytest.fixture
def source(tmp_path):
    """The newcomer's install: SQLite, jobs in-process, the demo loaded."""
    environment = deployment_environment(SQLITE_PATH=str(tmp_path / "source.sqlite3"), LOG_LEVEL="WARNING")
    manage(environment, "migrate", "--noinput")
    manage(environment, "load_demo")
    token = token_of(environment, "researcher")  # before the server starts: nothing left running on failure
    server = Gunicorn(environment, tmp_path / "source.log", workers=1)
    yield OpenApiClient(server.base, token)
    server.stop()


@pytest.fixture
def destination(postgres_required, tmp_path):
    """A fresh production-like install: a new PostgreSQL database, migrated, one superuser."""
    database = settings.DATABASES["default"]
    name = f"cranfield_bundle_target_{time.time_ns()}"
    admin = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}"
    with psycopg.connect(f"{admin}/postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    environment = deployment_environment(
        DATABASE_URL=f"{admin}/{name}", DEBUG="false", SECRET_KEY="bundle-test-" + "x" * 50,
        ALLOWED_HOSTS="127.0.0.1", SECURE_COOKIES="false", STATIC_ROOT=str(tmp_path / "static"),
        LOG_LEVEL="WARNING",
    )  # fmt: skip
    manage(environment, "migrate", "--noinput")
    manage(environment, "collectstatic", "--noinput")
    manage({**environment, "DJANGO_SUPERUSER_PASSWORD": "a-long-admin-password"}, "createsuperuser",
           "--noinput", "--username", "admin", "--email", "admin@example.org")  # fmt: skip
    token = token_of(environment, "admin")
    server = Gunicorn(environment, tmp_path / "destination.log", workers=1)
    yield OpenApiClient(server.base, token)
    server.stop()
    with psycopg.connect(f"{admin}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def portable(value):
    """``value`` without the keys that number rows in one database or date them."""
    if isinstance(value, dict):
        return {k: portable(v) for k, v in value.items() if k not in LOCAL_KEYS}
    if isinstance(value, list):
        return [portable(v) for v in value]
    return value


def collection(client: OpenApiClient, project: int) -> dict:
    rows = lambda operation: sorted(  # noqa: E731 - the same reading for every list
        json.dumps(portable(row), sort_keys=True) for row in client.every(operation, project_pk=project)
    )
    return {
        "topics": rows("projects_topics_list"),
        "documents": rows("projects_documents_list"),
        "pool": rows("projects_pool_list"),
        "judgements": rows("projects_judgements_list_list"),
        "runs": rows("projects_runs_list"),
        "snapshots": rows("projects_snapshots_list"),
        "run files": sorted(
            client.call(
                "projects_runs_trec_retrieve", accept="text/plain", project_pk=project, id=run["id"]
            ).text
            for run in client.every("projects_runs_list", project_pk=project)
        ),
        "qrels": [
            client.call(
                "projects_snapshots_qrels_retrieve",
                accept="text/plain",
                project_pk=project,
                version=snapshot["version"],
            ).text
            for snapshot in client.every("projects_snapshots_list", project_pk=project)
        ],
    }


def leaderboards(client: OpenApiClient, project: int) -> dict:
    boards = {}
    for evaluation in client.every("projects_evaluations_list", project_pk=project):
        assert evaluation["status"] == "done", evaluation
        keys = {"project_pk": project, "id": evaluation["id"], "measures": "map,P_10,ndcg_cut_10,bpref"}
        boards[evaluation["ground_truth"]] = (
            evaluation["signature"],
            portable(client.call("projects_evaluations_leaderboard_retrieve", **keys).json()),
            client.call("projects_evaluations_leaderboard_retrieve", accept="text/plain", **keys).text,
        )  # fmt: skip
    return boards


def test_a_bundle_moves_the_demo_to_a_fresh_install_with_the_same_leaderboards(source, destination):
    [demo] = [p for p in source.every("projects_list") if p["name"] == DEMO_PROJECT_NAME]
    bundle = source.call("projects_bundle_retrieve", accept="application/zip", project_pk=demo["id"])
    assert bundle.headers["Content-Type"] == "application/zip"

    # The same people on the new install: their names are kept (the default would make pseudonyms).
    started = destination.call("bundles_create", body=bundle.content, annotators="match")
    assert started.status_code == 202
    job = destination.wait("import_jobs_retrieve", lambda j: j["status"] in {"done", "failed"},
                           id=started.json()["id"])  # fmt: skip
    assert job["status"] == "done", job
    copy = job["project"]
    expected = len(source.every("projects_evaluations_list", project_pk=demo["id"]))

    def finished(rows: list) -> bool:
        return len(rows) == expected and all(e["status"] in {"done", "failed"} for e in rows)

    evaluations = destination.wait("projects_evaluations_list", finished, project_pk=copy)
    assert len(evaluations) == expected == 2, evaluations  # the crowd's snapshot and the official qrels

    assert destination.call("projects_retrieve", id=copy).json()["name"] == f"{demo['name']} (imported)"
    original, moved = collection(source, demo["id"]), collection(destination, copy)
    for part, rows in original.items():
        assert rows, part
        assert moved[part] == rows, part
    source_boards, destination_boards = leaderboards(source, demo["id"]), leaderboards(destination, copy)
    assert sorted(destination_boards) == sorted(source_boards)
    for ground_truth, (signature, board, trec) in source_boards.items():
        assert destination_boards[ground_truth] == (signature, board, trec), ground_truth
