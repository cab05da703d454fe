"""What the annotation app announces to the apps that derive from its judgements.

``annotation`` knows nothing of ``evaluation``: the assignment engine calls
``announce_judgements_changed`` when a judgement is stored or corrected (or an annotator whose
judgements the ground truth leaves out is blocked or unblocked), the signal goes out once that
change is committed, and whoever listens (``evaluation.apps``) decides what to recompute.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.dispatch import Signal

logger = logging.getLogger(__name__)

# Sent with ``project_id``, after the change is committed.
judgements_changed = Signal()

# Sent with ``project``, ``noun`` ("topic" or "document") and ``ids`` (external ids) before topics or
# documents are deleted: each receiver answers ``(what, Counter {external id: how many})`` for the
# judgements it keeps of them outside this app (evaluation's prior sets: ``("prior judgement",
# …)``), which refuse the deletion as the crowd's own judgements do. Sent with ``send``, not
# ``send_robust``: a receiver that fails stops the deletion rather than lose what it keeps.
judged_elsewhere = Signal()


def announce_judgements_changed(project_id: int) -> None:
    """Send ``judgements_changed`` once the current transaction commits (at once in autocommit).

    Receivers run after the judgement is safely stored, so a failing receiver is logged rather
    than turned into an error for the annotator whose answer was kept.
    """

    def send() -> None:
        for receiver, outcome in judgements_changed.send_robust(sender=None, project_id=project_id):
            if isinstance(outcome, Exception):
                logger.error(
                    "judgements_changed receiver %r failed for project %s",
                    receiver,
                    project_id,
                    exc_info=outcome,
                )

    transaction.on_commit(send)
