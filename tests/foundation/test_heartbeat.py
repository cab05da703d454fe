"""``cranfield.heartbeat``: a request body reports to gunicorn's arbiter as it arrives, never holding
a read for longer than a piece, and gives the application exactly the bytes sent."""

from __future__ import annotations

import io

import pytest

from cranfield import heartbeat


class Trickle(io.RawIOBase):
    """A body that arrives a few bytes at a time, as gunicorn's reader gives it, counting the reads."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at, self.sizes = data, 0, []

    def read(self, size: int = -1) -> bytes:
        self.sizes.append(size)
        size = len(self.data) - self.at if size < 0 else size
        out = self.data[self.at : self.at + size]
        self.at += len(out)
        return out

    def readline(self, size: int = -1) -> bytes:
        end = self.data.find(b"\n", self.at)
        end = len(self.data) if end < 0 else end + 1
        out = self.data[self.at : end]
        self.at = end
        return out


@pytest.mark.parametrize("how", ["whole", "sized", "lines", "iterated"])
def test_the_application_reads_exactly_the_bytes_sent_in_pieces(monkeypatch, how):
    monkeypatch.setattr(heartbeat, "PIECE", 1000)
    monkeypatch.setattr(heartbeat, "EVERY", 0.0)  # report after every read
    data = b"".join(b"line %d of the body\n" % i for i in range(2000))
    stream, reports = Trickle(data), []
    body = heartbeat.ReportingInput(stream, lambda: reports.append(1))
    if how == "whole":
        got = body.read()
    elif how == "sized":
        got = b"".join(iter(lambda: body.read(4096), b""))
    elif how == "lines":
        got = b"".join(iter(body.readline, b""))
    else:
        got = b"".join(body)
    assert got == data
    assert reports
    if how in ("whole", "sized"):  # no read waits for more than a piece
        assert stream.sizes and all(0 < size <= 1000 for size in stream.sizes)


def test_reports_come_at_most_every_interval(monkeypatch):
    monkeypatch.setattr(heartbeat, "PIECE", 10)
    clock = iter(x * 0.1 for x in range(10_000))
    monkeypatch.setattr(heartbeat.time, "monotonic", lambda: next(clock))
    reports = []
    body = heartbeat.ReportingInput(Trickle(b"x" * 1000), lambda: reports.append(1))
    assert body.read(1000) == b"x" * 1000  # 100 pieces, 0.1 s apart on this clock
    assert 8 <= len(reports) <= 11  # about once a second, not once a piece


def test_without_a_gunicorn_worker_the_body_is_left_alone(monkeypatch):
    monkeypatch.setattr(heartbeat, "report", None)
    seen = {}

    def application(environ, start_response):
        seen["input"] = environ["wsgi.input"]
        return [b""]

    original = io.BytesIO(b"{}")
    heartbeat.reporting_body(application)({"wsgi.input": original}, lambda *a: None)
    assert seen["input"] is original
    monkeypatch.setattr(heartbeat, "report", lambda: None)
    heartbeat.reporting_body(application)({"wsgi.input": original}, lambda *a: None)
    assert isinstance(seen["input"], heartbeat.ReportingInput)
