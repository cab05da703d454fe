"""System runs in: parse (``metrics.trec_io``), check against the project's topics and documents,
store, and pool (``pooling``) into the items annotators judge."""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Iterable, Iterator, Sequence

import numpy as np
from django.db.models import QuerySet, Sum
from django.db.models.functions import Coalesce

from annotation.items.importing import Catalogue, ImportProblem
from annotation.items.inputs import InputError, identifier
from annotation.judging.bulk import store_rows
from annotation.models import Project
from evaluation.metrics.trec.files import Run as RankedLists
from evaluation.metrics.trec.files import (
    RunColumns,
    TopicScores,
    TrecFormatError,
    read_run_columns,
    trec_ordered,
    write_run,
)
from evaluation.metrics.trec.pooling import depth_k_pool, depth_order, rbp_order
from evaluation.metrics.trec.sampling import parse_strata, stratified_sample
from evaluation.models import RankedList, Run, SampledPoolMember

# Run.tag's column width.
TAG_LENGTH = 200


def parse_runs(project: Project, texts: Sequence[str], catalogue: Catalogue) -> list[tuple[str, RunColumns]]:
    """Each text is one TREC run file (``qid Q0 docno rank score tag``); returns ``(tag, run)`` pairs,
    each topic's documents in trec_eval's order (``trec_ordered``).

    Raises ImportProblem naming ``runs[i]`` (and the line) for a malformed file, an empty one, a
    tag the project already has, or a topic or document the project does not have.
    """
    existing_tags = set(project.runs.values_list("tag", flat=True))
    parsed = []
    for index, text in enumerate(texts):
        field = f"runs[{index}]"
        try:
            run, tag = read_run_columns(text.splitlines(), name=field)
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
        for topic_id, topic in run.items():
            if topic_id not in catalogue.topics:
                raise ImportProblem(field, f"topic {topic_id!r} is not among the project's topics")
            if not all(map(catalogue.documents.__contains__, topic.docnos)):
                unknown = next(docid for docid in topic.docnos if docid not in catalogue.documents)
                raise ImportProblem(
                    field, f"document {unknown!r} (topic {topic_id!r}) is not among the project's documents"
                )
        parsed.append((tag, {topic_id: trec_ordered(topic) for topic_id, topic in run.items()}))
    return parsed


def normalised_ids(run: RunColumns) -> RunColumns:
    """The run with its topic and document ids NFC-normalised, as imported ids are, so that two
    spellings of one id meet (the first one's place, the last one's score). ASCII is NFC already."""
    normalised: RunColumns = {}
    for topic_id, topic in run.items():
        if not "".join(topic.docnos).isascii():
            scores = {
                unicodedata.normalize("NFC", doc): s
                for doc, s in zip(topic.docnos, topic.scores.tolist(), strict=True)
            }
            topic = TopicScores(
                list(scores), np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
            )
        normalised[unicodedata.normalize("NFC", topic_id)] = topic
    return normalised


def store_runs(
    project: Project, parsed: Sequence[tuple[str, RunColumns]], pool_depth: int, group: str = ""
) -> None:
    """Store each parsed run (``parse_runs``: in trec_eval's order) as one ranked list per topic."""
    for tag, run in parsed:
        row = Run.objects.create(project=project, tag=tag, pool_depth=pool_depth, group=group)
        store_ranked_lists(
            row.pk, ((topic, columns.docnos, columns.scores) for topic, columns in run.items())
        )


def store_ranked_lists(
    run_id: int, lists: Iterable[tuple[str, Sequence[str], Sequence[float] | np.ndarray]]
) -> None:
    """Store ``(topic, documents in rank order, their scores)`` as the run's ranked lists (by COPY on
    PostgreSQL, ``store_rows``)."""
    rows = (
        (run_id, topic, "\n".join(documents), np.asarray(scores, dtype="<f8").tobytes(), len(documents))
        for topic, documents, scores in lists
    )
    store_rows(RankedList, LIST_COLUMNS, rows, plain=True)


LIST_COLUMNS = ("run_id", "topic_id", "documents", "scores", "length")


def ranked_lists(run_id: int) -> RunColumns:
    """A stored run as ``{topic: (documents, scores)}`` in trec_eval's order, topics sorted by id."""
    rows = RankedList.objects.filter(run_id=run_id).order_by("topic_id")
    return {
        topic: TopicScores(documents.split("\n"), np.frombuffer(scores, dtype="<f8"))
        for topic, documents, scores in rows.values_list("topic_id", "documents", "scores").iterator(
            chunk_size=100
        )
    }


def pooled_documents(lists: QuerySet[RankedList]) -> Iterator[tuple[str, str, list[str]]]:
    """``(run tag, topic, documents)``: the top ``pool_depth`` of each of these lists whose run was
    pooled."""
    rows = lists.filter(run__pool_depth__gt=0).values_list(
        "run__tag", "run__pool_depth", "topic_id", "documents"
    )
    for tag, depth, topic, documents in rows.iterator(chunk_size=100):
        yield tag, topic, documents.split("\n", depth)[:depth]


def with_line_totals(runs: QuerySet[Run]) -> QuerySet[Run]:
    """The runs, each with ``line_total``: how many lines it has."""
    return runs.annotate(line_total=Coalesce(Sum("ranked_lists__length"), 0))


def line_count(run: Run) -> int:
    """How many lines the run has (documents over all its topics)."""
    return run.ranked_lists.aggregate(lines=Sum("length"))["lines"] or 0


POOL_METHODS = ("depth", "rbp")


def pool_runs(
    parsed: Sequence[tuple[str, RunColumns]],
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
        # Each topic's top documents only: a prefix of trec_eval's order is in trec_eval's order.
        tops = (
            {
                topic: dict(zip(c.docnos[:pool_depth], c.scores[:pool_depth].tolist(), strict=True))
                for topic, c in run.items()
            }
            for _, run in parsed
        )
        return depth_k_pool(tops, pool_depth)
    topics = sorted({topic for _, run in parsed for topic in run})
    pool = {}
    for topic in topics:
        rankings = [run[topic].docnos[:pool_depth] for _, run in parsed if topic in run]
        limit = budget or sum(len(r) for r in rankings)
        order = rbp_order(rankings, limit) if method == "rbp" else depth_order(rankings, limit)
        pool[topic] = {document: position for position, document in enumerate(order, start=1)}
    return pool


SAMPLED_POOL = "stratified"


def store_sampled_pool(
    project: Project, parsed: Sequence[tuple[str, RunColumns]], strata_text: str, seed: int
) -> tuple[int, dict[str, dict[str, int]]]:
    """Sample the parsed runs' pool in strata by rank (``sampling.stratified_sample``) and store every
    pooled document with its stratum and inclusion probability (``SampledPoolMember``). Returns the
    depth pooled (the last stratum's last rank) and the drawn documents as a pool, ``{topic:
    {document: best rank}}``, which become items. A project has one sampled pool: the estimates
    need one design, so a second is refused (ImportProblem on ``pool_method``)."""
    if project.sampled_pool.exists():
        raise ImportProblem(
            "pool_method", "the project has a sampled pool already: its estimates need one design"
        )
    strata = parse_strata(strata_text)
    depth = strata[-1].last
    tops = (
        {
            topic: dict(zip(c.docnos[:depth], c.scores[:depth].tolist(), strict=True))
            for topic, c in run.items()
        }
        for _, run in parsed
    )
    members = stratified_sample(tops, strata, seed)
    design = f"{strata_text};seed={seed}"
    SampledPoolMember.objects.bulk_create(
        SampledPoolMember(
            project=project,
            topic_id=m.topic,
            document_id=m.docno,
            best_rank=m.best_rank,
            stratum=m.stratum,
            probability=m.probability,
            sampled=m.sampled,
            design=design,
        )
        for m in members
    )
    pool: dict[str, dict[str, int]] = {}
    for m in members:
        if m.sampled:
            pool.setdefault(m.topic, {})[m.docno] = m.best_rank
    return depth, pool


def stored_run(run_id: int) -> RankedLists:
    """A stored run as ``{topic: {document: score}}`` (trec_eval orders it again by score, docno)."""
    return {
        topic: dict(zip(ranked.docnos, ranked.scores.tolist(), strict=True))
        for topic, ranked in ranked_lists(run_id).items()
    }


def run_file(run: Run) -> str:
    """A stored run as the text of a TREC run file (``qid Q0 docno rank score tag``, trec_eval's order)."""
    out = io.StringIO()
    write_run(stored_run(run.pk), out, run.tag)
    return out.getvalue()
