"""OpenAPI post-processing (drf-spectacular): every operation documents the errors it can answer.

DRF answers 401/403 for credentials and roles, 404 for objects that are not yours (or a page past
the end), 400 for a body or a parameter it refuses (``{field: [message]}``, or ``{"detail": …}``), and
413/415 for a body too large or of the wrong type, 406 for an API version it does not serve. Views
declare their successes; the errors are the same everywhere, so they are added here once.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

ERROR = {
    "type": "object",
    "description": '{"detail": "message"} or {"field": ["message", …]}, the field a path such as runs[0]',
    "additionalProperties": True,
}
ALWAYS = {
    "401": "no credentials, or not valid ones",
    "403": "not allowed for this role (researchers only)",
    "404": "no such object, or not yours; or a page past the end",
    "406": "an Accept header this server cannot answer, such as an API version it does not serve",
}
WITH_INPUT = {"400": "a parameter or the body refused, naming the field"}
WITH_BODY = {
    "413": "the body is over the limit a request may carry",
    "415": "the body is not of the declared content type",
}


def body_limit() -> str:
    """The 413's description with this server's limits (MAX_REQUEST_BODY_MB, IMPORT_JOB_MAX_MB)."""
    return (
        f"the body is over the limit: {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes for a request read "
        f"whole, {settings.IMPORT_JOB_MAX_BYTES:,} bytes for an import job or a bundle (streamed)"
    )


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: Any) -> dict[str, Any]:
    # The API's version, as clients ask for it (Accept: application/json; version=1): the version a
    # request asked for, else the default; drf-spectacular would write "1 (1)" if VERSION were set.
    asked = getattr(request, "version", None) if request is not None else None
    result.setdefault("info", {})["version"] = asked or settings.REST_FRAMEWORK["DEFAULT_VERSION"]
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
    reference = {"$ref": "#/components/schemas/Error"}
    for path in result.get("paths", {}).values():
        for method, operation in path.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            errors = dict(ALWAYS)
            if operation.get("requestBody") or operation.get("parameters") or method != "get":
                errors |= WITH_INPUT
            if operation.get("requestBody") or method in {"post", "put", "patch"}:
                errors |= WITH_BODY | {"413": body_limit()}
            responses = operation.setdefault("responses", {})
            for code, description in errors.items():
                responses.setdefault(
                    code, {"description": description, "content": {"application/json": {"schema": reference}}}
                )
    return result
