"""Import topics, documents and TREC runs into a project, pool the runs and create the micro-tasks.

All or nothing: the caller runs this inside one transaction, and any ImportError leaves the
project as it was.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from django.db import transaction
from django.db.models import Max

from evaluation.metrics.trec_io import TrecFormatError, read_run, trec_order
from evaluation.models import Run, RunEntry
from evaluation.pooling import depth_k_pool

from .checks import degrade_text
from .counts import forget_task_facts
from .models import Document, Project, Task, Topic
from .task_types import AnswerError, validate_answer

RELEVANCE_TYPES = {Project.TaskType.BINARY_RELEVANCE, Project.TaskType.GRADED_RELEVANCE}


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


class GoldIn(ItemIn, total=False):
    answer: dict[str, Any]
    explanation: str


@dataclass(frozen=True)
class ImportSummary:
    topics_created: int
    documents_created: int
    runs_created: int
    tasks_created: int
    tasks_total: int
    gold_created: int = 0
    qualification_created: int = 0
    attention_checks_created: int = 0


def _check_new_ids(kind: str, items: Sequence[dict], existing: set[str]) -> None:
    seen: set[str] = set()
    for index, item in enumerate(items):
        item_id = item["id"]
        if item_id in seen:
            raise ImportProblem(f"{kind}[{index}].id", f"{item_id!r} appears twice in this import")
        if item_id in existing:
            raise ImportProblem(f"{kind}[{index}].id", f"{item_id!r} already exists in this project")
        seen.add(item_id)


@transaction.atomic
def import_collection(
    project: Project,
    *,
    topics: Sequence[TopicIn],
    documents: Sequence[DocumentIn],
    runs: Sequence[str] = (),
    pool_depth: int = 10,
    items: Sequence[ItemIn] = (),
    gold: Sequence[GoldIn] = (),
    qualification: Sequence[GoldIn] = (),
    seed: int | None = None,
) -> ImportSummary:
    """Create topics, documents and runs, the items to judge, and the quality-control items.

    1. Topics and documents are created (ids new to the project, else an error naming the entry).
    2. Each run is the text of a TREC run file (``qid Q0 docno rank score tag``). The pool is the
       union of every run's top ``pool_depth`` documents per topic (trec_eval order); items already
       in the project keep their judgements and move up if a new run ranks them higher.
    3. ``items`` adds tasks directly (rating, free-text and pairwise projects, or relevance items
       without runs), served in the order given after any existing ones.
    4. ``gold`` and ``qualification`` entries are items with an expected ``answer`` (validated
       against the project's task type) and an optional ``explanation`` shown as feedback.
    5. Rating projects with an attention rate get attention checks for a share of the new items:
       a repeat of the item, and a degraded copy of its output (words shuffled, half dropped).
    """
    _check_new_ids("topics", topics, set(project.topics.values_list("external_id", flat=True)))
    _check_new_ids("documents", documents, set(project.documents.values_list("external_id", flat=True)))

    new_topics = Topic.objects.bulk_create(
        Topic(project=project, external_id=t["id"], title=t["title"], description=t.get("description", ""))
        for t in topics
    )
    new_documents = Document.objects.bulk_create(
        Document(project=project, external_id=d["id"], title=d.get("title", ""), text=d["text"])
        for d in documents
    )
    topic_by_id = {t.external_id: t for t in project.topics.all()}
    document_by_id = {d.external_id: d for d in project.documents.all()}
    existing_tags = set(project.runs.values_list("tag", flat=True))

    parsed_runs = []
    for index, text in enumerate(runs):
        field = f"runs[{index}]"
        try:
            run, tag = read_run(text.splitlines(), name=field)
        except TrecFormatError as error:
            raise ImportProblem(field, str(error)) from error
        if not run:
            raise ImportProblem(field, "the run has no lines")
        if tag in existing_tags:
            raise ImportProblem(field, f"a run tagged {tag!r} already exists in this project")
        existing_tags.add(tag)
        for topic_id, scores in run.items():
            if topic_id not in topic_by_id:
                raise ImportProblem(field, f"topic {topic_id!r} is not among the project's topics")
            for docid in scores:
                if docid not in document_by_id:
                    raise ImportProblem(
                        field, f"document {docid!r} (topic {topic_id!r}) is not among the project's documents"
                    )
        parsed_runs.append((tag, run))

    for tag, run in parsed_runs:
        run_row = Run.objects.create(project=project, tag=tag, pool_depth=pool_depth)
        RunEntry.objects.bulk_create(
            RunEntry(run=run_row, topic_id=topic_id, document_id=docid, rank=rank, score=scores[docid])
            for topic_id, scores in run.items()
            for rank, docid in enumerate(trec_order(scores), start=1)
        )

    if parsed_runs and project.task_type not in RELEVANCE_TYPES:
        raise ImportProblem("runs", f"runs are pooled into relevance tasks, not {project.task_type} tasks")
    pool = depth_k_pool((run for _, run in parsed_runs), pool_depth)
    existing_tasks = {
        (t.topic_id, t.document_id): t
        for t in Task.objects.filter(project=project, kind=Task.Kind.ITEM, document_b__isnull=True)
    }
    to_create, to_move_up = [], []
    for topic_id, ranked_docs in pool.items():
        topic = topic_by_id[topic_id]
        for docid, rank in ranked_docs.items():
            document = document_by_id[docid]
            task = existing_tasks.get((topic.pk, document.pk))
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

    resolve = _Resolver(project, topic_by_id, document_by_id)
    next_rank = (project.tasks.aggregate(last=Max("pool_rank"))["last"] or 0) + 1
    explicit = []
    taken = set(
        project.tasks.filter(kind=Task.Kind.ITEM).values_list("topic_id", "document_id", "document_b_id")
    )
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
                pool_rank=next_rank + index,
                required_judgements=project.assignments_per_task,
            )
        )
    Task.objects.bulk_create(explicit)

    checks = {}
    for field, entries, kind in (
        ("gold", gold, Task.Kind.GOLD),
        ("qualification", qualification, Task.Kind.QUALIFICATION),
    ):
        rows = []
        for index, entry in enumerate(entries):
            topic, document, document_b = resolve.item(f"{field}[{index}]", entry)
            if (
                kind == Task.Kind.GOLD
                and (topic.pk if topic else None, document.pk, document_b.pk if document_b else None) in taken
            ):
                raise ImportProblem(
                    f"{field}[{index}]",
                    "this gold item is also an item to judge; annotators would see it twice",
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
        checks[kind] = Task.objects.bulk_create(rows)

    attention = add_attention_checks(project, to_create + explicit, random.Random(seed))
    forget_task_facts(project.pk)
    return ImportSummary(
        topics_created=len(new_topics),
        documents_created=len(new_documents),
        runs_created=len(parsed_runs),
        tasks_created=len(to_create) + len(explicit),
        tasks_total=project.tasks.filter(kind=Task.Kind.ITEM).count(),
        gold_created=len(checks[Task.Kind.GOLD]),
        qualification_created=len(checks[Task.Kind.QUALIFICATION]),
        attention_checks_created=attention,
    )


class _Resolver:
    """Turns the ids of an import entry into rows, raising ImportProblem naming the entry's field."""

    def __init__(self, project: Project, topics: dict[str, Topic], documents: dict[str, Document]) -> None:
        self.project = project
        self.topics = topics
        self.documents = documents

    def _document(self, field: str, doc_id: str | None) -> Document:
        if doc_id not in self.documents:
            raise ImportProblem(field, f"document {doc_id!r} is not among the project's documents")
        return self.documents[doc_id]

    def item(self, field: str, entry: ItemIn) -> tuple[Topic | None, Document, Document | None]:
        task_type = self.project.task_type
        topic_id = entry.get("topic")
        topic = None
        if topic_id:
            if topic_id not in self.topics:
                raise ImportProblem(f"{field}.topic", f"topic {topic_id!r} is not among the project's topics")
            topic = self.topics[topic_id]
        elif task_type in RELEVANCE_TYPES:
            raise ImportProblem(f"{field}.topic", "relevance is judged for a topic: give its id")
        document = self._document(f"{field}.document", entry.get("document"))
        document_b = None
        if task_type == Project.TaskType.PAIRWISE:
            if not entry.get("document_b"):
                raise ImportProblem(f"{field}.document_b", "a pairwise item compares two documents")
            document_b = self._document(f"{field}.document_b", entry["document_b"])
            if document_b.pk == document.pk:
                raise ImportProblem(f"{field}.document_b", "compare two different documents")
        elif entry.get("document_b"):
            raise ImportProblem(f"{field}.document_b", "only pairwise items have a second document")
        return topic, document, document_b

    def answer(self, field: str, entry: GoldIn) -> dict[str, Any]:
        if self.project.task_type == Project.TaskType.FREE_TEXT:
            raise ImportProblem(field, "free-text tasks have no single right answer to check against")
        try:
            return validate_answer(
                self.project.task_type,
                self.project.config,
                entry.get("answer") or {},
                require_rationale=False,
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
    degraded_documents = Document.objects.bulk_create(
        Document(
            project=project,
            external_id=f"{source.document.external_id}~degraded~{source.pk}",
            title=source.document.title,
            text=degrade_text(source.document.text, rng),
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
