"""Import what is to be judged into a project: topics, documents, items, gold and qualification items.

All or nothing: ``import_items`` runs in one transaction, and any ImportProblem leaves the project
as it was. System runs are the evaluation app's (``evaluation.collection.flow``): it passes the pool it
made of them, and this module turns the pooled pairs into items without knowing where they came from.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from django.db import transaction
from django.db.models import Max, Model

from annotation.crowd.quality.attention import degrade_text
from annotation.items.counts import forget_task_facts
from annotation.models import Document, Project, Task, Topic
from annotation.task_types import AnswerError


class ImportProblem(ValueError):
    """Bad import input; ``field`` names where (e.g. ``runs[0]`` line 12, ``topics[3].id``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class TopicIn(TypedDict, total=False):
    id: str
    title: str
    description: str


class DocumentIn(TypedDict, total=False):
    id: str
    title: str
    text: str


class ItemIn(TypedDict, total=False):
    topic: str | None
    document: str
    document_b: str | None
    system: str  # text outputs: which system produced the document
    system_b: str  # pairwise items: which system produced document_b
    input: str  # … and from which input (source document, dialogue)


class GoldIn(ItemIn, total=False):
    answer: dict[str, Any]
    explanation: str


@dataclass(frozen=True)
class ImportSummary:
    topics_created: int
    documents_created: int
    tasks_created: int
    tasks_total: int
    runs_created: int = 0
    gold_created: int = 0
    qualification_created: int = 0
    attention_checks_created: int = 0
    references_created: int = 0  # text projects: reference texts per input (the evaluation app stores them)
    qrels_created: int = 0  # judgements of a qrels file, kept as reference qrels (by the evaluation app)
    # Pooled pairs a prior set of judgements already judges (the evaluation app's), how many of them
    # were left out of the pool, and the judgements that saves (left out × k).
    prior_created: int = 0
    prior_judged: int = 0
    prior_skipped: int = 0
    judgements_saved: int = 0
    dry_run: bool = False  # nothing was stored: the counts say what the import would create
    # For a dry run with runs: each topic's pooled documents in the order they would be judged.
    judging_order: dict = field(default_factory=dict)


DOCUMENT_BATCH = 2000  # documents stored per INSERT: a large import is never held whole


def store_in_batches(model: type[Model], rows: Iterable[Model], size: int | None = None) -> int:
    """INSERT ``rows`` (a stream) ``size`` at a time; return how many. Django's own ``bulk_create``
    makes a list of everything first, which for a gigabyte of documents is a gigabyte of objects."""
    stream, stored = iter(rows), 0
    while batch := list(itertools.islice(stream, size or DOCUMENT_BATCH)):
        model._default_manager.bulk_create(batch)
        stored += len(batch)
    return stored


def _checked_new_ids(kind: str, entries: Iterable[Any], existing: set[str]) -> Iterator[Any]:
    """The entries, each checked as it passes: an id new to the project and not given twice, else
    an ImportProblem naming the entry (``documents[12].id``)."""
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        entry_id = entry["id"]
        if entry_id in seen:
            raise ImportProblem(f"{kind}[{index}].id", f"{entry_id!r} appears twice in this import")
        if entry_id in existing:
            raise ImportProblem(f"{kind}[{index}].id", f"{entry_id!r} already exists in this project")
        seen.add(entry_id)
        yield entry


class DocumentIndex(Mapping[str, Document]):
    """A project's documents by their imported ids, holding only the keys: a million documents'
    texts would not fit in a worker's memory. Each document read from it is its row with the title
    and text deferred (loaded if read), which is all a task's foreign key needs."""

    def __init__(self, project: Project) -> None:
        self._project_id = project.pk
        self._keys: dict[str, int] = dict(project.documents.values_list("external_id", "pk"))

    def __getitem__(self, external_id: str) -> Document:
        pk = self._keys[external_id]
        return Document.from_db(
            Document.objects.db, ["id", "project_id", "external_id"], [pk, self._project_id, external_id]
        )

    def __contains__(self, external_id: object) -> bool:
        return external_id in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


@dataclass(frozen=True)
class Catalogue:
    """A project's topics and documents by their imported ids, after an import added its own."""

    topics: dict[str, Topic]
    documents: Mapping[str, Document]
    topics_created: int = 0
    documents_created: int = 0


def add_topics_and_documents(
    project: Project, topics: Sequence[TopicIn], documents: Iterable[DocumentIn]
) -> Catalogue:
    """Create topics and documents (ids new to the project, else an ImportProblem naming the entry).
    ``documents`` may be a stream (an import job's): it is read once and stored in batches."""
    existing_topics = set(project.topics.values_list("external_id", flat=True))
    new_topics = Topic.objects.bulk_create(
        Topic(project=project, external_id=t["id"], title=t["title"], description=t.get("description", ""))
        for t in _checked_new_ids("topics", topics, existing_topics)
    )
    existing_documents = set(project.documents.values_list("external_id", flat=True))
    documents_created = store_in_batches(
        Document,
        (
            Document(project=project, external_id=d["id"], title=d.get("title", ""), text=d["text"])
            for d in _checked_new_ids("documents", documents, existing_documents)
        ),
    )
    return Catalogue(
        topics={t.external_id: t for t in project.topics.all()},
        documents=DocumentIndex(project),
        topics_created=len(new_topics),
        documents_created=documents_created,
    )


def add_pooled_items(project: Project, pool: dict[str, dict[str, int]], catalogue: Catalogue) -> list[Task]:
    """Make every pooled ``{topic: {document: best rank}}`` pair an item to judge; returns the new ones.

    Items already in the project keep their judgements and move up if the pool ranks them higher,
    so a pool extended later (more runs) adds only the new pairs.
    """
    if pool and not project.type.judged_for_topic:
        raise ImportProblem("runs", f"runs are pooled into relevance tasks, not {project.task_type} tasks")
    existing = {
        (t.topic_id, t.document_id): t
        for t in Task.objects.filter(project=project, kind=Task.Kind.ITEM, document_b__isnull=True)
    }
    to_create, to_move_up = [], []
    for topic_id, ranked_docs in pool.items():
        topic = catalogue.topics[topic_id]
        for docid, rank in ranked_docs.items():
            document = catalogue.documents[docid]
            task = existing.get((topic.pk, document.pk))
            if task is None:
                to_create.append(
                    Task(
                        project=project,
                        topic=topic,
                        document=document,
                        pool_rank=rank,
                        required_judgements=project.assignments_per_task,
                    )
                )
            elif rank < task.pool_rank:
                task.pool_rank = rank
                to_move_up.append(task)
    Task.objects.bulk_create(to_create)
    Task.objects.bulk_update(to_move_up, ["pool_rank"])
    return to_create


def add_listed_items(project: Project, items: Sequence[ItemIn], catalogue: Catalogue) -> list[Task]:
    """Items given one by one (rating, free-text and pairwise projects, or relevance items without
    runs), served in the order given after any existing ones."""
    resolve = _Resolver(project, catalogue)
    next_rank = (project.tasks.aggregate(last=Max("pool_rank"))["last"] or 0) + 1
    taken: set[tuple[int | None, int, int | None]] = set(
        project.tasks.filter(kind=Task.Kind.ITEM).values_list("topic_id", "document_id", "document_b_id")
    )
    explicit = []
    for index, entry in enumerate(items):
        topic, document, document_b = resolve.item(f"items[{index}]", entry)
        key = (topic.pk if topic else None, document.pk, document_b.pk if document_b else None)
        if key in taken:
            raise ImportProblem(f"items[{index}]", "this item is already in the project")
        taken.add(key)
        explicit.append(
            Task(
                project=project,
                topic=topic,
                document=document,
                document_b=document_b,
                system_id=entry.get("system") or "",
                system_b_id=entry.get("system_b") or "",
                input_id=entry.get("input") or "",
                pool_rank=next_rank + index,
                required_judgements=project.assignments_per_task,
            )
        )
    return Task.objects.bulk_create(explicit)


def add_known_answers(
    project: Project, field: str, entries: Sequence[GoldIn], catalogue: Catalogue
) -> list[Task]:
    """Gold (``field`` "gold") or qualification items: items with an expected ``answer`` (validated
    against the project's task type) and an optional ``explanation`` shown as feedback."""
    resolve = _Resolver(project, catalogue)
    kind = Task.Kind.GOLD if field == "gold" else Task.Kind.QUALIFICATION
    judged = set(
        project.tasks.filter(kind=Task.Kind.ITEM).values_list("topic_id", "document_id", "document_b_id")
    )
    rows = []
    for index, entry in enumerate(entries):
        topic, document, document_b = resolve.item(f"{field}[{index}]", entry)
        key = (topic.pk if topic else None, document.pk, document_b.pk if document_b else None)
        if kind == Task.Kind.GOLD and key in judged:
            raise ImportProblem(
                f"{field}[{index}]", "this gold item is also an item to judge; annotators would see it twice"
            )
        rows.append(
            Task(
                project=project,
                kind=kind,
                topic=topic,
                document=document,
                document_b=document_b,
                pool_rank=0,
                required_judgements=0,
                gold_answer=resolve.answer(f"{field}[{index}].answer", entry),
                gold_explanation=entry.get("explanation", ""),
            )
        )
    return Task.objects.bulk_create(rows)


def import_items(
    project: Project,
    *,
    topics: Sequence[TopicIn] = (),
    documents: Iterable[DocumentIn] = (),
    pool: Callable[[Catalogue], dict[str, dict[str, int]]] | None = None,
    items: Sequence[ItemIn] = (),
    gold: Sequence[GoldIn] = (),
    qualification: Sequence[GoldIn] = (),
    seed: int | None = None,
) -> ImportSummary:
    """Create topics, documents, the items to judge and the quality-control items; all or nothing.

    1. Topics and documents are created (``add_topics_and_documents``).
    2. ``pool``, if given, is called with the project's topics and documents and returns the pool
       (``{topic: {document: best rank}}``) whose pairs become items (``add_pooled_items``); the
       evaluation app passes one that reads and stores system runs.
    3. ``items`` adds items one by one; ``gold`` and ``qualification`` add items with known answers.
    4. Rating projects with an attention rate get attention checks for a share of the new items:
       a repeat of the item, and a degraded copy of its output (words shuffled, half dropped).
    """
    with transaction.atomic():
        catalogue = add_topics_and_documents(project, topics, documents)
        pooled = add_pooled_items(project, pool(catalogue), catalogue) if pool else []
        listed = add_listed_items(project, items, catalogue)
        gold_items = add_known_answers(project, "gold", gold, catalogue)
        qualification_items = add_known_answers(project, "qualification", qualification, catalogue)
        attention = add_attention_checks(project, pooled + listed, random.Random(seed))
    forget_task_facts(project.pk)
    return ImportSummary(
        topics_created=catalogue.topics_created,
        documents_created=catalogue.documents_created,
        tasks_created=len(pooled) + len(listed),
        tasks_total=project.tasks.filter(kind=Task.Kind.ITEM).count(),
        gold_created=len(gold_items),
        qualification_created=len(qualification_items),
        attention_checks_created=attention,
    )


class _Resolver:
    """Turns the ids of an import entry into rows, raising ImportProblem naming the entry's field."""

    def __init__(self, project: Project, catalogue: Catalogue) -> None:
        self.project = project
        self.topics = catalogue.topics
        self.documents = catalogue.documents

    def _document(self, field: str, doc_id: str | None) -> Document:
        if doc_id is None or doc_id not in self.documents:
            raise ImportProblem(field, f"document {doc_id!r} is not among the project's documents")
        return self.documents[doc_id]

    def item(self, field: str, entry: ItemIn) -> tuple[Topic | None, Document, Document | None]:
        topic_id = entry.get("topic")
        topic = None
        if topic_id:
            if topic_id not in self.topics:
                raise ImportProblem(f"{field}.topic", f"topic {topic_id!r} is not among the project's topics")
            topic = self.topics[topic_id]
        elif self.project.type.judged_for_topic:
            raise ImportProblem(f"{field}.topic", "relevance is judged for a topic: give its id")
        document = self._document(f"{field}.document", entry.get("document"))
        document_b = None
        if self.project.type.compares_two:
            if not entry.get("document_b"):
                raise ImportProblem(f"{field}.document_b", "a pairwise item compares two documents")
            document_b = self._document(f"{field}.document_b", entry["document_b"])
            if document_b.pk == document.pk:
                raise ImportProblem(f"{field}.document_b", "compare two different documents")
        elif entry.get("document_b"):
            raise ImportProblem(f"{field}.document_b", "only pairwise items have a second document")
        self._check_systems(field, entry)
        return topic, document, document_b

    def _check_systems(self, field: str, entry: ItemIn) -> None:
        """A pairwise item names both outputs' systems or neither (a comparison of one system with
        nothing ranks nothing); only pairwise items have a second system."""
        system, system_b = entry.get("system"), entry.get("system_b")
        if not self.project.type.compares_two:
            if system_b:
                raise ImportProblem(f"{field}.system_b", "only pairwise items have a second system")
        elif bool(system) != bool(system_b):
            missing = "system_b" if system else "system"
            raise ImportProblem(f"{field}.{missing}", "name the systems of both outputs, or of neither")
        elif system and system == system_b:
            raise ImportProblem(f"{field}.system_b", "compare the outputs of two different systems")

    def answer(self, field: str, entry: GoldIn) -> dict[str, Any]:
        if self.project.type.is_free_text:
            raise ImportProblem(field, "free-text tasks have no single right answer to check against")
        try:
            return self.project.type.validate_answer(
                self.project.config, entry.get("answer") or {}, require_rationale=False
            )
        except AnswerError as error:
            raise ImportProblem(field, str(error)) from error


def add_attention_checks(project: Project, new_items: Sequence[Task], rng: random.Random) -> int:
    """For rating projects: a repeat and a degraded copy for ``attention_rate`` of the new items.

    At least one of each once the rate is above zero; returns how many check tasks were made.
    """
    if not project.is_rating or project.attention_rate <= 0 or not new_items:
        return 0
    count = min(len(new_items), max(1, round(project.attention_rate * len(new_items))))
    sources = rng.sample(list(new_items), count)
    # One query for the sources' titles and texts (the catalogue's documents defer them).
    originals = Document.objects.in_bulk({source.document_id for source in sources})
    degraded_documents = Document.objects.bulk_create(
        Document(
            project=project,
            external_id=f"{originals[source.document_id].external_id}~degraded~{source.pk}",
            title=originals[source.document_id].title,
            text=degrade_text(originals[source.document_id].text, rng),
        )
        for source in sources
    )
    checks = [
        Task(
            project=project,
            kind=Task.Kind.REPEAT,
            topic=source.topic,
            document=source.document,
            document_b=source.document_b,
            source_task=source,
            pool_rank=0,
            required_judgements=0,
        )
        for source in sources
    ] + [
        Task(
            project=project,
            kind=Task.Kind.DEGRADED,
            topic=source.topic,
            document=degraded,
            source_task=source,
            pool_rank=0,
            required_judgements=0,
        )
        for source, degraded in zip(sources, degraded_documents, strict=True)
    ]
    Task.objects.bulk_create(checks)
    return len(checks)
