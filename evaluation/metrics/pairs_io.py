"""Read prediction/reference pairs from JSONL: ``{"id": …, "prediction": "…", "references": ["…", …]}``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


class PairsFormatError(ValueError):
    """A malformed JSONL line; the message names the file, line and field."""


@dataclass(frozen=True)
class Pair:
    id: object
    prediction: str
    references: list[str]


def read_pairs(path: str | Path) -> list[Pair]:
    """Every non-blank line as a Pair. An empty prediction is allowed (it scores 0, as the
    reference tools score it); a missing field, a non-string, or no reference at all is an error."""
    pairs = []
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
            pairs.append(Pair(record["id"], record["prediction"], references))
    if not pairs:
        raise PairsFormatError(f"{path}: no pairs")
    return pairs
