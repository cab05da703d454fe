"""Read and write TREC qrels and runs, streaming, with errors that name file, line and field.

Formats (trec_eval 10.0):
- qrels: ``qid iter docno rel`` — whitespace separated, ``rel`` an integer (graded; negative values mean
  "in the pool but unjudged" to trec_eval).
- runs: ``qid Q0 docno rank score tag`` — fields after the sixth are ignored, as trec_eval does; ``rank``
  is ignored for scoring (trec_eval orders by score descending, then docno descending).
- A line whose first non-blank character is ``#`` is a comment; a ``#`` inside a docno is not.
- Files are read as bytes, as trec_eval reads them (see ``decode``): a Latin-1 docno is not an error.

Each reader takes one quick pass over the lines (a million-line run in about a second, the garbage
collector paused) and, only
if that pass meets something wrong, reads them again line by line to name the line and field.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from typing import IO

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]
Source = str | PathLike | Iterable[str]


class TrecFormatError(ValueError):
    """Malformed TREC input. ``source``, ``line`` (1-based) and ``field`` say where."""

    def __init__(self, source: str, line: int, field: str, message: str) -> None:
        super().__init__(f"{source}, line {line}, field {field!r}: {message}")
        self.source = source
        self.line = line
        self.field = field


class _Recheck(Exception):
    """The quick pass met something wrong; the checked pass says what and where."""


BYTE_ORDER_MARK = b"\xef\xbb\xbf"


def decode(data: bytes) -> str:
    """File bytes as text the way trec_eval sees them: bytes, not characters. UTF-8 where it is UTF-8;
    any other byte (a Latin-1 docno) kept as a lone surrogate (``surrogateescape``), so it compares
    and prints back unchanged (``encode(..., "surrogateescape")``). A leading UTF-8 byte-order mark
    is dropped: it would otherwise become part of the first topic id."""
    if data.startswith(BYTE_ORDER_MARK):
        data = data[len(BYTE_ORDER_MARK) :]
    return data.decode("utf-8", "surrogateescape")


def _lines(source: Source, name: str | None) -> tuple[str, list[str]]:
    """(source name, every line): a file is read whole as bytes, any other iterable taken as its lines."""
    if isinstance(source, str | PathLike):
        path = Path(source)
        return name or str(path), decode(path.read_bytes()).splitlines()
    lines = list(source)
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    return name or "<input>", lines


def _numbered_fields(lines: list[str]) -> Iterator[tuple[int, list[str]]]:
    """Yield (line number, fields) for every non-blank, non-comment line."""
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        yield number, stripped.split()


@contextmanager
def _collection_paused() -> Iterator[None]:
    """The garbage collector off while a reader builds its millions of small, never-cyclic objects:
    its passes over them are a third of the reading time, and find nothing to free."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


QRELS_FIELDS = ("qid", "iter", "docno", "rel")
RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")


def read_qrels(source: Source, *, name: str | None = None) -> Qrels:
    """Read qrels into ``{qid: {docno: rel}}``.

    A repeated (qid, docno) pair with the same relevance is accepted once; with a different
    relevance it is an error, since either value would silently change the scores.
    """
    label, lines = _lines(source, name)
    try:
        with _collection_paused():
            return _qrels_quickly(lines)
    except _Recheck:
        return _qrels_checked(lines, label)


def _qrels_quickly(lines: list[str]) -> Qrels:
    qrels: Qrels = {}
    qid = None
    topic: dict[str, int] = {}
    count = 0
    try:
        for fields in map(str.split, lines):
            if len(fields) != 4:
                if not fields or fields[0][0] == "#":
                    continue
                raise _Recheck
            if fields[0] != qid:  # a topic's lines usually come together: look it up once
                if fields[0][0] == "#":
                    continue
                qid = fields[0]
                topic = qrels.setdefault(qid, {})
            topic[fields[2]] = int(fields[3])
            count += 1
    except ValueError:
        raise _Recheck from None
    if count != sum(map(len, qrels.values())):  # a repeated pair: the checked pass compares values
        raise _Recheck
    return qrels


def _qrels_checked(lines: list[str], label: str) -> Qrels:
    qrels: Qrels = {}
    for number, fields in _numbered_fields(lines):
        if len(fields) != 4:
            raise TrecFormatError(
                label, number, "line", f"expected 4 fields ({' '.join(QRELS_FIELDS)}), found {len(fields)}"
            )
        qid, _, docno, rel_text = fields
        try:
            rel = int(rel_text)
        except ValueError:
            raise TrecFormatError(label, number, "rel", f"not an integer: {rel_text!r}") from None
        topic = qrels.setdefault(qid, {})
        if topic.get(docno, rel) != rel:
            raise TrecFormatError(
                label, number, "rel", f"{qid} {docno} was already judged {topic[docno]}, now {rel}"
            )
        topic[docno] = rel
    return qrels


def read_run(source: Source, *, name: str | None = None) -> tuple[Run, str]:
    """Read a run into ``({qid: {docno: score}}, tag)``; the tag is the first line's.

    A docno retrieved twice for one topic is an error (trec_eval refuses it too).
    """
    label, lines = _lines(source, name)
    try:
        with _collection_paused():
            return _run_quickly(lines)
    except _Recheck:
        return _run_checked(lines, label)


def _run_quickly(lines: list[str]) -> tuple[Run, str]:
    run: Run = {}
    qid = tag = None
    topic: dict[str, float] = {}
    count = 0
    try:
        for fields in map(str.split, lines):
            if len(fields) < 6:
                if not fields or fields[0][0] == "#":
                    continue
                raise _Recheck
            if fields[0] != qid:  # a topic's lines usually come together: look it up once
                if fields[0][0] == "#":
                    continue
                qid = fields[0]
                topic = run.setdefault(qid, {})
                tag = tag or fields[5]
            score = float(fields[4])
            if score != score:  # NaN
                raise _Recheck
            topic[fields[2]] = score
            count += 1
    except ValueError:
        raise _Recheck from None
    if count != sum(map(len, run.values())):  # a docno retrieved twice for a topic
        raise _Recheck
    return run, tag or ""


def _run_checked(lines: list[str], label: str) -> tuple[Run, str]:
    run: Run = {}
    tag = ""
    for number, fields in _numbered_fields(lines):
        if len(fields) < 6:
            raise TrecFormatError(
                label, number, "line", f"expected 6 fields ({' '.join(RUN_FIELDS)}), found {len(fields)}"
            )
        qid, _, docno, _, score_text, line_tag = fields[:6]
        try:
            score = float(score_text)
        except ValueError:
            raise TrecFormatError(label, number, "score", f"not a number: {score_text!r}") from None
        if math.isnan(score):
            raise TrecFormatError(label, number, "score", "NaN is not a score")
        topic = run.setdefault(qid, {})
        if docno in topic:
            raise TrecFormatError(label, number, "docno", f"{docno!r} is retrieved twice for topic {qid!r}")
        topic[docno] = score
        tag = tag or line_tag
    return run, tag


def trec_order(scores: dict[str, float]) -> list[str]:
    """Docnos in trec_eval's order: score descending, ties broken by docno descending."""
    return [docno for docno, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def write_qrels(qrels: Qrels, handle: IO[str]) -> None:
    """Write qrels sorted by qid then docno."""
    for qid in sorted(qrels):
        for docno in sorted(qrels[qid]):
            handle.write(f"{qid} 0 {docno} {qrels[qid][docno]}\n")


def write_run(run: Run, handle: IO[str], tag: str) -> None:
    """Write a run with ranks in trec_eval's order, so the rank column agrees with the scores."""
    for qid in sorted(run):
        for rank, docno in enumerate(trec_order(run[qid]), start=1):
            handle.write(f"{qid} Q0 {docno} {rank} {run[qid][docno]!r} {tag}\n")
