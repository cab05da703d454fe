"""Fuse chosen runs of a project into a new stored run (``metrics.fusion``: RRF, CombSUM, CombMNZ).

Load the runs' ranked lists, fuse them with the pure core, store the result as a run like any other
(its ranked lists by ``store_ranked_lists``), in one transaction: a fused run is scored on the
leaderboard, downloaded and withdrawn as any run is, and with ``pool_depth`` above 0 it is pooled,
its top documents becoming items in the fused order (fusion as a pooling order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from django.db import IntegrityError, transaction

from annotation.items.importing import ImportProblem, import_items
from annotation.items.inputs import InputError, identifier
from annotation.models import Project
from evaluation.collection.runs import POOL_METHODS, TAG_LENGTH, pool_runs, store_ranked_lists, stored_run
from evaluation.metrics.fusion import METHODS, FusionError, common_topics, fuse
from evaluation.metrics.fusion.normalisation import NORMALISATIONS
from evaluation.metrics.fusion.rrf import DEFAULT_K
from evaluation.metrics.trec.files import TopicScores
from evaluation.models import Run
from evaluation.prior.pooling import reuse_prior
from evaluation.signals import announce_collection_imported


@dataclass(frozen=True)
class Fused:
    """What a fusion stored: the new run, and how many items pooling it added."""

    run: Run
    items_created: int


def default_tag(method: str, normalisation: str) -> str:
    return method if method == "rrf" else f"{method}-{normalisation}"


def fuse_project_runs(
    project: Project,
    run_ids: Sequence[int],
    *,
    method: str = "rrf",
    normalisation: str = "min-max",
    tag: str = "",
    rrf_k: int = DEFAULT_K,
    depth: int | None = None,
    pool_depth: int = 0,
    pool_method: str = "depth",
    judge_prior: bool = False,
) -> Fused:
    """Fuse the project's runs ``run_ids`` into a new run tagged ``tag`` (by default the method and
    normalisation), described by what it fused and how.

    1. Check the request: two or more distinct runs, all of this project; a tag the project has not
       used; the method's settings (``metrics.fusion.fuse``'s).
    2. Read each run's ranked lists and fuse them (a topic a run lacks counts as retrieved nothing by
       it; runs with no topic in common are refused).
    3. Store the run and its ranked lists, and with ``pool_depth`` > 0 pool its top documents as
       items (``runs.pool_runs``: depth or rbp order; pairs a prior set judges left out unless
       ``judge_prior``, ``prior.pooling``), all in one transaction.
    4. Announce the new run (``collection_imported``), so scoring adds it to the leaderboard.

    Raises ImportProblem naming the field at fault (``runs``, ``tag``, ``method``, …); nothing is
    stored then.
    """
    check_settings(method, normalisation, rrf_k, depth, pool_depth, pool_method)
    ids = list(run_ids)
    if len(ids) < 2:
        raise ImportProblem("runs", f"fusion needs at least two runs, got {len(ids)}")
    if len(set(ids)) != len(ids):
        repeated = next(run_id for run_id in ids if ids.count(run_id) > 1)
        raise ImportProblem("runs", f"run {repeated} is given twice")
    found = {run.pk: run for run in project.runs.filter(pk__in=ids)}
    missing = [run_id for run_id in ids if run_id not in found]
    if missing:
        raise ImportProblem("runs", f"run {missing[0]} is not among the project's runs")
    sources = [found[run_id] for run_id in ids]
    try:
        tag = identifier(tag or default_tag(method, normalisation), max_length=TAG_LENGTH)
    except InputError as error:
        raise ImportProblem("tag", str(error)) from error
    if project.runs.filter(tag=tag).exists():
        raise ImportProblem("tag", f"a run tagged {tag!r} already exists in this project")
    runs = [stored_run(run.pk) for run in sources]
    if not common_topics(runs):
        tags = ", ".join(run.tag for run in sources)
        raise ImportProblem("runs", f"fusion of runs with no topic in common: {tags}")
    try:
        fused = fuse(runs, method, normalisation, k=rrf_k, depth=depth)
    except FusionError as error:  # the settings were checked: what is left is about the runs
        raise ImportProblem("runs", str(error)) from error
    description = describe_fusion(method, normalisation, rrf_k, depth, [run.tag for run in sources])
    columns = {
        topic: TopicScores(list(scores), np.fromiter(scores.values(), dtype=np.float64, count=len(scores)))
        for topic, scores in fused.items()
    }
    try:
        with transaction.atomic():
            run = Run.objects.create(project=project, tag=tag, pool_depth=pool_depth, description=description)
            store_ranked_lists(
                run.pk, ((topic, ranked.docnos, ranked.scores) for topic, ranked in columns.items())
            )
            items = 0
            if pool_depth:
                summary = import_items(
                    project,
                    pool=lambda _: reuse_prior(
                        project, pool_runs([(tag, columns)], pool_depth, method=pool_method), judge_prior
                    )[0],
                )
                items = summary.tasks_created
    except IntegrityError as error:  # another request took the tag meanwhile
        raise ImportProblem("tag", f"a run tagged {tag!r} already exists in this project") from error
    announce_collection_imported(project.pk, 1)
    return Fused(run, items)


def describe_fusion(method: str, normalisation: str, k: int, depth: int | None, tags: Sequence[str]) -> str:
    """The run's description: what it fused and how, so the run says where it came from."""
    how = f"RRF (k = {k})" if method == "rrf" else f"{method} of {normalisation} scores"
    cut = f", cut to {depth} per topic" if depth else ""
    return f"Fusion by {how} of {', '.join(tags)}{cut} (ranx-equal, evaluation.metrics.fusion)."


def check_settings(
    method: str, normalisation: str, rrf_k: int, depth: int | None, pool_depth: int, pool_method: str
) -> None:
    """Raise ImportProblem naming the first setting that is not one ``fuse`` and pooling take."""
    if method not in METHODS:
        raise ImportProblem("method", f"must be one of {', '.join(METHODS)}, not {method!r}")
    if normalisation not in NORMALISATIONS:
        raise ImportProblem(
            "normalisation", f"must be one of {', '.join(NORMALISATIONS)}, not {normalisation!r}"
        )
    if rrf_k < 0:
        raise ImportProblem("rrf_k", f"must be at least 0, got {rrf_k}")
    if depth is not None and depth < 1:
        raise ImportProblem("depth", f"must be at least 1, got {depth}")
    if pool_depth < 0:
        raise ImportProblem("pool_depth", f"must be at least 0, got {pool_depth}")
    if pool_method not in POOL_METHODS:
        raise ImportProblem("pool_method", f"must be one of {', '.join(POOL_METHODS)}, not {pool_method!r}")


__all__ = ["METHODS", "NORMALISATIONS", "Fused", "fuse_project_runs"]
