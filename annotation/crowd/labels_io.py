"""Stream crowd labels (``item,worker,label``) and gold (``item,label`` or ``item,gold``) from CSV."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path


class LabelFileError(ValueError):
    """A malformed labels or gold file; the message names the file, line and field."""


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


def read_labels(path: str | Path) -> Iterator[tuple[str, str, int | float | str]]:
    """Yield (item, worker, label) triples, one row at a time (files of millions of rows are fine)."""
    for _, (item, worker, label) in _rows(path, ("item", "worker", "label")):
        yield item, worker, parse_label(label)


def read_gold(path: str | Path) -> dict[str, int | float | str]:
    """Gold answers ``{item: label}``; the second column may be named ``label`` or ``gold``."""
    with open(path, newline="", encoding="utf-8") as handle:
        header = handle.readline().strip().split(",")
    second = header[1].strip() if len(header) > 1 else "label"
    gold = {}
    for line, (item, label) in _rows(path, ("item", second if second in {"label", "gold"} else "label")):
        if item in gold and gold[item] != parse_label(label):
            raise LabelFileError(f"{path}, line {line}: item {item!r} has two different gold labels")
        gold[item] = parse_label(label)
    return gold
