"""External qrels in: a collection's official judgements, or another group's assessments, stored
beside the crowd's ground truth so the runs can be scored against them and the crowd compared with
them (``evaluation.scoring.external``)."""

from __future__ import annotations

import unicodedata

from django.db import IntegrityError, transaction

from annotation.items.importing import ImportProblem
from annotation.items.inputs import InputError, identifier
from annotation.models import Project
from evaluation.metrics.natural_order import natural_sorted
from evaluation.metrics.trec.files import TrecFormatError, read_qrels
from evaluation.models import ExternalQrels

NAME_LENGTH = 200


def import_external_qrels(project: Project, name: str, text: str) -> ExternalQrels:
    """Store qrels text (``topic iter docno rel``) under ``name``; ImportProblem names the field
    (``name``, or ``qrels`` with the line) for a bad name, a malformed line or a topic the project
    does not have. Documents outside the project are kept: they are relevant documents the pool
    never saw, which is what the comparison is for."""
    try:
        name = identifier(name, max_length=NAME_LENGTH)
    except InputError as error:
        raise ImportProblem("name", str(error)) from error
    try:
        parsed = read_qrels(text.splitlines(), name="qrels")
    except TrecFormatError as error:
        raise ImportProblem("qrels", str(error)) from error
    if not parsed:
        raise ImportProblem("qrels", "the qrels have no lines")
    judgements = {
        unicodedata.normalize("NFC", topic): {unicodedata.normalize("NFC", d): rel for d, rel in docs.items()}
        for topic, docs in parsed.items()
    }
    topics = set(project.topics.values_list("external_id", flat=True))
    unknown = natural_sorted(set(judgements) - topics)
    if unknown:
        raise ImportProblem("qrels", f"topic {unknown[0]!r} is not among the project's topics")
    try:
        with transaction.atomic():
            return ExternalQrels.objects.create(
                project=project,
                name=name,
                judgements=judgements,
                judged_count=sum(len(docs) for docs in judgements.values()),
                relevant_count=sum(rel > 0 for docs in judgements.values() for rel in docs.values()),
            )
    except IntegrityError as error:
        raise ImportProblem("name", f"the project already has external qrels named {name!r}") from error
