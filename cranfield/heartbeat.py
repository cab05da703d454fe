"""A request body arriving is progress. gunicorn's sync workers are killed when they have not reported
in for ``--timeout`` seconds, and a worker reading an upload does not report: a 30 MB import job from a
client sending 0.4 MB/s (75 s) was cut at 60 s with gunicorn's HTML 500. Here each read of the body
reports in, at most once a second, so an upload that keeps arriving finishes, while a request that
hangs, or a sender that stops sending, is still cut at the timeout.

``cranfield/gunicorn.py`` sets ``report`` to the worker's ``notify`` when a worker starts; under any
other server (runserver, the test client) it is None and the body is read as it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

report: Callable[[], None] | None = None
EVERY = 1.0  # seconds between reports
# gunicorn's read(n) waits for all n bytes: a 1 MB read at 10 kB/s would not return for 100 s. Reads are
# split into pieces of this size, so a client sending more than this per timeout keeps its worker.
PIECE = 64 << 10


class ReportingInput:
    """``wsgi.input`` that reports in after each read, at most every ``EVERY`` seconds."""

    def __init__(self, stream: Any, report: Callable[[], None]) -> None:
        self._stream = stream
        self._report = report
        self._last = time.monotonic()

    def _arrived(self) -> None:
        now = time.monotonic()
        if now - self._last >= EVERY:
            self._last = now
            self._report()

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:  # to the end
            return b"".join(iter(lambda: self.read(PIECE), b""))
        pieces, wanted = [], size
        while wanted > 0:
            piece = self._stream.read(min(wanted, PIECE))
            self._arrived()
            if not piece:
                break
            pieces.append(piece)
            wanted -= len(piece)
        return b"".join(pieces)

    def readline(self, *size: int) -> bytes:
        line = self._stream.readline(*size)
        self._arrived()
        return line

    def readlines(self, *hint: int) -> list[bytes]:
        lines = self._stream.readlines(*hint)
        self._arrived()
        return lines

    def __iter__(self) -> Iterator[bytes]:
        for line in self._stream:
            self._arrived()
            yield line

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def reporting_body(application: Callable) -> Callable:
    """The WSGI ``application`` with its requests' bodies reporting in as they arrive."""

    def with_reports(environ: dict, start_response: Callable) -> Any:
        if report is not None:
            environ["wsgi.input"] = ReportingInput(environ["wsgi.input"], report)
        return application(environ, start_response)

    return with_reports
