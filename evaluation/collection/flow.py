"""Import a test collection into a project: what annotators judge (``annotation.items.importing``) and
the system runs pooled into it (``runs``). One flow for the Import page and the API.

All or nothing: any problem, in the body's shape or in its contents, leaves the project as it was
and is reported as ``field: message`` pairs (``runs[0]`` line 12, ``topics[3].id``, …).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction

from annotation.items.importing import Catalogue, DocumentIn, ImportProblem, ImportSummary, import_items
from annotation.models import Project
from annotation.serializers import TopicInSerializer
from evaluation.collection.external_qrels import import_external_qrels
from evaluation.collection.references import import_references
from evaluation.collection.runs import SAMPLED_POOL, parse_runs, pool_runs, store_runs, store_sampled_pool
from evaluation.collection.serializers import ImportSerializer
from evaluation.metrics.natural_order import natural_sorted
from evaluation.metrics.trec.files import TrecFormatError
from evaluation.metrics.trec.topics import read_topics
from evaluation.models import ExternalQrels
from evaluation.prior.importing import import_prior_qrels
from evaluation.prior.pooling import Reuse, reuse_prior
from evaluation.signals import announce_collection_imported


@dataclass
class ImportFailed(Exception):
    """An import refused; ``errors`` lists ``(field, message)`` pairs, the field as a path."""

    errors: list[tuple[str, str]]

    def __str__(self) -> str:
        return "; ".join(self.as_lines())

    def as_dict(self) -> dict[str, list[str]]:
        """The errors as DRF words them: ``{field: [message, …]}``."""
        out: dict[str, list[str]] = {}
        for field, message in self.errors:
            out.setdefault(field, []).append(message)
        return out

    def as_lines(self) -> list[str]:
        return [f"{field}: {message}" if field else message for field, message in self.errors]


class DryRun(Exception):
    """Raised inside the import's transaction to undo it after counting."""


def import_collection(
    project: Project,
    *,
    runs: Sequence[str] = (),
    pool_depth: int = 10,
    pool_budget: int | None = None,
    pool_method: str = "depth",
    pool_strata: str = "1-10:1,11-100:0.2,101-1000:0.05",
    pool_seed: int = 0,
    run_group: str = "",
    dry_run: bool = False,
    references: Sequence[dict] = (),
    qrels: str = "",
    qrels_name: str = "reference",
    judge_prior: bool = False,
    prior: Mapping[str, Any] | None = None,
    still_wanted: Callable[[], None] = lambda: None,
    **what_to_judge: Any,
) -> ImportSummary:
    """Create topics, documents, runs, the items to judge and the quality-control items.

    ``runs`` are TREC run files' texts; the pool of their top ``pool_depth`` documents per topic
    (0: the runs are stored, not pooled), ordered by ``pool_method`` (``runs.pool_runs``: depth or
    rbp) and cut to ``pool_budget`` per topic if given, becomes items (existing items keep their
    judgements and move up if ranked higher, so runs added later add only new pairs). ``qrels``,
    a qrels file's text, is stored as the external qrels ``qrels_name`` (``scoring.external``)
    once the topics it names are. ``prior`` (``{"qrels", "name", "source", "judged_on",
    "assessor"}``) is stored as a prior set of judgements (``prior.importing``) before the runs are
    pooled; the pool leaves out the pairs any prior set judges unless ``judge_prior`` asks for them
    to be judged again (``prior.pooling``), and the summary counts them. ``pool_method``
    ``stratified`` instead samples the pool in ``pool_strata`` with ``pool_seed``
    (``runs.store_sampled_pool``): the drawn documents become items (all of them: the sample's
    inclusion probabilities are of the whole pool, so prior sets do not thin it). The other keyword
    arguments are
    ``annotation.items.importing.import_items``'s.
    With ``dry_run`` everything is checked and counted, then undone; the summary then lists each
    topic's pooled documents in judging order. Raises ImportProblem.
    """
    stored: list = []
    pooled: dict[str, dict[str, int]] = {}
    reuse = [Reuse()]
    prior_stored: list = []

    def store_prior() -> None:
        if prior and not prior_stored:
            prior_stored.append(prior_set(project, prior))

    def pool(catalogue: Catalogue) -> dict[str, dict[str, int]]:
        store_prior()
        parsed = parse_runs(project, runs, catalogue)
        if pool_method == SAMPLED_POOL and pool_depth:
            if pool_budget is not None:
                raise ImportProblem("pool_budget", "a sampled pool has no budget: its strata's rates set it")
            depth, sample = store_sampled_pool(project, parsed, pool_strata, pool_seed)
            store_runs(project, parsed, depth, group=run_group)
            pooled.update(sample)
        else:
            store_runs(project, parsed, pool_depth, group=run_group)
            wanted = pool_runs(parsed, pool_depth, pool_budget, pool_method) if pool_depth else {}
            kept, reuse[0] = reuse_prior(project, wanted, judge_prior)
            pooled.update(kept)
        stored.extend(parsed)
        return pooled

    summary = None
    reference = None
    try:
        with transaction.atomic():
            summary = import_items(project, pool=pool if runs else None, **what_to_judge)
            store_prior()  # an import without runs stores it after the topics and documents
            summary = replace(summary, references_created=import_references(project, list(references)))
            if qrels:
                reference = reference_qrels(project, qrels_name, qrels)
                summary = replace(summary, qrels_created=reference.judged_count)
            if dry_run:
                raise DryRun
            still_wanted()  # an import job cancelled meanwhile stores nothing (rolled back)
    except DryRun:
        pass
    assert summary is not None
    if not dry_run and (stored or reference is not None):
        # Scoring listens: the new runs join the leaderboard, and runs are scored against new qrels.
        announce_collection_imported(project.pk, len(stored), reference.pk if reference else None)
    order = (
        {topic: sorted(pooled[topic], key=pooled[topic].__getitem__) for topic in natural_sorted(pooled)}
        if dry_run
        else {}
    )
    return replace(
        summary,
        runs_created=len(stored),
        dry_run=dry_run,
        judging_order=order,
        prior_judged=reuse[0].judged,
        prior_skipped=reuse[0].skipped,
        judgements_saved=reuse[0].judgements_saved,
        prior_created=prior_stored[0].judged_count if prior_stored else 0,
    )


def prior_set(project: Project, prior: Mapping[str, Any]) -> Any:
    """``import_prior_qrels`` under the import's field names (``prior_qrels``, ``prior_name``)."""
    try:
        return import_prior_qrels(
            project,
            prior.get("name") or "prior",
            prior["qrels"],
            source=prior.get("source", ""),
            judged_on=prior.get("judged_on"),
            assessor=prior.get("assessor", ""),
        )
    except ImportProblem as problem:
        raise ImportProblem(
            "prior_name" if problem.field == "name" else "prior_qrels", problem.message
        ) from problem


def reference_qrels(project: Project, name: str, text: str) -> ExternalQrels:
    """``import_external_qrels`` under the import's field names (``qrels``, ``qrels_name``)."""
    try:
        return import_external_qrels(project, name, text)
    except ImportProblem as problem:
        raise ImportProblem(
            "qrels_name" if problem.field == "name" else "qrels", problem.message
        ) from problem


def import_from_body(
    project: Project,
    body: Any,
    still_wanted: Callable[[], None] = lambda: None,
    documents: Iterable[DocumentIn] | None = None,
) -> ImportSummary:
    """Validate an import body (the parsed JSON) and import it; raise ImportFailed naming each problem.
    ``still_wanted()`` is called at the end of the storing transaction and raises to undo it (an
    import job cancelled meanwhile). ``documents``, if given, are the body's documents already checked
    (an import job reads them apart as a stream: ``collection.streaming``); ``body`` then has none."""
    if not isinstance(body, Mapping):
        raise ImportFailed([("", "the body must be one JSON object with topics, documents, runs, items …")])
    serializer = ImportSerializer(data=body, context={"documents": documents})
    valid = serializer.is_valid()
    streamed_problems = getattr(documents, "problems", [])
    if not valid or streamed_problems:
        raise ImportFailed([*streamed_problems, *(() if valid else flatten_errors(serializer.errors))])
    data = dict(serializer.validated_data)
    given = len(data["topics"])
    from_file = trec_file_topics(data.pop("trec_topics"))
    data["topics"] = [*data["topics"], *(topic for topic, _ in from_file)]
    prior = {key: data.pop(f"prior_{key}") for key in ("qrels", "name", "source", "assessor", "date")}
    if prior["qrels"]:
        data["prior"] = prior | {"judged_on": prior.pop("date")}
    try:
        return import_collection(project, still_wanted=still_wanted, **data)
    except ImportProblem as problem:
        raise ImportFailed([in_trec_file(problem, given, [line for _, line in from_file])]) from problem


def trec_file_topics(text: str) -> list[tuple[dict, int]]:
    """A TREC topic file's topics as the import's topics (``{"id", "title", "description"}``, the
    narrative after the description, checked as ``topics`` are), each with its line; ImportFailed
    names the line of the first problem."""
    if not text.strip():
        return []
    try:
        parsed = read_topics(text, name="trec_topics")
    except TrecFormatError as error:
        raise ImportFailed([("trec_topics", f"line {error.line}: {error.message}")]) from error
    rows = [{"id": t.id, "title": t.title, "description": t.description_with_narrative()} for t in parsed]
    checked = TopicInSerializer(data=rows, many=True)
    if not checked.is_valid():
        index, errors = next((i, e) for i, e in enumerate(checked.errors) if e)
        field, message = next(flatten_errors(errors))
        raise ImportFailed([("trec_topics", f"line {parsed[index].line}, {field}: {message}")])
    return [(dict(row), topic.line) for row, topic in zip(checked.validated_data, parsed, strict=True)]


def in_trec_file(problem: ImportProblem, given: int, lines: list[int]) -> tuple[str, str]:
    """An import problem as ``(field, message)``; one about a topic that came from the TREC topic
    file (``topics[i]`` past the ``given`` JSON ones) names the file and the topic's line instead."""
    found = re.match(r"topics\[(\d+)\](.*)", problem.field)
    if found and int(found.group(1)) >= given:
        line = lines[int(found.group(1)) - given]
        return "trec_topics", f"line {line}{found.group(2).replace('.', ', ', 1)}: {problem.message}"
    return problem.field, problem.message


def flatten_errors(errors: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """DRF's nested error structure as ``(field[index].name, message)`` pairs."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            name = f"{prefix}[{key}]" if str(key).isdigit() else (f"{prefix}.{key}" if prefix else str(key))
            yield from flatten_errors(value, name)
    elif isinstance(errors, list):
        if errors and all(isinstance(e, str) for e in errors):
            yield prefix, " ".join(errors)
        else:
            for index, value in enumerate(errors):
                if value:
                    yield from flatten_errors(value, f"{prefix}[{index}]")
    else:
        yield prefix, str(errors)


def describe_import(summary: ImportSummary) -> str:
    """“1 topic, 5 documents, 5 new items (5 items in the project)”: only what the import created."""
    counts = [
        (summary.topics_created, "topic"),
        (summary.documents_created, "document"),
        (summary.runs_created, "run"),
        (summary.tasks_created, "new item"),
        (summary.gold_created, "gold item"),
        (summary.qualification_created, "qualification question"),
        (summary.attention_checks_created, "attention check"),
        (summary.references_created, "reference"),
        (summary.qrels_created, "reference judgement"),
        (summary.prior_created, "prior judgement"),
    ]
    parts = [f"{n} {name}{'' if n == 1 else 's'}" for n, name in counts if n]
    if summary.prior_skipped:
        parts.append(
            f"{summary.prior_skipped} pooled pair{'' if summary.prior_skipped == 1 else 's'} left out as "
            f"judged before ({summary.judgements_saved} judgements saved)"
        )
    elif summary.prior_judged:
        parts.append(f"{summary.prior_judged} pooled pairs judged before, judged again")
    if summary.dry_run:
        return "would create " + (", ".join(parts) or "nothing new") + " (nothing was stored)"
    return (", ".join(parts) or "nothing new") + f" ({summary.tasks_total} items in the project)"
