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
import io
import itertools
import logging
import tempfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import asdict
from typing import IO, Any, Protocol

from django.conf import settings
from django.db import OperationalError, transaction

from annotation.models import Project
from evaluation.collection.flow import ImportFailed, import_from_body
from evaluation.collection.streaming import read_body
from evaluation.jobs import lifecycle
from evaluation.models import ImportJob, ImportJobChunk

logger = logging.getLogger(__name__)
Status = ImportJob.Status
CHUNK = 1 << 20  # read from the request at a time
STORED_CHUNK = 8 << 20  # compressed bytes per ImportJobChunk row
SPOOL_BYTES = 64 << 20  # a decompressed body past this goes to a temporary file


class Readable(Protocol):
    """A request body being received (Django's HttpRequest, a file)."""

    def read(self, size: int = -1, /) -> bytes: ...


class BodyRefused(Exception):
    """The upload cannot become a job (too large, not the declared encoding); ``status`` is HTTP's."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def receive_body(
    stream: Readable, *, gzipped: bool, limit: int, store: Callable[[bytes], None]
) -> tuple[int, str]:
    """Read ``stream`` to its end in chunks, compressing as it goes and handing ``store`` the
    compressed bytes in pieces of about ``STORED_CHUNK``; return the body's size and its SHA-256
    (both of the body itself, after any gzip content encoding). Raises BodyRefused past ``limit``
    bytes or on a gzip stream that does not decode."""
    packer = zlib.compressobj(1)
    unzipper = zlib.decompressobj(zlib.MAX_WBITS | 16) if gzipped else None
    digest = hashlib.sha256()
    size = 0
    pending: list[bytes] = []
    pending_bytes = 0

    def hand_over(at_least: int) -> None:
        nonlocal pending_bytes
        if pending and pending_bytes >= at_least:
            store(b"".join(pending))
            pending.clear()
            pending_bytes = 0

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
        pending.append(packer.compress(chunk))
        pending_bytes += len(pending[-1])
        hand_over(STORED_CHUNK)
    if unzipper is not None and not unzipper.eof:
        raise BodyRefused("Content-Encoding is gzip but the body is not: the gzip stream ends early")
    if size == 0:
        raise BodyRefused("the body is empty: send the import as the request's body")
    pending.append(packer.flush())
    pending_bytes += len(pending[-1])
    hand_over(1)
    return size, digest.hexdigest()


def create_job(
    kind: str,
    user: Any,
    project: Project | None,
    stream: Readable,
    *,
    gzipped: bool,
    options: dict | None = None,
) -> ImportJob:
    """Store the upload as a queued job, its body in chunks as it arrives (all or nothing), and send
    it to a worker; raises BodyRefused."""
    with transaction.atomic():
        job = ImportJob.objects.create(
            kind=kind, requested_by=user, project=project, body_bytes=0, body_sha256="", options=options or {}
        )
        numbers = itertools.count()

        def store(data: bytes) -> None:
            ImportJobChunk.objects.create(job=job, number=next(numbers), data=data)

        size, sha256 = receive_body(stream, gzipped=gzipped, limit=settings.IMPORT_JOB_MAX_BYTES, store=store)
        ImportJob.objects.filter(pk=job.pk).update(body_bytes=size, body_sha256=sha256)
        job.body_bytes, job.body_sha256 = size, sha256
    transaction.on_commit(lambda: send(job))  # a worker must find the row it is sent
    return job


def send(job: ImportJob) -> None:
    lifecycle.send(IMPORT_JOBS, job)


def set_stage(job_id: int, stage: str, progress: float) -> None:
    lifecycle.progress(IMPORT_JOBS, job_id, stage, progress)


def unpacked_pieces(job: ImportJob) -> Iterator[bytes]:
    """The job's body, decompressed from its chunks in pieces of at most ``CHUNK`` bytes."""
    unpacker = zlib.decompressobj()
    stored = [bytes(job.body)] if job.body else ()
    chunks = ImportJobChunk.objects.filter(job_id=job.pk).order_by("number").values_list("data", flat=True)
    for data in stored or chunks.iterator(chunk_size=1):
        piece = unpacker.decompress(bytes(data), CHUNK)
        while piece:
            yield piece
            piece = unpacker.decompress(unpacker.unconsumed_tail, CHUNK)
    if tail := unpacker.flush():
        yield tail


class BodyReader(io.RawIOBase):
    """The job's body as a file read front to back (a collection's streaming parser reads it)."""

    def __init__(self, job: ImportJob) -> None:
        self._pieces = unpacked_pieces(job)
        self._left = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._left:
            piece = next(self._pieces, None)
            if piece is None:
                return 0
            self._left = memoryview(piece)
        size = min(len(buffer), len(self._left))
        buffer[:size] = self._left[:size]
        self._left = self._left[size:]
        return size


def body_file(job: ImportJob) -> IO[bytes]:
    """The job's body in a temporary file (on disk past ``SPOOL_BYTES``), so that a gigabyte body is
    not held in memory for a bundle's ZIP reader, which needs to seek."""
    out = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 - its reader closes it
    for piece in unpacked_pieces(job):
        out.write(piece)
    out.seek(0)
    return out


def run(job_id: int) -> str:
    """The task ``tasks.run_import_job``: import a queued job's body, all or nothing
    (``evaluation.jobs.lifecycle``: a redelivered message finds nothing to claim; a job whose worker died
    is sent again by recovery and imported afresh, since its transaction never committed). The body is
    kept until the job ends, so a job run again still has it."""
    if not lifecycle.claim(IMPORT_JOBS, job_id, stage="reading the body", progress=0.02):
        return "not queued"
    job = ImportJob.objects.select_related("project", "requested_by").get(pk=job_id)
    runner = IMPORTERS[job.kind]
    try:
        with lifecycle.running(IMPORT_JOBS, job_id):
            summary = runner(
                job,
                lambda stage, share: set_stage(job_id, stage, share),
                lambda: lifecycle.ensure_running(IMPORT_JOBS, job_id),
            )
    except ImportFailed as failure:
        # The reason is in ``errors``, field by field, as the direct import's 400 names them.
        refused = {"stage": "refused: nothing was imported", "errors": failure.as_dict(), "body": b""}
        lifecycle.fail(IMPORT_JOBS, job_id, "", progress=1.0, **refused)
        return Status.FAILED
    except lifecycle.JobStopped:
        return "stopped"
    except OperationalError:
        lifecycle.requeue(IMPORT_JOBS, job_id, "waiting to retry after a database error")
        raise
    except Exception as error:
        logger.exception("import job %s failed", job_id)
        lifecycle.fail(IMPORT_JOBS, job_id, str(error), stage="failed: nothing was imported", body=b"")
        raise
    lifecycle.finish(IMPORT_JOBS, job_id, summary=summary, body=b"")
    forget_body(job)
    return Status.DONE


def forget_body(job: ImportJob) -> None:
    """A job that has ended (done, failed, cancelled) keeps no body."""
    ImportJobChunk.objects.filter(job_id=job.pk).delete()
    ImportJob.objects.filter(pk=job.pk).update(body=b"")


IMPORT_JOBS = lifecycle.register(
    lifecycle.JobKind(
        "import job",
        ImportJob,
        "evaluation.collection.tasks.run_import_job",
        deferred=("body",),
        on_end=forget_body,
    )
)


def import_collection_job(
    job: ImportJob, progress: Callable[[str, float], None], still_wanted: Callable[[], None]
) -> dict:
    """The direct import's flow (``collection.import_from_body``) on the job's body, read as a stream:
    its documents are checked and spooled one by one (``collection.streaming``), never held at once."""
    assert job.project is not None
    with io.BufferedReader(BodyReader(job), CHUNK) as body:
        rest, documents = read_body(body)
    with closing(documents):
        progress("checking and storing (all or nothing)", 0.2)
        return asdict(import_from_body(job.project, rest, still_wanted, documents=documents))


# An importer takes the job, a progress callback and ``still_wanted``, which it calls at the end of its
# storing transaction (it raises, undoing the import, if the job was cancelled meanwhile).
Importer = Callable[[ImportJob, Callable[[str, float], None], Callable[[], None]], dict]
# How each kind of import job is run. Bundles register theirs (``evaluation.apps``): a bundle is built
# on top of the collection, which knows nothing of it.
IMPORTERS: dict[str, Importer] = {ImportJob.Kind.COLLECTION: import_collection_job}


def register_importer(kind: str, importer: Importer) -> None:
    IMPORTERS[kind] = importer


def gzip_body(data: bytes) -> bytes:
    """A body as a client would send it with ``Content-Encoding: gzip`` (tests and the CLI)."""
    return gzip.compress(data, compresslevel=1)
