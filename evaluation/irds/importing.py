"""A project filled from an ir_datasets dataset, as an import job (``evaluation.collection.import_jobs``).

The request (``ImportChoiceSerializer``) is checked against the dataset when it is made — an unknown id,
a field the dataset lacks, a topic it does not have are refused at once, naming the field — and then
run by a worker: the dataset is read with ``ir-datasets`` (``irds.reading``) and stored through the
collection import's own all-or-nothing flow (``collection.import_from_body``), so its checks, its
storing and its announcement to scoring are the same as for any other collection.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import closing
from dataclasses import asdict
from typing import Any

from django.db import transaction
from rest_framework import serializers

from annotation.models import Project
from annotation.serializers import DocumentInSerializer, StrictSerializer
from evaluation.collection import import_jobs
from evaluation.collection.flow import ImportFailed, flatten_errors, import_from_body
from evaluation.collection.streaming import SpooledDocuments
from evaluation.irds import reading
from evaluation.metrics.trec.files import write_qrels, write_run
from evaluation.models import ImportJob

MOST_ERRORS = 20  # documents refused, listed in one answer
OFFLINE = "without a network, put the dataset's files under IR_DATASETS_HOME (see the README)"


class ImportChoiceSerializer(StrictSerializer):
    """What to import from an ir_datasets dataset (``reading.Choice`` says what each field does)."""

    dataset = serializers.CharField(max_length=300, help_text="An ir_datasets id, e.g. `cranfield`.")
    query_field = serializers.CharField(
        max_length=100, default="text", help_text="The queries' field that becomes each topic's title."
    )
    description_field = serializers.CharField(
        max_length=100,
        default="",
        allow_blank=True,
        help_text="A queries' field for the topic's description.",
    )
    doc_fields = serializers.ListField(
        child=serializers.CharField(max_length=100),
        min_length=1,
        max_length=20,
        default=["text"],
        help_text="The documents' fields joined (blank line between) into each document's text.",
    )
    title_field = serializers.CharField(
        max_length=100, default="", allow_blank=True, help_text="A documents' field for the title."
    )
    topics = serializers.ListField(
        child=serializers.CharField(max_length=100),
        max_length=100_000,
        default=list,
        help_text="Only these query ids (default: every query).",
    )
    max_documents = serializers.IntegerField(
        min_value=1,
        max_value=100_000_000,
        required=False,
        allow_null=True,
        default=None,
        help_text="At most this many documents: first those the kept topics' qrels and scoreddocs name.",
    )
    qrels = serializers.ChoiceField(
        choices=list(reading.QRELS_USES),
        default="reference",
        help_text="reference: the kept topics' qrels become the project's external qrels; prior: its prior "
        "judgements (the scoreddocs' pool leaves their pairs out, the ground truth merges them); "
        "none: left out.",
    )
    qrels_name = serializers.CharField(
        max_length=200,
        default="",
        allow_blank=True,
        help_text="The external qrels' or prior set's name (default: the id).",
    )
    relevant_from = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Binary qrels: labels from this one up become 1, the others 0 (default: labels as given).",
    )
    scoreddocs = serializers.BooleanField(
        default=False, help_text="Import the dataset's scoreddocs as a run."
    )
    run_tag = serializers.CharField(
        max_length=200, default="", allow_blank=True, help_text="The scoreddocs run's tag."
    )
    pool_depth = serializers.IntegerField(
        min_value=0,
        max_value=100_000,
        default=0,
        help_text="The scoreddocs run's top documents per topic that become items (0: stored, not pooled).",
    )


def choice_from(data: Any) -> reading.Choice:
    """The request as a ``reading.Choice``; ImportFailed names each invalid field."""
    if not isinstance(data, dict):
        raise ImportFailed([("", "the body must be one JSON object naming the dataset")])
    checked = ImportChoiceSerializer(data=data)
    if not checked.is_valid():
        raise ImportFailed(list(flatten_errors(checked.errors)))
    values = dict(checked.validated_data)
    values["doc_fields"] = tuple(values["doc_fields"])
    values["topics"] = tuple(dict.fromkeys(values["topics"]))
    return reading.Choice(**values)


def as_options(choice: reading.Choice) -> dict:
    """The choice as the job's ``options`` (JSON), read back by ``choice_from``."""
    options = asdict(choice)
    options.pop("extra")
    return options | {"doc_fields": list(choice.doc_fields), "topics": list(choice.topics)}


def check_choice(choice: reading.Choice) -> list[dict[str, str]]:
    """Load the dataset and check the choice against it, reading only its queries; return the kept
    topics. ImportFailed names the field (``dataset``, ``doc_fields``, ``topics`` …)."""
    try:
        dataset = reading.load(choice.dataset)
        reading.check(dataset, choice)
        return reading.read_topics(dataset, choice)
    except reading.DatasetProblem as problem:
        raise ImportFailed([(problem.field, problem.message)]) from problem
    except Exception as error:  # whatever ir_datasets raises, the answer names the dataset
        # Typically a download that found no network (``All download sources failed``).
        reason = str(error).splitlines()[0][:300] if str(error) else type(error).__name__
        raise ImportFailed(
            [("dataset", f"ir_datasets could not read {choice.dataset!r}'s queries ({reason}); {OFFLINE}")]
        ) from error


def check_names(project: Project, choice: reading.Choice) -> None:
    """Refuse at once a qrels name or run tag the project already has (the worker would refuse it)."""
    if choice.qrels == "reference" and project.external_qrels.filter(name=choice.reference_name()).exists():
        raise ImportFailed(
            [("qrels_name", f"the project already has external qrels named {choice.reference_name()!r}")]
        )
    if choice.qrels == "prior" and project.prior_qrels.filter(name=choice.reference_name()).exists():
        raise ImportFailed(
            [("qrels_name", f"the project already has prior judgements named {choice.reference_name()!r}")]
        )
    if choice.scoreddocs and project.runs.filter(tag=choice.scoreddocs_tag()).exists():
        raise ImportFailed(
            [("run_tag", f"a run tagged {choice.scoreddocs_tag()!r} already exists in this project")]
        )


def create_import(user: Any, project: Project, choice: reading.Choice) -> ImportJob:
    """The import as a queued job of ``user`` into ``project``, checked first (``check_choice``) and
    not yet sent: ``send_import`` sends it to a worker, the command line runs it itself."""
    check_choice(choice)
    check_names(project, choice)
    return ImportJob.objects.create(
        kind=ImportJob.Kind.IR_DATASETS,
        requested_by=user,
        project=project,
        body_bytes=0,
        body_sha256="",
        options=as_options(choice),
    )


def send_import(user: Any, project: Project, choice: reading.Choice) -> ImportJob:
    """Queue the import as a job and send it to a worker once stored (``create_import``)."""
    with transaction.atomic():
        job = create_import(user, project, choice)
        transaction.on_commit(lambda: import_jobs.send(job))  # a worker must find the row it is sent
    return job


def import_dataset_job(
    job: ImportJob, progress: Callable[[str, float], None], still_wanted: Callable[[], None]
) -> dict:
    """The import job's work (``import_jobs.IMPORTERS``), all or nothing:

    1. the choice checked again against the dataset, its queries read as topics;
    2. the kept topics' qrels (as the external reference, or as prior judgements) and scoreddocs (as
       a run, whose pool leaves out the pairs prior judgements judge);
    3. the documents read, capped, checked as the collection import checks them and spooled to disk;
    4. the scoreddocs run cut to the documents kept, and everything stored by the collection import's
       flow, which refuses and undoes it all on any problem.
    """
    assert job.project is not None
    choice = choice_from(job.options)
    topics = check_choice(choice)
    dataset = reading.load(choice.dataset)
    topic_ids = [topic["id"] for topic in topics]
    progress(f"read {len(topics):,} queries; reading the qrels and scoreddocs", 0.05)
    judged = reading.Judged({})
    if choice.qrels in ("reference", "prior"):
        judged = reading.read_qrels(dataset, topic_ids, choice.relevant_from)
    scored = reading.read_scoreddocs(dataset, topic_ids) if choice.scoreddocs else {}
    named: set[str] = set()
    if choice.max_documents is not None:
        named = {doc for qrels in judged.qrels.values() for doc in qrels}
        named.update(doc for run in scored.values() for doc in run)
    expected = dataset.docs_count() or 0
    kept = reading.Kept()

    def documents_read(count: int) -> None:
        share = min(count / expected, 1.0) if expected else 0.0
        progress(f"reading documents ({count:,} read)", 0.1 + 0.4 * share)

    with closing(SpooledDocuments()) as documents:
        kept_ids = spool_documents(
            reading.read_documents(dataset, choice, named, kept, documents_read), documents
        )
        body: dict[str, Any] = {"topics": topics, "pool_depth": choice.pool_depth}
        run, run_left_out = cut_run(scored, kept_ids)
        if run:
            out = io.StringIO()
            write_run(run, out, choice.scoreddocs_tag())
            body["runs"] = [out.getvalue()]
        prior_left_out = 0
        if judged.qrels and choice.qrels == "prior":
            # Prior judgements name only the project's documents: those past the cap are left out.
            prior, prior_left_out = cut_qrels(judged.qrels, kept_ids)
            out = io.StringIO()
            write_qrels(prior, out)
            body |= {
                "prior_qrels": out.getvalue(),
                "prior_name": choice.reference_name(),
                "prior_source": f"ir_datasets {choice.dataset}",
                "prior_assessor": "the dataset's assessors",
            }
        elif judged.qrels:
            out = io.StringIO()
            write_qrels(judged.qrels, out)
            body |= {"qrels": out.getvalue(), "qrels_name": choice.reference_name()}
        progress(f"checking and storing {documents.given:,} documents (all or nothing)", 0.5)
        summary = import_from_body(job.project, body, still_wanted, documents=documents)
    return asdict(summary) | {
        "dataset": choice.dataset,
        "qrels_left_out": judged.left_out,
        "documents_over_cap": kept.over_cap,
        "documents_empty": kept.empty,
        "empty_document_ids": kept.empty_ids,
        "run_lines_left_out": run_left_out,
        "prior_lines_left_out": prior_left_out,
    }


def spool_documents(documents: Any, out: SpooledDocuments) -> set[str]:
    """Check each document as the collection import does and spool it to ``out``; return the ids kept.
    ImportFailed names the first documents refused by their id (``documents[CR-12].id``)."""
    checker = DocumentInSerializer()  # one for all: run_validation keeps nothing on it
    ids: set[str] = set()
    for document in documents:
        out.given += 1
        try:
            # A blank text is refused from a person but kept from a dataset (Cranfield's documents 471
            # and 995 have no abstract, and its qrels name 995): it is checked as any other field.
            checked = dict(checker.run_validation({**document, "text": document["text"] or "blank"}))
            checked["text"] = document["text"]
        except serializers.ValidationError as error:
            if len(out.problems) < MOST_ERRORS:
                out.problems.extend(flatten_errors(error.detail, f"documents[{document['id']}]"))
            continue
        if not out.problems:
            out.append(checked)
            ids.add(checked["id"])
    if out.problems:
        raise ImportFailed(out.problems)
    return ids


def cut_qrels(qrels: dict[str, dict[str, int]], documents: set[str]) -> tuple[dict[str, dict[str, int]], int]:
    """The qrels without the documents the import left out; and how many lines went."""
    cut: dict[str, dict[str, int]] = {}
    left_out = 0
    for topic, labels in qrels.items():
        kept = {doc: label for doc, label in labels.items() if doc in documents}
        left_out += len(labels) - len(kept)
        if kept:
            cut[topic] = kept
    return cut, left_out


def cut_run(run: dict[str, dict[str, float]], documents: set[str]) -> tuple[dict[str, dict[str, float]], int]:
    """The run without the documents the import left out (past the cap, empty); and how many lines went."""
    cut: dict[str, dict[str, float]] = {}
    left_out = 0
    for topic, scores in run.items():
        kept = {doc: score for doc, score in scores.items() if doc in documents}
        left_out += len(scores) - len(kept)
        if kept:
            cut[topic] = kept
    return cut, left_out
