"""The API's exception handler: DRF's, plus a JSON 413 naming the limit for a body too large to read
(Django raises RequestDataTooBig, which would otherwise be a bare HTML "Bad Request")."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc, context):
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return Response(
            {
                "detail": f"the body is over the {limit:,} bytes a request may carry; send a large "
                "collection to POST /api/projects/{id}/import-jobs/ (imported as a job, up to "
                f"{settings.IMPORT_JOB_MAX_BYTES:,} bytes, gzip accepted)"
            },
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    return drf_exception_handler(exc, context)
