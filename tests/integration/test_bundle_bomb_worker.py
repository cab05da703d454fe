"""A ZIP bomb sent as a bundle leaves a real worker's memory where it was (issue 27: 1 MiB of deflated
spaces with its real checksum took a worker from 284 MB to 2.3 GB). The worker's peak resident size
(``VmHWM``) is read from /proc before and after it refuses the bundle."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from evaluation.collection.import_jobs import create_job
from evaluation.models import ImportJob
from tests.annotation.factories import make_project
from tests.scoring.test_import_jobs_and_bundles import bundle_of, with_file

pytestmark = pytest.mark.integration

# The stated bound: what refusing any bundle may add to the worker's peak memory.
MOST_MB = 50


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc/<pid>/status")


def test_a_zip_bomb_is_refused_without_the_worker_growing(celery_worker_process, researcher, annotators):
    worker = celery_worker_process
    project = make_project(researcher, annotators)
    spaces = b" " * (256 << 20)  # 256 MiB unpacked
    bomb = with_file(bundle_of(researcher, project), "documents.jsonl", spaces)
    assert len(bomb) < 1024 * 1024
    before = peak_mb(worker.process.pid)
    job = create_job(ImportJob.Kind.BUNDLE, researcher, None, io.BytesIO(bomb), gzipped=False)
    deadline = time.monotonic() + 60
    while (job := ImportJob.objects.get(pk=job.pk)).status in ("queued", "running"):
        assert time.monotonic() < deadline, worker.log_text()
        time.sleep(0.2)
    assert job.status == "failed" and "ZIP bomb" in job.errors["documents.jsonl"][0], job.errors
    grown = peak_mb(worker.process.pid) - before
    assert grown < MOST_MB, f"the worker's peak grew by {grown:.0f} MB"
