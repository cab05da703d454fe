"""Read prediction/reference pairs from JSONL: ``{"id": …, "prediction": "…", "references": ["…", …]}``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


class PairsFormatError(ValueError):
    """A malformed JSONL line; the message names the file, line and field."""


@dataclass(frozen=True)
class Pair:
    id: object
    prediction: str
    references: list[str]


def iter_pairs(path: str | Path) -> Iterator[Pair]:
    """Each non-blank line as a Pair, read one line at a time.

    An empty prediction or reference is allowed (it scores 0, as the reference tools score it);
    a missing field, a non-string, or no reference at all is an error naming the line and field.
    """
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            where = f"{path}, line {number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise PairsFormatError(f"{where}: not JSON ({error.msg})") from None
            if not isinstance(record, dict):
                raise PairsFormatError(f"{where}: expected an object with id, prediction, references")
            for field in ("id", "prediction", "references"):
                if field not in record:
                    raise PairsFormatError(f"{where}, field {field!r}: missing")
            if not isinstance(record["prediction"], str):
                raise PairsFormatError(f"{where}, field 'prediction': must be a string")
            references = record["references"]
            if (
                not isinstance(references, list)
                or not references
                or not all(isinstance(r, str) for r in references)
            ):
                raise PairsFormatError(f"{where}, field 'references': must be a non-empty list of strings")
            yield Pair(record["id"], record["prediction"], references)


def read_pairs(path: str | Path) -> list[Pair]:
    """All pairs of a JSONL file (see ``iter_pairs``); a file without any is an error."""
    pairs = list(iter_pairs(path))
    if not pairs:
        raise PairsFormatError(f"{path}: no pairs")
    return pairs
