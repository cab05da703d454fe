"""What the evaluation app's lower features announce, so that control flows down.

Collection (imports, runs, bundles) and ground truth say what happened; scoring listens and decides
what to score again (``evaluation.scoring.receivers``, connected in ``evaluation.apps``). Prior
judgements say when they changed, and ground truth listens (a new snapshot merges them). Neither
collection nor ground truth imports scoring or texts (an import-linter contract holds it so).
Each signal is sent at once, in the announcer's transaction, as a direct call would be: what a
listener stores (an evaluation requested) commits or rolls back with what was announced, and the jobs it
queues are sent once that commits. A listener that fails is logged and does not undo what was stored.
"""

from __future__ import annotations

import logging

from django.dispatch import Signal

logger = logging.getLogger(__name__)

# A collection import was stored: ``project_id``, ``runs_added`` (how many runs it brought) and
# ``external_qrels_id`` (the reference qrels it brought, or None).
collection_imported = Signal()
# A project's runs changed otherwise (withdrawn, reinstated, deleted): ``project_id``.
runs_changed = Signal()
# A new ground-truth snapshot was written: ``snapshot_id``.
snapshot_written = Signal()
# A project's prior judgements or their precedence changed: ``project_id`` (ground truth listens).
prior_changed = Signal()


def _announce(signal: Signal, name: str, **facts: object) -> None:
    for receiver, outcome in signal.send_robust(sender=None, **facts):
        if isinstance(outcome, Exception):
            logger.error("%s receiver %r failed for %s", name, receiver, facts, exc_info=outcome)


def announce_collection_imported(
    project_id: int, runs_added: int, external_qrels_id: int | None = None
) -> None:
    _announce(
        collection_imported,
        "collection_imported",
        project_id=project_id,
        runs_added=runs_added,
        external_qrels_id=external_qrels_id,
    )


def announce_runs_changed(project_id: int) -> None:
    _announce(runs_changed, "runs_changed", project_id=project_id)


def announce_snapshot_written(snapshot_id: int) -> None:
    _announce(snapshot_written, "snapshot_written", snapshot_id=snapshot_id)


def announce_prior_changed(project_id: int) -> None:
    _announce(prior_changed, "prior_changed", project_id=project_id)
