"""An import job reads a collection as a stream (``evaluation.collection.streaming``): it must import
exactly what the direct import would, refuse exactly what it refuses with the same field names, and
hold its documents neither whole nor twice (its Python allocations stay far below the body's size)."""

from __future__ import annotations

import io
import json
import random
import tracemalloc
from dataclasses import asdict

import pytest

from annotation.items import importing
from annotation.models import Document, Project, Task, Topic
from evaluation.collection import streaming
from evaluation.collection.flow import ImportFailed, import_from_body

pytestmark = pytest.mark.django_db


def outcome(project: Project, body: bytes, *, streamed: bool) -> tuple[str, object]:
    """What importing ``body`` gives: ("done", summary) or ("refused", {field: [messages]})."""
    try:
        if streamed:
            rest, documents = streaming.read_body(io.BytesIO(body))
            summary = import_from_body(project, rest, documents=documents)
        else:
            try:
                parsed = json.loads(body)
            except json.JSONDecodeError as error:
                raise ImportFailed([("", f"not valid JSON: {error}")]) from error
            summary = import_from_body(project, parsed)
    except ImportFailed as failure:
        return "refused", failure.as_dict()
    return "done", asdict(summary)


def stored(project: Project) -> tuple:
    return (
        sorted(Topic.objects.filter(project=project).values_list("external_id", "title", "description")),
        sorted(Document.objects.filter(project=project).values_list("external_id", "title", "text")),
        sorted(
            Task.objects.filter(project=project).values_list(
                "kind", "topic__external_id", "document__external_id", "pool_rank"
            )
        ),
    )


def a_body(rng: random.Random) -> dict:
    """A collection, often with one or several things wrong with it."""
    documents = [
        {
            "id": f"d{i}",
            "title": rng.choice(["", f"on flutter {i}"]),
            "text": f"réponse {i} " * rng.randint(1, 30),
        }
        for i in range(rng.randint(0, 25))
    ]
    body: dict = {
        "topics": [{"id": "t1", "title": "wing flutter"}, {"id": "t2", "title": "heat transfer"}],
        "documents": documents,
        "runs": [
            "".join(f"t{1 + i % 2} Q0 {d['id']} {i + 1} {50 - i}.5 sys{r}\n" for i, d in enumerate(documents))
            for r in range(rng.randint(0, 2))
            if documents
        ],
        "pool_depth": rng.choice([0, 3, 10]),
    }
    for _ in range(rng.choice([0, 0, 1, 2])):
        wrong = rng.randrange(8)
        if wrong == 0 and documents:
            rng.choice(documents)["id"] = "has space"
        elif wrong == 1 and documents:
            rng.choice(documents)["text"] = ""
        elif wrong == 2 and documents:
            rng.choice(documents)["titel"] = "misspelt"
        elif wrong == 3 and len(documents) > 1:
            documents[-1]["id"] = documents[0]["id"]
        elif wrong == 4 and documents:  # last, so that no other change finds it
            body["documents"] = [*documents, rng.choice(["just text", 7, None, ["d1"]])]
        elif wrong == 5:
            body["pool_dept"] = 5
        elif wrong == 6:
            body["documents"] = rng.choice(["not a list", {"id": "d1"}, 3])
        else:
            body["pool_depth"] = -1
    return body


@pytest.mark.parametrize("seed", range(40))
def test_a_streamed_import_does_what_the_direct_import_does(researcher, seed, monkeypatch):
    monkeypatch.setattr(importing, "DOCUMENT_BATCH", 3)  # documents cross the storing batches' edges
    body = json.dumps(a_body(random.Random(seed)), ensure_ascii=seed % 2 == 0).encode()
    direct = Project.objects.create(name="direct", owner=researcher)
    streamed = Project.objects.create(name="streamed", owner=researcher)
    streamed_outcome, direct_outcome = (
        outcome(streamed, body, streamed=True),
        outcome(direct, body, streamed=False),
    )
    if any("unknown field" in str(messages) for messages in dict(direct_outcome[1]).values()):
        # The direct import stops at a misspelt key; the stream has checked the documents by then,
        # and says what it found in them too.
        assert streamed_outcome[0] == "refused"
        assert dict(streamed_outcome[1]).items() >= dict(direct_outcome[1]).items()
    else:
        assert streamed_outcome == direct_outcome
    assert stored(streamed) == stored(direct)


@pytest.mark.parametrize(
    "body",
    [
        b"[]",
        b'"documents"',
        b"",
        b"   ",
        b"{",
        b'{"documents": [{"id": "d1", "text": "x"}',
        b'{"topics": []} {}',
    ],
)
def test_a_body_that_is_not_one_json_object_is_refused(researcher, body):
    project = Project.objects.create(name="p", owner=researcher)
    kind, errors = outcome(project, body, streamed=True)
    assert kind == "refused"
    assert list(errors) == [""]  # type: ignore[arg-type]
    assert errors[""][0].startswith(("not valid JSON", "the body must be one JSON object"))  # type: ignore[index]
    assert not Topic.objects.filter(project=project).exists()


def test_documents_given_twice_are_refused(researcher):
    body = b'{"documents": [{"id": "a", "text": "x"}], "documents": [{"id": "b", "text": "y"}]}'
    with pytest.raises(ImportFailed) as refused:
        streaming.read_body(io.BytesIO(body))
    assert refused.value.as_dict() == {"documents": ["given twice in the body"]}


def test_a_body_with_very_many_bad_documents_lists_the_first_and_counts_them(monkeypatch):
    monkeypatch.setattr(streaming, "MOST_ERRORS", 5)
    body = {"documents": [{"id": f"bad {i}", "text": "x"} for i in range(40)]}
    _, documents = streaming.read_body(io.BytesIO(json.dumps(body).encode()))
    errors = documents.problems
    assert [field for field, _ in errors[:5]] == [f"documents[{i}].id" for i in range(5)]
    assert errors[-1] == ("documents", "40 documents have problems; the first are listed")
    assert len(errors) == 6


def test_reading_a_large_body_holds_neither_its_documents_nor_its_text(researcher, monkeypatch):
    """20 MB of documents: reading and checking them in 64 kB reads peaks under 1 MB of Python
    allocations (each is spooled to disk as it is read; production reads 16 MB at a time, which adds a
    fixed ~50 MB whatever the body), and storing them under 16 MB (one batch of 2,000 documents with
    their rows, and the set of ids checked for repeats: about 100 bytes a document)."""
    monkeypatch.setattr(streaming, "READ_BYTES", 64 << 10)
    documents = [
        {"id": f"d{i}", "title": f"report {i}", "text": f"{i} flutter of wings " * 50} for i in range(20_000)
    ]
    body = json.dumps({"topics": [{"id": "t1", "title": "wing flutter"}], "documents": documents}).encode()
    assert len(body) > 20_000_000
    del documents
    project = Project.objects.create(name="large", owner=researcher)
    source = io.BytesIO(body)
    tracemalloc.start()
    try:
        rest, spooled = streaming.read_body(source)
        _, reading_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        summary = import_from_body(project, rest, documents=spooled)
        _, storing_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert summary.documents_created == 20_000
    assert Document.objects.filter(project=project).count() == 20_000
    assert reading_peak < 1_000_000, f"reading {len(body):,} bytes peaked at {reading_peak:,} bytes"
    assert storing_peak < 16_000_000, f"storing {len(body):,} bytes peaked at {storing_peak:,} bytes"
