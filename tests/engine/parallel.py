"""Run annotators' work in parallel threads, as the concurrency tests do."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from django.db import connections


def together(work: Callable[..., None], arguments: Sequence[tuple], timeout: float) -> None:
    """``work(*args)`` for each ``args`` in a thread of its own (its own database connection, closed at
    the end), all released at once by a barrier; fails if a thread is still running after ``timeout``
    seconds or raised anything (surfaced here, in the main thread)."""
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
