"""A sampling simulation's job: asked for (``request_simulation``: the settings checked, the truth
found), then the one lifecycle of every job (``evaluation.jobs.lifecycle``). The worker reads the
project's runs that are not withdrawn and the chosen truth, runs the pure simulation
(``metrics.trec.sampling_simulation``) with a progress step per sample, and stores every sample's
figures in ``result``."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from django.db import OperationalError, transaction

from annotation.models import Project
from evaluation.collection.runs import stored_run
from evaluation.ground_truth.downloads import snapshot_qrels
from evaluation.jobs import lifecycle
from evaluation.metrics.trec.files import Qrels
from evaluation.metrics.trec.sampling_simulation import DEFAULT_SHARES, SimulationError, simulate
from evaluation.models import (
    ExternalQrels,
    GroundTruthSnapshot,
    PriorJudgement,
    PriorQrels,
    SamplingSimulation,
)

logger = logging.getLogger(__name__)

MAX_SAMPLES = 1000
MAX_SHARES = 6
MAX_DEPTH = 1000


class SettingsProblem(ValueError):
    """A request that cannot run: ``field`` names what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


@dataclass(frozen=True)
class Truth:
    """The ground truth a simulation takes as full judgement: one of the three, and its name."""

    name: str
    snapshot: GroundTruthSnapshot | None = None
    external_qrels: ExternalQrels | None = None
    prior_qrels: PriorQrels | None = None


def truth_choices(project: Project) -> list[tuple[str, str]]:
    """``(value, label)`` of every truth the project offers, the newest snapshot first."""
    choices = [
        (f"snapshot:{s.version}", f"ground-truth snapshot v{s.version} ({s.method})")
        for s in project.snapshots.only("version", "method").order_by("-version")
    ]
    choices += [
        (f"external:{q.name}", f"external qrels {q.name}") for q in project.external_qrels.only("name")
    ]
    choices += [(f"prior:{q.name}", f"prior judgements {q.name}") for q in project.prior_qrels.only("name")]
    return choices


def find_truth(project: Project, text: str) -> Truth:
    """``snapshot`` (the newest), ``snapshot:V``, ``external:NAME`` or ``prior:NAME``."""
    kind, _, name = (text or "snapshot").partition(":")
    if kind == "snapshot":
        snapshots = project.snapshots.order_by("-version")
        snapshot = snapshots.filter(version=name).first() if name.isdigit() else None
        snapshot = snapshots.first() if not name else snapshot
        if snapshot is None:
            raise SettingsProblem(
                "truth", f"the project has no snapshot {name or ''}".rstrip() + " to take as truth"
            )
        return Truth(f"snapshot v{snapshot.version}", snapshot=snapshot)
    if kind == "external":
        external = project.external_qrels.filter(name=name).first()
        if external is None:
            raise SettingsProblem("truth", f"the project has no external qrels named {name!r}")
        return Truth(f"external qrels {name}", external_qrels=external)
    if kind == "prior":
        prior = project.prior_qrels.filter(name=name).first()
        if prior is None:
            raise SettingsProblem("truth", f"the project has no prior judgements named {name!r}")
        return Truth(f"prior judgements {name}", prior_qrels=prior)
    raise SettingsProblem("truth", "give snapshot, snapshot:VERSION, external:NAME or prior:NAME")


def parse_shares(text: str) -> list[float]:
    """Shares written as percentages or fractions, separated by commas or spaces: ``10,20,30`` or
    ``0.1 0.2``; each in (0, 100] %."""
    values = []
    for item in filter(None, re.split(r"[,\s]+", text.strip())):
        try:
            value = float(item.rstrip("%"))
        except ValueError as error:
            raise SettingsProblem("shares", f"{item!r} is not a number") from error
        share = value / 100 if item.endswith("%") or value > 1 else value
        if not 0 < share <= 1:
            raise SettingsProblem("shares", f"{item!r}: a share judged must be above 0 and at most 100 %")
        values.append(share)
    return check_shares(values)


def check_shares(shares: list[float]) -> list[float]:
    if not shares:
        raise SettingsProblem("shares", "give at least one share judged")
    if len(shares) > MAX_SHARES:
        raise SettingsProblem("shares", f"at most {MAX_SHARES} shares")
    if any(not 0 < s <= 1 for s in shares):
        raise SettingsProblem("shares", "each share judged must be in (0, 1]")
    return sorted(set(shares))


def request_simulation(
    project: Project,
    user,
    *,
    truth: str = "snapshot",
    shares: list[float] | None = None,
    samples: int = 100,
    depth: int = 100,
    top_depth: int = 10,
    seed: int = 0,
) -> SamplingSimulation:
    """Check the settings (SettingsProblem names the field), store the job and send it once committed."""
    found = find_truth(project, truth)
    if project.runs.filter(withdrawn_at__isnull=True).count() < 2:
        raise SettingsProblem("runs", "a simulation ranks runs: the project needs at least two")
    if not 1 <= samples <= MAX_SAMPLES:
        raise SettingsProblem("samples", f"between 1 and {MAX_SAMPLES}")
    if not 2 <= depth <= MAX_DEPTH:
        raise SettingsProblem("depth", f"between 2 and {MAX_DEPTH}")
    if not 1 <= top_depth < depth:
        raise SettingsProblem("top_depth", f"at least 1 and below the depth ({depth})")
    if seed < 0:
        raise SettingsProblem("seed", "0 or more")
    job = SamplingSimulation.objects.create(
        project=project,
        requested_by=user,
        snapshot=found.snapshot,
        external_qrels=found.external_qrels,
        prior_qrels=found.prior_qrels,
        truth_name=found.name,
        shares=check_shares(list(shares) if shares is not None else list(DEFAULT_SHARES)),
        samples=samples,
        depth=depth,
        top_depth=top_depth,
        seed=seed,
        stage="queued",
    )
    transaction.on_commit(lambda: lifecycle.send(SIMULATIONS, job))
    return job


def truth_qrels(job: SamplingSimulation) -> Qrels:
    if job.snapshot is not None:
        return snapshot_qrels(job.snapshot)
    if job.external_qrels is not None:
        return job.external_qrels.judgements
    qrels: Qrels = {}
    rows = PriorJudgement.objects.filter(prior_qrels=job.prior_qrels).values_list(
        "topic__external_id", "document__external_id", "relevance"
    )
    for topic, document, relevance in rows.iterator(chunk_size=5000):
        qrels.setdefault(topic, {})[document] = relevance
    return qrels


def run(job_id: int) -> str:
    """The task ``tasks.run_sampling_simulation``."""
    if not lifecycle.claim(SIMULATIONS, job_id, stage="reading the runs and the truth", progress=0.01):
        return "not queued"
    job = SamplingSimulation.objects.select_related("snapshot", "external_qrels", "prior_qrels").get(
        pk=job_id
    )
    total = job.samples * len(job.shares)
    try:
        with lifecycle.running(SIMULATIONS, job_id):
            runs = {
                run.tag: stored_run(run.pk)
                for run in job.project.runs.filter(withdrawn_at__isnull=True).order_by("tag")
            }
            qrels = truth_qrels(job)
            result = simulate(
                runs,
                qrels,
                shares=job.shares,
                samples=job.samples,
                depth=job.depth,
                top_depth=job.top_depth,
                seed=job.seed,
                progress=lambda done, _: lifecycle.progress(
                    SIMULATIONS, job_id, f"sample {done:,} of {total:,}", 0.02 + 0.97 * done / total
                ),
            )
    except SimulationError as error:
        lifecycle.fail(SIMULATIONS, job_id, str(error), stage="failed")
        return SamplingSimulation.Status.FAILED
    except lifecycle.JobStopped:
        return "stopped"
    except OperationalError:
        lifecycle.requeue(SIMULATIONS, job_id, "waiting to retry after a database error")
        raise
    except Exception as error:
        logger.exception("sampling simulation %s failed", job_id)
        lifecycle.fail(SIMULATIONS, job_id, str(error), stage="failed")
        raise
    lifecycle.finish(SIMULATIONS, job_id, result=as_result(result))
    return SamplingSimulation.Status.DONE


def as_result(result) -> dict:
    """The simulation as JSON: the truth's MAP per run, the pool's size, and per share its design,
    the means and every sample's figures."""
    return {
        "depth": result.depth,
        "pool_size": result.pool_size,
        "top_size": result.top_size,
        "truth_map": result.truth,
        "shares": [
            {
                "share": outcome.share,
                "design": outcome.design(),
                "summary": outcome.summary(),
                "figures": {name: list(values) for name, values in outcome.figures.items()},
            }
            for outcome in result.shares
        ],
    }


SIMULATIONS = lifecycle.register(
    lifecycle.JobKind(
        "sampling simulation", SamplingSimulation, "evaluation.sampling.tasks.run_sampling_simulation"
    )
)
