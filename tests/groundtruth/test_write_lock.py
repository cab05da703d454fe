"""Snapshot writes of one project are serialised by an advisory lock, not by the project row: a
submission's debounce update never waits behind a large snapshot's write."""

from __future__ import annotations

import threading

import pytest
from django.db import OperationalError, connection, connections, transaction

from annotation.models import Project
from evaluation.ground_truth.write import lock_snapshot_writes

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_write_in_progress_blocks_other_writers_but_not_the_project_row(postgres_required, researcher):
    project = Project.objects.create(name="P", owner=researcher)
    holding, release = threading.Event(), threading.Event()

    def writer() -> None:
        try:
            with transaction.atomic():
                lock_snapshot_writes(project.pk)
                holding.set()
                release.wait(10)
        finally:
            connections.close_all()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert holding.wait(10)
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '500ms'")
            # What every submission does after it commits: no wait.
            assert Project.objects.filter(pk=project.pk).update(ground_truth_pending=True) == 1
        with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '300ms'")
            lock_snapshot_writes(project.pk)  # a second writer waits
    finally:
        release.set()
        thread.join(10)
