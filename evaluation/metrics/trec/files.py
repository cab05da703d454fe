"""Read and write TREC qrels and runs, streaming, with errors that name file, line and field.

Formats (trec_eval 10.0):
- qrels: ``qid iter docno rel`` — whitespace separated, ``rel`` an integer (graded; negative values mean
  "in the pool but unjudged" to trec_eval).
- runs: ``qid Q0 docno rank score tag`` — fields after the sixth are ignored, as trec_eval does; ``rank``
  is ignored for scoring (trec_eval orders by score descending, then docno descending).
- A line whose first non-blank character is ``#`` is a comment; a ``#`` inside a docno is not.
- Files are read as bytes, as trec_eval reads them (see ``decode``): a Latin-1 docno is not an error.

A file is read by NumPy's C reader (``loadtxt``) when nothing in it could be read differently by
that reader (plain ASCII, no comment, ordinary line ends: ``_c_table``); otherwise, or if it finds
anything wrong, by one quick Python pass over the lines (the garbage collector paused) and, only if
that pass meets something wrong, line by line again to name the line and field.
"""

from __future__ import annotations

import gc
import math
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import pairwise, repeat
from os import PathLike
from pathlib import Path
from typing import IO, NamedTuple

import numpy as np

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]
Source = str | PathLike | Iterable[str]


class TopicScores(NamedTuple):
    """One topic of a run as columns: its docnos in file order and their scores (float64), as
    ``read_run_columns`` gives them to the scorer without building a dict per topic."""

    docnos: list[str]
    scores: np.ndarray


RunColumns = dict[str, TopicScores]


class TrecFormatError(ValueError):
    """Malformed TREC input. ``source``, ``line`` (1-based) and ``field`` say where."""

    def __init__(self, source: str, line: int, field: str, message: str) -> None:
        super().__init__(f"{source}, line {line}, field {field!r}: {message}")
        self.source = source
        self.line = line
        self.field = field
        self.message = message


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


# Where NumPy's C reader (loadtxt) and the Python passes could read a file differently: these end a
# line for str.splitlines but are spaces to loadtxt, "#" starts a comment for us only, and NUL is
# where a fixed-width id would end. A file holding any of them (or anything not ASCII) is read by
# the Python passes.
_PYTHON_ONLY = (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"#", b"\x00")
# The columns loadtxt keeps: the qrels' four columns and no more (a fifth is an error), the run's
# first six at least (a missing tag is an error, fields after it are ignored). Docnos as Python
# strings; topic ids, a few thousand distinct among millions of rows, as fixed-width bytes (cheaper
# to make and to compare), read again as strings if one fills the width and may have been cut.
_QID_WIDTH = 32
_QRELS_TABLE = [("qid", f"S{_QID_WIDTH}"), ("iter", "S1"), ("docno", "O"), ("rel", "i8")]
_RUN_TABLE = [("qid", f"S{_QID_WIDTH}"), ("docno", "O"), ("score", "f8"), ("tag", "S1")]
_RUN_COLUMNS = (0, 2, 4, 5)


def _c_table(
    source: Source, dtype: list, usecols: tuple | None = None
) -> tuple[np.ndarray, list[str]] | None:
    """(the file's columns read by NumPy's C reader, its first line's fields): a million-line run in
    about 0.7 s of CPU against 1.1 s for splitting its lines in Python. None for anything that reader
    might read differently from the Python passes (not a file, not plain ASCII, a comment, a line
    break other than \\n or \\r\\n) or rejects (a missing or extra column, a number Python reads and
    NumPy does not, such as 1_000, no data): the Python passes then read it, and name the line of
    any error."""
    if not isinstance(source, str | PathLike):
        return None
    data = Path(source).read_bytes()
    if not data.isascii() or any(mark in data for mark in _PYTHON_ONLY):
        return None
    table = _loadtxt(source, dtype, usecols)
    if table is not None and _filled(table, "qid"):
        table = _loadtxt(source, [("qid", "O"), *dtype[1:]], usecols)  # a topic id as long as the width
    return None if table is None else (table, _first_fields(data))


def _filled(table: np.ndarray, field: str) -> bool:
    """Whether a fixed-width bytes column holds a value as long as its width (so perhaps cut short)."""
    return bool((np.strings.str_len(table[field]) >= table.dtype[field].itemsize).any())


def _loadtxt(source: str | PathLike, dtype: list, usecols: tuple | None) -> np.ndarray | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "input contained no data" and the like
            return np.loadtxt(source, dtype=dtype, usecols=usecols, comments=None, ndmin=1, encoding="ascii")
    except (ValueError, Warning):
        return None


def _first_fields(data: bytes) -> list[str]:
    """The fields of the first line that has any (a run's tag is its sixth)."""
    start = 0
    while True:
        end = data.find(b"\n", start)
        fields = data[start : end if end >= 0 else len(data)].decode("ascii").split()
        if fields or end < 0:
            return fields
        start = end + 1


def _blocks(qids: np.ndarray) -> Iterator[tuple[str, slice]]:
    """(qid, its rows) for each stretch of consecutive rows of one topic."""
    edges = [0, *(np.flatnonzero(qids[1:] != qids[:-1]) + 1).tolist(), len(qids)] if len(qids) else [0]
    for start, end in pairwise(edges):
        qid = qids[start]
        yield qid.decode("ascii") if isinstance(qid, bytes) else qid, slice(start, end)


def _qrels_from_table(table: np.ndarray) -> Qrels | None:
    qrels: Qrels = {}
    docnos, rels = table["docno"], table["rel"]
    for qid, rows in _blocks(table["qid"]):
        qrels.setdefault(qid, {}).update(zip(docnos[rows].tolist(), rels[rows].tolist(), strict=True))
    if len(table) != sum(map(len, qrels.values())):  # a repeated pair: the checked pass compares values
        return None
    return qrels


def _run_from_table(table: np.ndarray, first_fields: list[str]) -> tuple[RunColumns, str] | None:
    scores = np.ascontiguousarray(table["score"])
    if np.isnan(scores).any():
        return None
    docnos = table["docno"]
    pieces: dict[str, list[slice]] = {}
    for qid, stretch in _blocks(table["qid"]):
        pieces.setdefault(qid, []).append(stretch)
    run: RunColumns = {}
    for qid, stretches in pieces.items():
        rows: slice | np.ndarray = stretches[0]
        if len(stretches) > 1:  # a topic's lines apart in the file: joined in file order
            rows = np.concatenate([np.arange(part.start, part.stop) for part in stretches])
        topic = TopicScores(docnos[rows].tolist(), scores[rows])
        if len(set(topic.docnos)) != len(topic.docnos):  # a docno retrieved twice for a topic
            return None
        run[qid] = topic
    return run, first_fields[5]  # the tag


QRELS_FIELDS = ("qid", "iter", "docno", "rel")
RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")


def read_qrels(source: Source, *, name: str | None = None) -> Qrels:
    """Read qrels into ``{qid: {docno: rel}}``.

    A repeated (qid, docno) pair with the same relevance is accepted once; with a different
    relevance it is an error, since either value would silently change the scores.
    """
    with _collection_paused():
        read = _c_table(source, _QRELS_TABLE)
        qrels = _qrels_from_table(read[0]) if read else None
    if qrels is not None:
        return qrels
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
    columns, tag = read_run_columns(source, name=name)
    return {
        qid: dict(zip(topic.docnos, topic.scores.tolist(), strict=True)) for qid, topic in columns.items()
    }, tag


def read_run_columns(source: Source, *, name: str | None = None) -> tuple[RunColumns, str]:
    """``read_run`` as columns per topic (``TopicScores``): what scoring reads, without a dict per topic."""
    with _collection_paused():
        read = _c_table(source, _RUN_TABLE, _RUN_COLUMNS)
        columns = _run_from_table(*read) if read else None
    if columns is not None:
        return columns
    label, lines = _lines(source, name)
    try:
        with _collection_paused():
            return _run_quickly(lines)
    except _Recheck:
        run, tag = _run_checked(lines, label)
        return {
            qid: TopicScores(list(scores), np.fromiter(scores.values(), dtype=np.float64, count=len(scores)))
            for qid, scores in run.items()
        }, tag


def _run_quickly(lines: list[str]) -> tuple[RunColumns, str]:
    """One pass that only splits lines and collects the docno and score texts of each topic (split at
    most five times: the tag and anything after it stay one string); the scores are then converted
    a topic at a time, and repeated docnos and NaN scores checked per topic."""
    texts: dict[str, tuple[list[str], list[str]]] = {}
    qid = tag = None
    docnos: list[str] = []
    scores: list[str] = []
    for fields in map(str.split, lines, repeat(None), repeat(5)):
        if len(fields) < 6:
            if not fields or fields[0][0] == "#":
                continue
            raise _Recheck
        if fields[0] != qid:  # a topic's lines usually come together: look it up once
            if fields[0][0] == "#":
                continue
            qid = fields[0]
            docnos, scores = texts.setdefault(qid, ([], []))
            tag = tag or fields[5].split()[0]
        docnos.append(fields[2])
        scores.append(fields[4])
    run: RunColumns = {}
    try:
        for qid, (docnos, scores) in texts.items():
            values = np.fromiter(map(float, scores), dtype=np.float64, count=len(scores))
            if np.isnan(values).any() or len(set(docnos)) != len(docnos):  # NaN, or a docno twice
                raise _Recheck
            run[qid] = TopicScores(docnos, values)
    except ValueError:
        raise _Recheck from None
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


def trec_ordered(topic: TopicScores) -> TopicScores:
    """The topic's documents and scores in trec_eval's order (``trec_order``)."""
    order = trec_order_indices(topic.docnos, topic.scores)
    documents = topic.docnos
    return TopicScores([documents[i] for i in order.tolist()], topic.scores[order])


def trec_order_indices(docnos: Iterable[str], scores: np.ndarray) -> np.ndarray:
    """The positions of the documents in trec_eval's order (``trec_order``: score descending, ties by
    docno descending), by NumPy's sorts: a stable sort of the scores, and only where two are equal a
    sort by (score, docno)."""
    order = np.argsort(-scores, kind="stable")
    ordered = scores[order]
    if (ordered[1:] == ordered[:-1]).any():
        # lexsort's last key is primary; ascending then reversed gives score desc, docno desc.
        order = np.lexsort((np.array(list(docnos)), scores))[::-1]
    return order


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
