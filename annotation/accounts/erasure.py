"""Erasing an annotator's personal data in a project on request: their platform id (and the
platform's ids of their sessions) and their answers about themselves. Their judgements stay, under
the pseudonym they always had, and the erasure is recorded in the project's history (naming the
pseudonym, never the erased id).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from annotation.models import DemographicResponse, PlatformWorker, Project, ProjectEvent, StudySession


@dataclass(frozen=True)
class Erasure:
    pseudonym: str
    platform_id_erased: bool
    answers_erased: bool

    @property
    def summary(self) -> str:
        erased = [
            what
            for what, done in (
                ("their platform id", self.platform_id_erased),
                ("their answers about themselves", self.answers_erased),
            )
            if done
        ]
        if not erased:
            return f"{self.pseudonym} had no personal data here to erase; their judgements stay."
        return (
            f"Erased {' and '.join(erased)} of {self.pseudonym}; their judgements stay under this pseudonym."
        )


def erase_personal_data(project: Project, annotator, by) -> Erasure:
    with transaction.atomic():
        worker = (
            PlatformWorker.objects.select_for_update().filter(project=project, annotator=annotator).first()
        )
        had_id = worker is not None and worker.erased_at is None
        if worker is not None and had_id:
            PlatformWorker.objects.filter(pk=worker.pk).update(platform_id="", erased_at=timezone.now())
            for session in StudySession.objects.filter(worker=worker):  # each keeps a key of its own
                session.platform_session, session.platform_study, session.submit_to = (
                    f"erased-{session.pk}",
                    "",
                    "",
                )
                session.save(update_fields=["platform_session", "platform_study", "submit_to"])
        answers, _ = DemographicResponse.objects.filter(project=project, annotator=annotator).delete()
        erasure = Erasure(annotator.username, had_id, bool(answers))
        ProjectEvent.objects.create(
            project=project,
            actor=by,
            action=ProjectEvent.Action.PERSONAL_DATA_ERASED,
            summary=erasure.summary,
            details={
                "annotator": annotator.username,
                "platform_id": erasure.platform_id_erased,
                "answers": erasure.answers_erased,
            },
        )
    return erasure
