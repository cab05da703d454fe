"""Stream crowd labels (``item,annotator,label``, or ``item,worker,label`` as crowd-kit names the
columns, or the judgements CSV the app downloads) and gold (``item,label`` or ``item,gold``) from CSV.

The app's judgements CSV (a project page's *CSV* link, ``GET /api/projects/<id>/judgements/?as=csv``)
is read as labels too: an item is a ``task_id`` (what the app's ground truth votes on; its topic and
documents are in ``app_item_names``), the annotator the ``annotator`` column, the label the
``label`` column, for the rows of items and gold items (qualification answers and attention checks,
which repeat or degrade an item, are no votes on one). With ``?versions=all`` a corrected judgement
has a line per version: ``duplicates="newest"`` keeps the last, as the app does.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from pathlib import Path
from typing import NamedTuple

import numpy as np

from annotation.crowd.io.encoding import (
    DuplicateLabelError,
    Encoded,
    _from_codes,
    check_duplicates_rule,
    factorize,
)


class LabelFileError(ValueError):
    """A malformed labels or gold file; the message names the file, line and field."""


class DuplicateLineError(LabelFileError):
    """An (item, annotator) labelled on two lines under the ``refuse`` rule; names both lines."""


# annotation.projects.downloads.JUDGEMENT_COLUMNS written out: this package imports no Django (a test checks).
APP_JUDGEMENT_COLUMNS = (
    "judgement_id", "task_id", "kind", "topic", "document", "document_b", "annotator", "label", "answer",
    "revision", "seconds_spent", "seconds_on_task", "created_at", "updated_at",
)  # fmt: skip
# The kinds of task whose judgements are votes on an item (gold items' answers weigh annotators).
APP_VOTING_KINDS = frozenset({"item", "gold"})
# annotation.items.inputs.spreadsheet_safe prefixes a cell starting with one of these with a quote.
_ESCAPED_STARTS = ("=", "+", "-", "@", "\t", "\r")


def is_app_judgements(path: str | Path) -> bool:
    """Whether the file is the app's judgements CSV (by its header)."""
    with open(path, newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle), None) or []
    return tuple(name.strip() for name in header[:3]) == APP_JUDGEMENT_COLUMNS[:3]


def _unescaped(cell: str) -> str:
    """A cell as it was before ``spreadsheet_safe`` quoted it."""
    return cell[1:] if cell[:1] == "'" and cell[1:2] in _ESCAPED_STARTS else cell


def _app_rows(path: str | Path) -> Iterator[tuple[int, dict[str, str]]]:
    """The voting rows of the app's judgements CSV, with their line numbers."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = tuple(name.strip() for name in next(reader, []))
        if header[: len(APP_JUDGEMENT_COLUMNS)] != APP_JUDGEMENT_COLUMNS:
            raise LabelFileError(
                f"{path}, line 1: a Cranfield judgements CSV has the header {','.join(APP_JUDGEMENT_COLUMNS)}"
            )
        for row in reader:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) < len(APP_JUDGEMENT_COLUMNS):
                raise LabelFileError(
                    f"{path}, line {reader.line_num}: expected {len(APP_JUDGEMENT_COLUMNS)} fields, "
                    f"found {len(row)}"
                )
            record = dict(zip(APP_JUDGEMENT_COLUMNS, (value.strip() for value in row), strict=False))
            if record["kind"] in APP_VOTING_KINDS:
                yield reader.line_num, record


def read_app_judgements(path: str | Path) -> Iterator[tuple[str, str, int | float | str]]:
    """(item, annotator, label) of every vote in the app's judgements CSV; the item is its task id."""
    for line, record in _app_rows(path):
        if not record["label"]:
            raise LabelFileError(
                f"{path}, line {line}, field 'label': empty (the answer is {record['answer'][:60]}): labels "
                "come from binary, graded and pairwise projects; ratings and texts are not aggregated here"
            )
        yield record["task_id"], _unescaped(record["annotator"]), parse_label(record["label"])


def app_item_names(path: str | Path) -> dict[str, tuple[str, str, str]]:
    """Each item (task id) of the app's judgements CSV as (topic, document, document_b)."""
    return {
        record["task_id"]: (
            _unescaped(record["topic"]),
            _unescaped(record["document"]),
            _unescaped(record["document_b"]),
        )
        for _, record in _app_rows(path)
    }


def _numbered_votes(path: str | Path) -> Iterator[tuple[int, str, str]]:
    """(line, item, annotator) of every label, in either layout: for naming a duplicate's lines."""
    if is_app_judgements(path):
        for line, record in _app_rows(path):
            yield line, record["task_id"], _unescaped(record["annotator"])
    else:
        for line, (item, annotator, _) in _rows(path, _label_columns(path)):
            yield line, item, annotator


def _rows(path: str | Path, columns: tuple[str, ...]) -> Iterator[tuple[int, list[str]]]:
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise LabelFileError(f"{path}: the file is empty; expected a header {','.join(columns)}")
        header = [name.strip() for name in header]
        if header[: len(columns)] != list(columns):
            raise LabelFileError(
                f"{path}, line 1: expected the header {','.join(columns)}, found {','.join(header)}"
            )
        for row in reader:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) < len(columns):
                raise LabelFileError(
                    f"{path}, line {reader.line_num}: expected {len(columns)} fields ({','.join(columns)}), "
                    f"found {len(row)}"
                )
            for name, value in zip(columns, row, strict=False):
                if not value.strip():
                    raise LabelFileError(f"{path}, line {reader.line_num}, field {name!r}: empty")
            yield reader.line_num, [value.strip() for value in row[: len(columns)]]


def parse_label(text: str) -> int | float | str:
    """Numbers become numbers (so graded labels order numerically); anything else stays text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def _label_columns(path: str | Path) -> tuple[str, str, str]:
    """The header a labels file must have: ``item,worker,label`` if its second column says worker
    (crowd-kit's word), else ``item,annotator,label``."""
    with open(path, newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle), None) or []
    second = header[1].strip() if len(header) > 1 else ""
    return ("item", "worker" if second == "worker" else "annotator", "label")


def read_labels(path: str | Path) -> Iterator[tuple[str, str, int | float | str]]:
    """Yield (item, annotator, label) triples, one row at a time (files of millions of rows are fine)."""
    for _, (item, annotator, label) in _rows(path, _label_columns(path)):
        yield item, annotator, parse_label(label)


def read_label_columns(path: str | Path, *, chunk_rows: int = 500_000, duplicates: str = "refuse") -> Encoded:
    """The labels file as integer arrays (``Encoded``), read ``chunk_rows`` rows at a time.

    ``duplicates`` is ``encoding.encode``'s rule for an (item, annotator) labelled on two lines:
    ``refuse`` raises ``LabelFileError`` naming both lines, ``newest`` keeps the later line.

    Memory holds three integer codes per row plus the distinct items, annotators and labels, never
    the rows as Python objects. The fast path is pandas' C parser; if a chunk holds anything
    doubtful (an empty field, a missing one), the file is read again row by row with the csv
    module so that the error names the exact line, as ``read_labels`` does.
    """
    check_duplicates_rule(duplicates)
    try:
        return _read_label_columns(path, chunk_rows, duplicates)
    except DuplicateLabelError as error:
        raise _duplicate_lines(path, error) from error


def _duplicate_lines(path: str | Path, error: DuplicateLabelError) -> DuplicateLineError:
    """The refused duplicate as a file error naming its two lines (the file is read again, on
    this error path only, to find them)."""
    lines = [
        line
        for line, item, annotator in _numbered_votes(path)
        if item == error.item and annotator == error.annotator
    ]
    first, second = [*lines, None, None][:2]
    return DuplicateLineError(
        f"{path}, line {second}: item {error.item!r} has a second label from annotator "
        f"{error.annotator!r} (the first is on line {first}); every agreement and aggregation figure "
        "needs one label per (item, annotator): remove the older line, or read the file with "
        "duplicates='newest' to keep the later line of each"
    )


def _read_label_columns(path: str | Path, chunk_rows: int, duplicates: str) -> Encoded:
    if is_app_judgements(path):
        return _encode_rows(read_app_judgements(path), duplicates=duplicates)
    columns = _label_columns(path)
    with open(path, newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle), None)
    if header is None or [name.strip() for name in header[:3]] != list(columns):
        next(_rows(path, columns), None)  # raises the header error with its message
        return _encode_rows(read_labels(path), duplicates=duplicates)
    # Fastest first: plain bytes (only the distinct values are decoded), then text (spaces to strip,
    # Windows line ends); anything doubtful is validated row by row, which names the bad line.
    for reader in (_byte_columns, _text_columns):
        coder = _ColumnCoder()
        try:
            for item, annotator, label in reader(path, chunk_rows):
                coder.add(item, annotator, label)
        except (_Doubtful, ValueError):
            continue
        return coder.encoded(duplicates)
    for _ in _rows(path, columns):
        pass
    return _encode_rows(read_labels(path), duplicates=duplicates)


def _byte_columns(path: str | Path, chunk_rows: int) -> Iterator[tuple[_Coded, _Coded, _Coded]]:
    """Chunks of a file of plain lines (``a,b,c`` and a line end: no quotes, spaces, tabs or NUL) as
    three factorised columns, found and coded by NumPy on the bytes; _Doubtful for anything else."""
    with open(path, "rb") as handle:
        handle.readline()  # the header, checked by the caller
        tail = b""
        while block := handle.read(chunk_rows * 24):  # about chunk_rows lines, cut after a line end
            block = tail + block
            cut = block.rfind(b"\n") + 1
            tail = block[cut:]
            if cut:
                yield _coded_columns(block[:cut])
        if tail:
            yield _coded_columns(tail + b"\n")


def _coded_columns(data: bytes) -> tuple[_Coded, _Coded, _Coded]:
    data = data.replace(b"\r\n", b"\n")  # csv.writer ends lines with \r\n
    if any(mark in data for mark in (b'"', b" ", b"\t", b"\r", b"\x00")):
        raise _Doubtful
    text = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero((text == ord(",")) | (text == ord("\n")))  # where each field ends
    rows = len(ends) // 3
    # Every line exactly two commas and a line end (a blank line, a missing or extra field is doubtful).
    if len(ends) != 3 * rows or (text[ends].reshape(rows, 3) != _LINE_SHAPE).any():
        raise _Doubtful
    starts = np.concatenate(([0], ends[:-1] + 1))
    lengths = ends - starts
    if not rows or not lengths.all():  # an empty field
        raise _Doubtful
    first, second, third = (_factorised(text, starts[k::3], lengths[k::3]) for k in range(3))
    return first, second, third


_LINE_SHAPE = np.array([ord(","), ord(","), ord("\n")], dtype=np.uint8)


def _factorised(text: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> _Coded:
    """The fields at ``starts`` as first-seen codes and their distinct values (bytes): each field
    copied into a zero-padded row of a byte matrix, so that equal fields are equal rows; rows of at
    most 8 bytes are compared as one 64-bit integer (big-endian, so sorted as the bytes are)."""
    width = int(lengths.max())
    padded = max(8, -(-width // 8) * 8)
    columns = np.arange(width)
    inside = columns < lengths[:, None]
    matrix = np.zeros((len(starts), padded), dtype=np.uint8)
    matrix[:, :width] = np.where(inside, text[np.minimum(starts[:, None] + columns, len(text) - 1)], 0)
    keys = matrix.view(">u8").ravel() if padded == 8 else matrix.view(f"S{padded}").ravel()
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # distinct values in first-seen order
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    values = distinct[order]
    as_bytes = values.astype(">u8").view("S8") if padded == 8 else values  # S drops the zero padding
    return _Coded(rank[inverse.ravel()], as_bytes.tolist())


def _text_columns(path: str | Path, chunk_rows: int) -> Iterator[tuple[list, list, list]]:
    with open(path, newline="", encoding="utf-8") as handle:
        handle.readline()  # the header, checked by the caller
        while lines := handle.readlines(chunk_rows * 24):  # a size hint: about chunk_rows lines
            yield _plain_columns(lines)


class _Doubtful(Exception):
    """A chunk the fast reader will not judge; the row-by-row reader decides."""


def _plain_columns(lines: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The three columns of lines of plain CSV (no quotes; exactly two commas and three non-empty
    fields on every line), as lists of text, split at C speed; raises _Doubtful for anything else
    (quotes, a blank line, a missing, empty or extra field), which the row-by-row reader then
    judges and names."""
    text = "".join(lines)
    if '"' in text or set(map(str.count, lines, repeat(","))) != {2}:
        raise _Doubtful
    text = text.replace("\r\n", "\n")
    if not text.endswith("\n"):
        text += "\n"
    values = text.replace("\n", ",").split(",")[:-1]
    items, annotators, labels = values[0::3], values[1::3], values[2::3]
    if " " in text or "\t" in text:
        items, annotators, labels = (
            [value.strip() for value in column] for column in (items, annotators, labels)
        )
    if "" in items or "" in annotators or "" in labels:
        raise _Doubtful
    return items, annotators, labels


class _Coded(NamedTuple):
    """A column already factorised (``_byte_columns``): first-seen codes and the distinct values as
    bytes, of which only these few are decoded (UTF-8)."""

    codes: np.ndarray
    uniques: list[bytes]


class _ColumnCoder:
    """Global first-seen codes for items and annotators, and one code per parsed label value."""

    def __init__(self) -> None:
        self.codes: tuple[dict, dict, dict] = ({}, {}, {})
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    def _code(self, values: Sequence | _Coded, known: dict, parse=None) -> np.ndarray:
        if isinstance(values, _Coded):
            local, uniques = values.codes, [value.decode("utf-8") for value in values.uniques]
        else:
            local, uniques = factorize(values)
        keys = [parse(value) for value in uniques] if parse else uniques
        mapping = np.array([known.setdefault(key, len(known)) for key in keys], dtype=np.int64)
        return mapping[local]

    def add(
        self, items: Iterable, annotators: Iterable, labels: Iterable, *, label_text: bool = True
    ) -> None:
        """``label_text``: labels are still text, to be parsed (numbers become numbers)."""
        item_codes, annotator_codes, label_codes = self.codes
        parse = parse_label if label_text else None
        self.parts.append(
            (
                self._code(items if isinstance(items, _Coded) else list(items), item_codes),
                self._code(
                    annotators if isinstance(annotators, _Coded) else list(annotators), annotator_codes
                ),
                self._code(labels if isinstance(labels, _Coded) else list(labels), label_codes, parse),
            )
        )

    def encoded(self, duplicates: str = "refuse") -> Encoded:
        items, annotators, labels = (list(codes) for codes in self.codes)
        joined = [
            np.concatenate([part[column] for part in self.parts]) if self.parts else np.zeros(0, np.int64)
            for column in range(3)
        ]
        item_codes, annotator_codes, label_codes = joined
        return _from_codes(
            item_codes,
            annotator_codes,
            label_codes,
            items,
            annotators,
            labels,
            compact=True,
            duplicates=duplicates,
        )


def _encode_rows(
    triples: Iterable[tuple[str, str, int | float | str]], batch: int = 200_000, *, duplicates: str = "refuse"
) -> Encoded:
    coder = _ColumnCoder()
    rows: list[tuple] = []
    for row in triples:
        rows.append(row)
        if len(rows) == batch:
            coder.add(*zip(*rows, strict=True), label_text=False)
            rows = []
    if rows:
        coder.add(*zip(*rows, strict=True), label_text=False)
    return coder.encoded(duplicates)


def read_gold(path: str | Path) -> dict[str, int | float | str]:
    """Gold answers ``{item: label}``; the second column may be named ``label`` or ``gold``."""
    with open(path, newline="", encoding="utf-8") as handle:
        header = handle.readline().strip().split(",")
    second = header[1].strip() if len(header) > 1 else "label"
    gold: dict[str, int | float | str] = {}
    for line, (item, label) in _rows(path, ("item", second if second in {"label", "gold"} else "label")):
        if item in gold and gold[item] != parse_label(label):
            raise LabelFileError(f"{path}, line {line}: item {item!r} has two different gold labels")
        gold[item] = parse_label(label)
    return gold
