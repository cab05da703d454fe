"""What an import takes from an ir_datasets dataset, read with the ``ir-datasets`` package itself (pure:
no Django, as the import-linter contract checks).

A ``Choice`` says which dataset, fields and subset; the functions check it against the dataset and yield
topics, documents, qrels and scoreddocs as the collection import takes them. Every refusal is a
``DatasetProblem`` naming the field of the request (``dataset``, ``query_field``, ``doc_fields``,
``topics`` …), raised before anything is stored.

``ir_datasets`` is imported inside the functions: it registers several hundred datasets when first
imported, which a page or command that never reads one should not pay for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

# How qrels may enter a project: as the external reference qrels, as prior judgements (reused by
# pooling and merged into the ground truth: ``evaluation.prior``), or not at all.
QRELS_USES = ("reference", "prior", "none")
# Separates the text fields of a document joined into its text.
FIELD_JOINER = "\n\n"
MOST_LISTED = 10  # unknown topics named in one message
PROGRESS_EVERY = 10_000  # documents read between two progress reports


class DatasetProblem(ValueError):
    """A request the dataset cannot satisfy; ``field`` names the request's field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Choice:
    """What to import from dataset ``dataset`` (an ir_datasets id such as ``cranfield`` or
    ``msmarco-passage/trec-dl-2019/judged``).

    ``query_field`` becomes each topic's title, ``description_field`` (optional) its description;
    ``doc_fields`` are joined (blank line between) into each document's text, ``title_field``
    (optional) is its title. ``topics`` keeps only those query ids (all when empty);
    ``max_documents`` caps the documents (``documents``: first those the kept topics' qrels and
    scoreddocs name). ``qrels``: ``reference`` stores the kept topics' qrels as the project's
    external qrels ``qrels_name``, with labels as given or, with ``relevant_from``, 1 from that
    label up and 0 below; ``scoreddocs`` stores the dataset's scoreddocs as the run ``run_tag``,
    pooled to ``pool_depth`` (0: stored, not pooled).
    """

    dataset: str
    query_field: str = "text"
    doc_fields: tuple[str, ...] = ("text",)
    title_field: str = ""
    description_field: str = ""
    topics: tuple[str, ...] = ()
    max_documents: int | None = None
    qrels: str = "reference"
    qrels_name: str = ""
    relevant_from: int | None = None
    scoreddocs: bool = False
    run_tag: str = ""
    pool_depth: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def reference_name(self) -> str:
        return self.qrels_name or safe_name(self.dataset)

    def scoreddocs_tag(self) -> str:
        return self.run_tag or f"{safe_name(self.dataset)}-scoreddocs"


def safe_name(dataset_id: str) -> str:
    """A dataset id as a run tag or qrels name: ids may not hold whitespace, ``/`` reads as a path."""
    return "-".join(dataset_id.split()).replace("/", "-")


def load(dataset_id: str) -> Any:
    """The dataset registered under ``dataset_id``; DatasetProblem if ir_datasets has none."""
    import ir_datasets

    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise DatasetProblem(
            "dataset", f"{dataset_id!r} is not an ir_datasets id (see https://ir-datasets.com)"
        ) from None


def check(dataset: Any, choice: Choice) -> None:
    """Refuse, naming the field, a choice the dataset cannot satisfy: no queries or documents, a field
    its queries or documents lack, qrels or scoreddocs it does not have. Reads no data."""
    name = choice.dataset
    if not dataset.has_queries():
        raise DatasetProblem("dataset", f"{name!r} has no queries: an import needs them as topics")
    if not dataset.has_docs():
        raise DatasetProblem("dataset", f"{name!r} has no documents")
    query_fields = fields_of(dataset.queries_cls())
    for key, wanted in (("query_field", choice.query_field), ("description_field", choice.description_field)):
        if wanted and wanted not in query_fields:
            raise DatasetProblem(
                key, f"{name!r}'s queries have no field {wanted!r} (they have {', '.join(query_fields)})"
            )
    doc_fields = fields_of(dataset.docs_cls())
    if not choice.doc_fields:
        raise DatasetProblem("doc_fields", "name at least one field of the documents")
    for wanted in (*choice.doc_fields, choice.title_field):
        if wanted and wanted not in doc_fields:
            key = (
                "title_field"
                if wanted == choice.title_field and wanted not in choice.doc_fields
                else "doc_fields"
            )
            raise DatasetProblem(
                key, f"{name!r}'s documents have no field {wanted!r} (they have {', '.join(doc_fields)})"
            )
    if choice.qrels not in QRELS_USES:
        raise DatasetProblem("qrels", f"must be one of {', '.join(QRELS_USES)}, not {choice.qrels!r}")
    if choice.qrels != "none" and not dataset.has_qrels():
        raise DatasetProblem("qrels", f'{name!r} has no qrels: ask for "none"')
    if choice.scoreddocs and not dataset.has_scoreddocs():
        raise DatasetProblem("scoreddocs", f"{name!r} has no scoreddocs")


def fields_of(record_class: Any) -> tuple[str, ...]:
    """The fields of an ir_datasets record class (a NamedTuple), its id first."""
    return tuple(getattr(record_class, "_fields", ()))


def text_of(value: Any) -> str:
    """A record's field as text: lists (a document's passages, a query's keywords) joined."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return FIELD_JOINER.join(text_of(part) for part in value if text_of(part))
    return str(value).strip()


def read_topics(dataset: Any, choice: Choice) -> list[dict[str, str]]:
    """The queries as topics ``{"id", "title", "description"}``, in the dataset's order, only those
    of ``choice.topics`` if given. DatasetProblem names topics the dataset lacks (``topics``) and a
    query whose chosen field is empty (``query_field``)."""
    wanted = set(choice.topics)
    topics = []
    for query in dataset.queries_iter():
        if wanted and query.query_id not in wanted:
            continue
        title = " ".join(text_of(getattr(query, choice.query_field)).split())  # a title is one line
        if not title:
            raise DatasetProblem(
                "query_field",
                f"query {query.query_id!r} has an empty {choice.query_field!r}: choose another field",
            )
        description = text_of(getattr(query, choice.description_field)) if choice.description_field else ""
        topics.append({"id": query.query_id, "title": title, "description": description})
    missing = sorted(wanted - {topic["id"] for topic in topics})
    if missing:
        listed = ", ".join(repr(topic) for topic in missing[:MOST_LISTED])
        more = f" and {len(missing) - MOST_LISTED} more" if len(missing) > MOST_LISTED else ""
        raise DatasetProblem("topics", f"{choice.dataset!r} has no query {listed}{more}")
    return topics


@dataclass
class Judged:
    """The kept topics' qrels ``{topic: {document: label}}`` and how many lines were left out
    because they name a query the import does not keep."""

    qrels: dict[str, dict[str, int]]
    left_out: int = 0


def read_qrels(dataset: Any, topics: Iterable[str], relevant_from: int | None = None) -> Judged:
    """The qrels of ``topics``; with ``relevant_from``, labels from it up are 1 and the others 0."""
    kept = set(topics)
    judged = Judged({})
    for qrel in dataset.qrels_iter():
        if qrel.query_id not in kept:
            judged.left_out += 1
            continue
        label = int(qrel.relevance)
        if relevant_from is not None:
            label = int(label >= relevant_from)
        judged.qrels.setdefault(qrel.query_id, {})[qrel.doc_id] = label
    return judged


def read_scoreddocs(dataset: Any, topics: Iterable[str]) -> dict[str, dict[str, float]]:
    """The scoreddocs of ``topics`` as a run, ``{topic: {document: score}}``."""
    kept = set(topics)
    run: dict[str, dict[str, float]] = {}
    for scored in dataset.scoreddocs_iter():
        if scored.query_id in kept:
            run.setdefault(scored.query_id, {})[scored.doc_id] = float(scored.score)
    return run


@dataclass
class Kept:
    """What ``read_documents`` met: documents left out past the cap, and documents kept whose chosen
    fields are all empty (the first ids listed), which annotators would see blank."""

    over_cap: int = 0
    empty: int = 0
    empty_ids: list[str] = field(default_factory=list)


def read_documents(
    dataset: Any,
    choice: Choice,
    named: set[str],
    kept: Kept,
    progress: Callable[[int], None] = lambda count: None,
) -> Iterator[dict[str, str]]:
    """The documents as ``{"id", "title", "text"}`` in the dataset's order, the chosen text fields
    joined; ``progress`` is told every ``PROGRESS_EVERY`` documents read.

    With ``max_documents``, the documents ``named`` (by the kept topics' qrels and scoreddocs) come
    first — so the judged and retrieved ones survive the cap — and the others fill what is left.
    """
    cap = choice.max_documents
    room_for_others = max(cap - len(named), 0) if cap is not None else None
    taken = others = 0
    for index, doc in enumerate(dataset.docs_iter(), start=1):
        if index % PROGRESS_EVERY == 0:
            progress(index)
        if cap is not None:
            if doc.doc_id in named:
                if taken >= cap:
                    kept.over_cap += 1
                    continue
            elif room_for_others is not None and others >= room_for_others:
                kept.over_cap += 1
                continue
        text = FIELD_JOINER.join(
            part for part in (text_of(getattr(doc, f)) for f in choice.doc_fields) if part
        )
        if not text:  # kept, as the collection import keeps it: qrels and runs may name it
            kept.empty += 1
            if len(kept.empty_ids) < MOST_LISTED:
                kept.empty_ids.append(doc.doc_id)
        title = text_of(getattr(doc, choice.title_field)) if choice.title_field else ""
        taken += 1
        others += doc.doc_id not in named
        yield {"id": doc.doc_id, "title": " ".join(title.split()), "text": text}
