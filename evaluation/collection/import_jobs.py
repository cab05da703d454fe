"""Large imports as jobs: the body is streamed into the database in chunks (compressed), and a worker
imports it with the same all-or-nothing flow as the direct import, showing its stage and progress.

A collection body over the direct import's limit (``DATA_UPLOAD_MAX_MEMORY_SIZE``) — a 100,000-document
collection, a 1,000-topic × 1,000-deep run — goes here; so does every test-collection bundle
(``evaluation.bundle.archive``, which registers its importer here). Both kinds answer at once with the
job; its state is polled.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import zlib
from collections.abc import Callable
from dataclasses import asdict
from typing import Any, Protocol

from celery import shared_task
from django.conf import settings
from django.db import OperationalError, transaction
from django.utils import timezone

from annotation.models import Project
from evaluation.collection.flow import ImportFailed, import_from_body
from evaluation.jobs.dispatch import resend_lost, send_to_worker
from evaluation.models import ImportJob

logger = logging.getLogger(__name__)
Status = ImportJob.Status
CHUNK = 1 << 20


class Readable(Protocol):
    """A request body being received (Django's HttpRequest, a file)."""

    def read(self, size: int = -1, /) -> bytes: ...


class BodyRefused(Exception):
    """The upload cannot become a job (too large, not the declared encoding); ``status`` is HTTP's."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def receive_body(stream: Readable, *, gzipped: bool, limit: int) -> tuple[bytes, int, str]:
    """Read ``stream`` to its end in chunks, compressing as it goes; return the compressed bytes, the
    body's size and its SHA-256 (both of the body itself, after any gzip content encoding).
    Raises BodyRefused past ``limit`` bytes or on a gzip stream that does not decode."""
    packer = zlib.compressobj(1)
    unzipper = zlib.decompressobj(zlib.MAX_WBITS | 16) if gzipped else None
    digest = hashlib.sha256()
    size = 0
    parts: list[bytes] = []
    while chunk := stream.read(CHUNK):
        if unzipper is not None:
            try:
                chunk = unzipper.decompress(chunk)
            except zlib.error as error:
                raise BodyRefused(f"Content-Encoding is gzip but the body is not: {error}") from error
        size += len(chunk)
        if size > limit:
            raise BodyRefused(f"the body is over the {limit:,} bytes an import job takes", status=413)
        digest.update(chunk)
        parts.append(packer.compress(chunk))
    if unzipper is not None and not unzipper.eof:
        raise BodyRefused("Content-Encoding is gzip but the body is not: the gzip stream ends early")
    if size == 0:
        raise BodyRefused("the body is empty: send the import as the request's body")
    parts.append(packer.flush())
    return b"".join(parts), size, digest.hexdigest()


def create_job(
    kind: str,
    user: Any,
    project: Project | None,
    stream: Readable,
    *,
    gzipped: bool,
    options: dict | None = None,
) -> ImportJob:
    """Store the upload as a queued job and send it to a worker; raises BodyRefused."""
    body, size, sha256 = receive_body(stream, gzipped=gzipped, limit=settings.IMPORT_JOB_MAX_BYTES)
    job = ImportJob.objects.create(
        kind=kind,
        requested_by=user,
        project=project,
        body=body,
        body_bytes=size,
        body_sha256=sha256,
        options=options or {},
    )
    transaction.on_commit(lambda: send(job))  # a worker must find the row it is sent
    return job


def send(job: ImportJob) -> None:
    send_to_worker(run_import_job, job.pk, lambda job_id, reason: finish(job_id, Status.FAILED, error=reason))


def resend_lost_import_jobs() -> int:
    """Send again the import jobs the broker lost (``dispatch.resend_lost``); returns how many."""
    return resend_lost(ImportJob.objects.defer("body"), send)


@shared_task(acks_late=True)
def resend_lost_import_job_messages() -> int:
    """Beat job, every few minutes: ``resend_lost_import_jobs``."""
    return resend_lost_import_jobs()


def set_stage(job_id: int, stage: str, progress: float) -> None:
    ImportJob.objects.filter(pk=job_id).update(stage=stage, progress=progress)


def finish(job_id: int, status: str, **fields: Any) -> None:
    ImportJob.objects.filter(pk=job_id).update(
        status=status, finished_at=timezone.now(), body=b"", progress=1.0, **fields
    )


def body_of(job: ImportJob) -> bytes:
    return zlib.decompress(bytes(job.body))


@shared_task(acks_late=True, autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def run_import_job(job_id: int) -> str:
    """Import a queued job's body; a job already started or finished is left alone (a redelivered
    message runs nothing twice)."""
    claimed = ImportJob.objects.filter(pk=job_id, status=Status.QUEUED).update(
        status=Status.RUNNING, started_at=timezone.now(), stage="reading the body", progress=0.02
    )
    if not claimed:
        return "not queued"
    job = ImportJob.objects.select_related("project", "requested_by").get(pk=job_id)
    runner = IMPORTERS[job.kind]
    try:
        summary = runner(job, lambda stage, share: set_stage(job_id, stage, share))
    except ImportFailed as failure:
        finish(job_id, Status.FAILED, stage="refused: nothing was imported", errors=failure.as_dict())
        return Status.FAILED
    except Exception as error:
        logger.exception("import job %s failed", job_id)
        finish(job_id, Status.FAILED, stage="failed: nothing was imported", error=str(error)[:2000])
        raise
    finish(job_id, Status.DONE, stage="done", summary=summary)
    return Status.DONE


def import_collection_job(job: ImportJob, progress: Callable[[str, float], None]) -> dict:
    """The direct import's flow (``collection.import_from_body``) on the job's body."""
    assert job.project is not None
    try:
        body = json.loads(body_of(job))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ImportFailed([("", f"not valid JSON: {error}")]) from error
    progress("checking and storing (all or nothing)", 0.2)
    return asdict(import_from_body(job.project, body))


Importer = Callable[[ImportJob, Callable[[str, float], None]], dict]
# How each kind of import job is run. Bundles register theirs (``evaluation.apps``): a bundle is built
# on top of the collection, which knows nothing of it.
IMPORTERS: dict[str, Importer] = {ImportJob.Kind.COLLECTION: import_collection_job}


def register_importer(kind: str, importer: Importer) -> None:
    IMPORTERS[kind] = importer


def gzip_body(data: bytes) -> bytes:
    """A body as a client would send it with ``Content-Encoding: gzip`` (tests and the CLI)."""
    return gzip.compress(data, compresslevel=1)
