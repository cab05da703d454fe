"""System runs in: parse (``metrics.trec_io``), check against the project's topics and documents,
store, and pool (``pooling``) into the items annotators judge."""

from __future__ import annotations

import io
import unicodedata
from collections import defaultdict
from collections.abc import Sequence

from annotation.items.importing import Catalogue, ImportProblem
from annotation.items.inputs import InputError, identifier
from annotation.judging.bulk import store_rows
from annotation.models import Project
from evaluation.metrics.trec.files import Run as RankedLists
from evaluation.metrics.trec.files import TrecFormatError, read_run, trec_order, write_run
from evaluation.metrics.trec.pooling import depth_k_pool, depth_order, rbp_order
from evaluation.models import Run, RunEntry

# Run.tag's column width.
TAG_LENGTH = 200


def parse_runs(project: Project, texts: Sequence[str], catalogue: Catalogue) -> list[tuple[str, RankedLists]]:
    """Each text is one TREC run file (``qid Q0 docno rank score tag``); returns ``(tag, run)`` pairs.

    Raises ImportProblem naming ``runs[i]`` (and the line) for a malformed file, an empty one, a
    tag the project already has, or a topic or document the project does not have.
    """
    existing_tags = set(project.runs.values_list("tag", flat=True))
    parsed = []
    for index, text in enumerate(texts):
        field = f"runs[{index}]"
        try:
            run, tag = read_run(text.splitlines(), name=field)
        except TrecFormatError as error:
            raise ImportProblem(field, str(error)) from error
        if not run:
            raise ImportProblem(field, "the run has no lines")
        try:
            tag = identifier(tag, max_length=TAG_LENGTH)
            run = normalised_ids(run)
        except InputError as error:
            raise ImportProblem(field, f"run tag {tag!r}: {error}") from error
        if tag in existing_tags:
            raise ImportProblem(field, f"a run tagged {tag!r} already exists in this project")
        existing_tags.add(tag)
        for topic_id, scores in run.items():
            if topic_id not in catalogue.topics:
                raise ImportProblem(field, f"topic {topic_id!r} is not among the project's topics")
            unknown = next((docid for docid in scores if docid not in catalogue.documents), None)
            if unknown is not None:
                raise ImportProblem(
                    field, f"document {unknown!r} (topic {topic_id!r}) is not among the project's documents"
                )
        parsed.append((tag, run))
    return parsed


def normalised_ids(run: RankedLists) -> RankedLists:
    """The run with its topic and document ids NFC-normalised, as imported ids are, so that two
    spellings of one id meet."""
    return {
        unicodedata.normalize("NFC", topic): {
            unicodedata.normalize("NFC", doc): s for doc, s in scores.items()
        }
        for topic, scores in run.items()
    }


def store_runs(
    project: Project, parsed: Sequence[tuple[str, RankedLists]], pool_depth: int, group: str = ""
) -> None:
    """Store each run with its ranks in trec_eval's order (PostgreSQL: by COPY, ``store_rows``, which
    writes a 1,000-topic × 1,000-deep run about ten times faster than INSERTs of model objects)."""
    for tag, run in parsed:
        row = Run.objects.create(project=project, tag=tag, pool_depth=pool_depth, group=group)
        lines = (
            (row.pk, topic_id, docid, rank, scores[docid])
            for topic_id, scores in run.items()
            for rank, docid in enumerate(trec_order(scores), start=1)
        )
        store_rows(RunEntry, ENTRY_COLUMNS, lines, plain=True)


ENTRY_COLUMNS = ("run_id", "topic_id", "document_id", "rank", "score")


POOL_METHODS = ("depth", "rbp")


def pool_runs(
    parsed: Sequence[tuple[str, RankedLists]],
    pool_depth: int,
    budget: int | None = None,
    method: str = "depth",
) -> dict[str, dict[str, int]]:
    """The pool of the parsed runs' top ``pool_depth``, ``{topic: {document: position}}``; items are
    judged in position order. ``depth``: every document of the depth-k pool at the best rank any run
    gave it, or with a per-topic ``budget`` the first ones in depth order (``depth_order``).
    ``rbp``: in decreasing summed rank-biased weight (``rbp_order``), cut to ``budget`` if given,
    which finds more relevant documents per judgement."""
    if method not in POOL_METHODS:
        raise ValueError(f"pool method must be one of {', '.join(POOL_METHODS)}, not {method!r}")
    if budget is None and method == "depth":
        return depth_k_pool((run for _, run in parsed), pool_depth)
    topics = sorted({topic for _, run in parsed for topic in run})
    pool = {}
    for topic in topics:
        rankings = [trec_order(run[topic])[:pool_depth] for _, run in parsed if topic in run]
        limit = budget or sum(len(r) for r in rankings)
        order = rbp_order(rankings, limit) if method == "rbp" else depth_order(rankings, limit)
        pool[topic] = {document: position for position, document in enumerate(order, start=1)}
    return pool


def stored_run(run: Run) -> RankedLists:
    """A stored run as ``{topic: {document: score}}`` (trec_eval orders it again by score, docno)."""
    ranked: RankedLists = defaultdict(dict)
    for topic, document, score in run.entries.values_list("topic_id", "document_id", "score").iterator(
        chunk_size=20_000
    ):
        ranked[topic][document] = score
    return dict(ranked)


def run_file(run: Run) -> str:
    """A stored run as the text of a TREC run file (``qid Q0 docno rank score tag``, trec_eval's order)."""
    out = io.StringIO()
    write_run(stored_run(run), out, run.tag)
    return out.getvalue()
