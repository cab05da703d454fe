"""Import topics, documents and TREC runs into a project, pool the runs and create the micro-tasks.

All or nothing: the caller runs this inside one transaction, and any ImportError leaves the
project as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from django.db import transaction

from evaluation.metrics.trec_io import TrecFormatError, read_run, trec_order
from evaluation.models import Run, RunEntry
from evaluation.pooling import depth_k_pool

from .models import Document, Project, Task, Topic


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


@dataclass(frozen=True)
class ImportSummary:
    topics_created: int
    documents_created: int
    runs_created: int
    tasks_created: int
    tasks_total: int


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
    runs: Sequence[str],
    pool_depth: int,
) -> ImportSummary:
    """Create topics, documents and runs, and one task per pooled (topic, document) pair.

    Each run is the text of a TREC run file (``qid Q0 docno rank score tag``). The pool is the
    union of every run's top ``pool_depth`` documents per topic (trec_eval order); tasks already in
    the project keep their judgements and move up if a new run ranks them higher.
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

    pool = depth_k_pool((run for _, run in parsed_runs), pool_depth)
    existing_tasks = {
        (t.topic_id, t.document_id): t for t in Task.objects.filter(project=project).select_related(None)
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
    return ImportSummary(
        topics_created=len(new_topics),
        documents_created=len(new_documents),
        runs_created=len(parsed_runs),
        tasks_created=len(to_create),
        tasks_total=project.tasks.count(),
    )
