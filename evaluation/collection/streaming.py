"""A collection body read as a stream, for import jobs (up to ``IMPORT_JOB_MAX_MB``).

Nearly all of a large collection is its ``documents``: they are read one at a time (ijson), checked in
batches as the direct import checks them, and written to a temporary file, so a gigabyte of documents
is never held in memory at once; the import then reads them back from that file as it stores them in
batches. Every other key is built as ``json.loads`` would build it.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from typing import IO, Any

import ijson
from rest_framework.exceptions import ValidationError

from annotation.items.importing import DocumentIn
from annotation.serializers import DocumentInSerializer
from evaluation.collection.flow import ImportFailed, flatten_errors

# yajl (ijson's C parser) lexes a token cut by a buffer's end again from its start: a value as long as a
# 30 MB run file took 17 s in 64 kB reads and 0.3 s in 16 MB ones (a 260 MB one takes 7 s).
READ_BYTES = 16 << 20
MOST_ERRORS = 1000  # a body with more bad documents reports this many and how many more


class SpooledDocuments:
    """The body's documents, checked, in a temporary file on disk: iterable (each time from the first),
    with a length (how many the body gave), as a list of ``DocumentIn`` would be. ``problems`` are
    those of bad documents, ``documents[12].text``; once there is one, no more are kept."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
        self.given = 0  # documents the body gave, good or bad
        self.problems: list[tuple[str, str]] = []

    def append(self, document: dict) -> None:
        self._file.write(json.dumps(document, ensure_ascii=False).encode() + b"\n")

    def __len__(self) -> int:
        return self.given

    def __iter__(self) -> Iterator[DocumentIn]:
        self._file.seek(0)
        for line in self._file:
            yield json.loads(line)

    def close(self) -> None:
        self._file.close()


def read_body(file: IO[bytes]) -> tuple[dict[str, Any], SpooledDocuments]:
    """The body's keys but ``documents`` (built whole), and its documents, checked and spooled, with
    the problems of bad ones (``import_from_body`` reports them beside the rest's).

    Raises ImportFailed for a body that is not one JSON object."""
    events = ijson.parse(file, buf_size=READ_BYTES, use_float=True)
    rest: dict[str, Any] = {}
    documents = SpooledDocuments()
    try:
        first = next(events, None)
        if first is None or first[1] != "start_map":
            raise ImportFailed(
                [("", "the body must be one JSON object with topics, documents, runs, items …")]
            )
        streamed = False
        # Each value is read to its end below, so here come only the object's keys and its end.
        for _, event, key in events:
            if event == "end_map":
                break
            _, event, value = next(events)  # the value's first event
            if key == "documents" and event == "start_array":
                if streamed:
                    raise ImportFailed([("documents", "given twice in the body")])
                streamed = True
                check_documents(events, documents)
            else:
                rest[key] = build_value(event, value, events)
        for _ in events:  # the parser refuses anything after the object
            pass
    except ijson.JSONError as error:
        documents.close()
        raise ImportFailed([("", f"not valid JSON: {str(error).splitlines()[0]}")]) from error
    except ImportFailed:
        documents.close()
        raise
    return rest, documents


def build_value(event: str, value: Any, events: Iterator[tuple[str, str, Any]]) -> Any:
    """The value that starts with (``event``, ``value``), reading ``events`` to its end."""
    if event not in ("start_map", "start_array"):
        return value
    builder = ijson.ObjectBuilder()
    builder.event(event, value)
    depth = 1
    for _, event, value in events:
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            depth += 1
        elif event in ("end_map", "end_array"):
            depth -= 1
            if depth == 0:
                return builder.value
    raise ijson.IncompleteJSONError("the body ends inside a value")


def check_documents(events: Iterator[tuple[str, str, Any]], out: SpooledDocuments) -> None:
    """Read the ``documents`` array's entries from ``events`` (just past its ``start_array``), check
    each as the direct import does and spool it, or note its problems in ``out.problems``."""
    # One serializer checks every document: ``run_validation`` keeps nothing on it, whereas a
    # serializer per batch lives in a reference cycle that would hold its batch until a full GC.
    checker = DocumentInSerializer()
    bad_documents = 0
    for index, (_, event, value) in enumerate(events):
        if event == "end_array":
            break
        out.given += 1
        document = build_value(event, value, events)
        try:
            checked = checker.run_validation(document)
        except ValidationError as error:
            bad_documents += 1
            if len(out.problems) < MOST_ERRORS:
                out.problems.extend(flatten_errors(error.detail, f"documents[{index}]"))
            continue
        if not out.problems:  # once the import is refused, nothing more is kept
            out.append(dict(checked))
    if len(out.problems) >= MOST_ERRORS:
        out.problems.append(("documents", f"{bad_documents:,} documents have problems; the first are listed"))
