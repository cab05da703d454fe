"""The qualification test: an annotator answers every qualification question of a project at
once; passing at the project's rate lets them judge. A thin shell over the task-type validator
and ``answers_agree``.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction
from django.utils import timezone

from annotation.models import Membership, Project, QualificationAttempt, Task
from annotation.task_types import AnswerError


class QualificationError(Exception):
    """The test cannot be taken or graded; the message says why."""


class PrefixedForm(Mapping):
    """The fields of one question of a form that holds several, each named ``<prefix><field>``."""

    def __init__(self, form: Mapping[str, str], prefix: str) -> None:
        self.form = form
        self.prefix = prefix

    def __getitem__(self, key: str) -> str:
        return self.form[self.prefix + key]

    def __iter__(self):
        return (key[len(self.prefix) :] for key in self.form if key.startswith(self.prefix))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def qualification_tasks(project: Project) -> list[Task]:
    return list(
        project.tasks.filter(kind=Task.Kind.QUALIFICATION)
        .select_related("topic", "document", "document_b")
        .order_by("id")
    )


def attempts_left(project: Project, annotator) -> int:
    taken = QualificationAttempt.objects.filter(project=project, annotator=annotator).count()
    return max(0, project.qualification_attempts_allowed - taken)


def grade_qualification(project: Project, annotator, form: Mapping[str, str]) -> QualificationAttempt:
    """Grade one sitting and record it; a pass qualifies the annotator.

    Every question must be answered (an error names the first one that is not). The member row is
    locked while grading, so two tabs cannot take more attempts than allowed.
    """
    with transaction.atomic():
        member = Membership.objects.locked(project, annotator)
        if member is None:
            raise QualificationError("You are not an annotator of this project.")
        if member.blocked:
            raise QualificationError("You can no longer take tasks in this project.")
        if member.qualified_at is not None:
            raise QualificationError("You have already passed the qualification test.")
        if attempts_left(project, annotator) == 0:
            raise QualificationError("You have used every attempt at this qualification test.")
        tasks = qualification_tasks(project)
        if not tasks:
            raise QualificationError("This project has no qualification test.")
        answers, correct = {}, 0
        for number, task in enumerate(tasks, start=1):
            try:
                raw = project.type.parse_form(project.config, PrefixedForm(form, f"q{task.pk}-"))
                answer = project.type.validate_answer(project.config, raw, require_rationale=False)
            except AnswerError as error:
                raise QualificationError(f"Question {number}: {error}") from error
            answers[str(task.pk)] = answer
            correct += project.type.answers_agree(task.gold_answer or {}, answer)
        passed = correct / len(tasks) >= project.qualification_pass_rate
        attempt = QualificationAttempt.objects.create(
            project=project,
            annotator=annotator,
            answers=answers,
            correct=correct,
            total=len(tasks),
            passed=passed,
        )
        if passed:
            member.qualified_at = timezone.now()
            member.save(update_fields=["qualified_at"])
        return attempt
