"""The API fuzzed from its own OpenAPI schema with schemathesis: every operation, a bounded number of
generated requests each (valid and invalid bodies, parameters and headers), as the owner of a
project that has topics, documents, runs, a snapshot, an evaluation and an import job, so that the
generated requests reach real objects and not only 404s.

Each answer must not be a server error, and must be one the schema documents: its status code, its
content type and the shape of its body. Deterministic (derandomised) and bounded, so CI is
reproducible and the test takes about a minute.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.foundation.test_access_matrix import world  # noqa: F401  (the project the requests reach)

pytestmark = pytest.mark.django_db
EXAMPLES = 40
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def pinned(path: str, values: dict, pks: dict) -> dict:
    """Real objects' keys for the path's parameters: the owner's project, its runs, evaluation …
    (drf-spectacular writes each primary key ``{id}``; the segment before it says whose)."""
    fixed = {"project_pk": values["project_pk"], "version": values["version"], "run_pk": values["run_pk"]}
    if "{id}" in path:
        before = path.split("{id}")[0].strip("/")
        kind = next(
            (k for k in sorted(pks, key=len, reverse=True) if before.endswith(k.split("/<")[0])), None
        )
        if kind is not None:
            fixed["id"] = pks[kind]
    return {name: value for name, value in fixed.items() if "{" + name + "}" in path}


def operations(schema) -> list:
    return [result.ok() for result in schema.get_all_operations()]


@pytest.fixture
def in_process_wsgi():
    """The WSGI app called in this process, inside the test's transaction: as Django's test client
    does, the connection is not closed at the end of each request (it would end the transaction)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield get_wsgi_application()
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


def fuzz(operation, fixed: dict, token: str, failures: list[str]) -> int:
    """Call one operation with generated requests; return how many (failures are appended)."""
    tried = 0

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def call(case) -> None:
        nonlocal tried
        tried += 1
        case.path_parameters = {**(case.path_parameters or {}), **fixed}
        try:
            case.call_and_validate(headers={"Authorization": f"Token {token}"}, checks=CHECKS)
        except (Exception, BaseExceptionGroup) as error:  # collected: one run lists every failure
            failures.append(f"{operation.method.upper()} {operation.path}: {str(error)[:600]}")
            raise

    call()
    return tried


def test_no_operation_answers_a_server_error_or_outside_its_schema(world, researcher, in_process_wsgi):  # noqa: F811
    values, pks, _ = world
    token = Token.objects.get_or_create(user=researcher)[0].key
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", in_process_wsgi)
    failures: list[str] = []
    tried = 0
    for operation in operations(schema):
        fixed = {
            k: v for k, v in pinned(operation.path, values, pks).items() if "{" + k + "}" in operation.path
        }
        try:
            tried += fuzz(operation, fixed, token, failures)
        except (Exception, BaseExceptionGroup):  # recorded in failures, with hypothesis's smallest case
            continue
    assert tried > 100
    assert not failures, f"{len(failures)} failing operations:\n\n" + "\n\n".join(sorted(set(failures)))
