"""Run annotators' work in parallel threads, as the concurrency tests do."""

from __future__ import annotations

import contextlib
import fcntl
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from django.db import connections

# PostgreSQL here allows 100 connections: two runs of 50 threads in the suite's two processes at
# once would pass it. Runs of more than this many threads take turns, across processes.
MANY_THREADS = 20


@contextlib.contextmanager
def taking_turns(threads: int) -> Iterator[None]:
    if threads <= MANY_THREADS:
        yield
        return
    with open(Path(tempfile.gettempdir()) / "cranfield-many-threads.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def together(work: Callable[..., None], arguments: Sequence[tuple], timeout: float) -> None:
    """``work(*args)`` for each ``args`` in a thread of its own (its own database connection, closed at
    the end), all released at once by a barrier; fails if a thread is still running after ``timeout``
    seconds or raised anything (surfaced here, in the main thread). Many threads wait for another
    process's many threads to finish first (``taking_turns``)."""
    with taking_turns(len(arguments)):
        _together(work, arguments, timeout)


def _together(work: Callable[..., None], arguments: Sequence[tuple], timeout: float) -> None:
    start = threading.Barrier(len(arguments))
    errors: list[BaseException] = []

    def run(*args) -> None:
        try:
            start.wait()
            work(*args)
        except BaseException as error:
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=args) for args in arguments]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
