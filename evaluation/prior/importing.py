"""Prior judgements in: a TREC qrels text stored as a named set of (topic, document, relevance) rows
of the project, all or nothing, with where it came from, when and who judged.

Unlike external qrels (``collection.external_qrels``), which may name documents the pool never saw,
a prior set names only the project's own topics and documents: its pairs are skipped by pooling and
merged into the ground truth, which both work on the project's rows. A line naming anything else is
refused with its number, and nothing is stored.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from datetime import date

from django.db import IntegrityError, transaction

from annotation.items.importing import ImportProblem
from annotation.items.inputs import InputError, identifier
from annotation.models import Project
from evaluation.metrics.trec.files import TrecFormatError, read_qrels
from evaluation.models import PriorJudgement, PriorQrels

NAME_LENGTH = 200
BATCH = 5000  # judgements per INSERT


def qrels_lines(text: str) -> Iterator[tuple[int, str, str, int]]:
    """``(line number, topic, document, label)`` of every qrels line (checked by ``read_qrels``
    first), ids NFC-normalised; comments and blank lines skipped, as ``read_qrels`` skips them."""
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if len(fields) == 4 and not fields[0].startswith("#"):
            topic, document = (unicodedata.normalize("NFC", field) for field in (fields[0], fields[2]))
            yield number, topic, document, int(fields[3])


def import_prior_qrels(
    project: Project,
    name: str,
    text: str,
    *,
    source: str = "",
    judged_on: date | None = None,
    assessor: str = "",
) -> PriorQrels:
    """Store qrels text (``topic iter docno rel``) as the prior set ``name`` of ``project``.

    ImportProblem names the field: ``name`` (empty, not an id, taken), ``qrels`` with the line for a
    malformed line, a label off the project's scale, a topic or a document the project does not
    have, or no lines at all (and a project whose items are not topics' documents). One
    transaction: a refusal stores nothing.
    """
    if not project.type.judged_for_topic:
        raise ImportProblem(
            "qrels",
            f"prior judgements are relevance labels of topics' documents, not {project.task_type} answers",
        )
    try:
        name = identifier(name, max_length=NAME_LENGTH)
    except InputError as error:
        raise ImportProblem("name", str(error)) from error
    try:
        parsed = read_qrels(text.splitlines(), name="qrels")
    except TrecFormatError as error:
        raise ImportProblem("qrels", str(error)) from error
    if not any(parsed.values()):
        raise ImportProblem("qrels", "the qrels have no lines")
    topics = dict(project.topics.values_list("external_id", "pk"))
    documents = dict(project.documents.values_list("external_id", "pk"))
    scale = set(project.type.classes(project.config))
    for number, topic, document, label in qrels_lines(text):
        if label not in scale:
            raise ImportProblem(
                "qrels",
                f"line {number}: label {label} is not on the project's scale "
                f"({', '.join(map(str, sorted(scale)))})",
            )
        if topic not in topics:
            raise ImportProblem("qrels", f"line {number}: topic {topic!r} is not among the project's topics")
        if document not in documents:
            raise ImportProblem(
                "qrels", f"line {number}: document {document!r} is not among the project's documents"
            )
    judgements = {
        (topics[unicodedata.normalize("NFC", topic)], documents[unicodedata.normalize("NFC", doc)]): rel
        for topic, docs in parsed.items()
        for doc, rel in docs.items()
    }
    with transaction.atomic():
        try:
            with transaction.atomic():  # a savepoint: the name taken meanwhile is a refusal, not an error
                prior = PriorQrels.objects.create(
                    project=project,
                    name=name,
                    source=source,
                    judged_on=judged_on,
                    assessor=assessor,
                    judged_count=len(judgements),
                    relevant_count=sum(rel > 0 for rel in judgements.values()),
                )
        except IntegrityError as error:
            raise ImportProblem("name", f"the project already has prior judgements named {name!r}") from error
        PriorJudgement.objects.bulk_create(
            (
                PriorJudgement(prior_qrels=prior, topic_id=topic, document_id=document, relevance=rel)
                for (topic, document), rel in judgements.items()
            ),
            batch_size=BATCH,
        )
    return prior
