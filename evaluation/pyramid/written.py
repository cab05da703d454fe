"""The content units written in a ``scu_writing`` project (the Pyramid method's expert step), gathered per
input for the researcher to merge, and handed on as the SCUs of a LitePyramid import.

1. Every writer's current answer on every input gives its units (statement, references it ticked).
2. Units whose statements are the same but for case, spacing and end punctuation
   (``scu_writing.normalised``) are one group at once; the researcher merges others (``UnitMerge``:
   these groups are one SCU, worded so).
3. A group's references are every reference any of its units named, so its weight is how many
   references express it, as Nenkova & Passonneau weigh an SCU; its writers are listed.

``import_units`` gives the groups as the Pyramid import's ``units`` (JSON Lines for
``manage.py import_pyramid --units``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.models import Judgement, Project
from annotation.task_types.scu_writing import normalised, references_of
from evaluation.models import UnitMerge

WRITTEN_BY = "merged from the writers' units"


class MergeProblem(ValueError):
    """A merge that cannot be made; ``field`` names what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


@dataclass
class Group:
    """One SCU of an input: its statement, the references expressing it, who wrote it, and the
    normalised statements it stands for (more than one once merged)."""

    statement: str
    references: list[str]
    writers: list[str]
    keys: list[str] = field(default_factory=list)
    merge: int | None = None  # the UnitMerge that made it, to undo

    @property
    def weight(self) -> int:
        return len(self.references)


def written_units(project: Project) -> dict[str, list[Group]]:
    """``{input: [Group, …]}``, inputs and groups in the order first written."""
    order = references_of(project.config)
    inputs: dict[str, dict[str, Group]] = {}
    judgements = (
        Judgement.objects.of_items(project)
        .select_related("task__document", "annotator")
        .order_by("task_id", "annotator__username")
    )
    for judgement in judgements:
        input_id = judgement.task.input_id or judgement.task.document.external_id
        groups = inputs.setdefault(input_id, {})
        for unit in (judgement.answer or {}).get("units", []):
            key = normalised(unit["statement"])
            group = groups.setdefault(key, Group(unit["statement"], [], [], [key]))
            group.references = [r for r in order if r in group.references or r in unit["references"]]
            if judgement.annotator.username not in group.writers:
                group.writers.append(judgement.annotator.username)
    merged = {input_id: list(groups.values()) for input_id, groups in inputs.items()}
    for merge in UnitMerge.objects.filter(project=project).order_by("pk"):
        listed = merged.get(merge.input_id, [])
        chosen = [g for g in listed if set(g.keys) & set(merge.keys)]
        if not chosen:
            continue  # the units it merged were corrected away
        one = Group(
            merge.statement,
            [r for r in order if any(r in g.references for g in chosen)],
            list(dict.fromkeys(w for g in chosen for w in g.writers)),
            [k for g in chosen for k in g.keys],
            merge.pk,
        )
        gone = {id(g) for g in chosen[1:]}
        merged[merge.input_id] = [one if g is chosen[0] else g for g in listed if id(g) not in gone]
    return merged


def merge_units(project: Project, user, input_id: str, keys: list[str], statement: str) -> UnitMerge:
    """Record that these groups of ``input_id`` (by any of their keys) are one SCU worded ``statement``."""
    statement = " ".join(statement.split())
    if not statement:
        raise MergeProblem("statement", "word the merged content unit")
    if len(statement) > 300:
        raise MergeProblem("statement", "at most 300 characters")
    groups = written_units(project).get(input_id)
    if groups is None:
        raise MergeProblem("input", f"no content units were written for input {input_id!r}")
    chosen = [g for g in groups if set(g.keys) & set(keys)]
    if len(chosen) < 2:
        raise MergeProblem("keys", "tick at least two content units of the input to merge")
    return UnitMerge.objects.create(
        project=project,
        input_id=input_id,
        keys=[k for g in chosen for k in g.keys],
        statement=statement,
        created_by=user,
    )


def import_units(project: Project) -> list[dict]:
    """The groups as the Pyramid import's ``units``: ids numbered per input from 1."""
    return [
        {
            "input": input_id,
            "id": str(number),
            "statement": group.statement,
            "references": group.references,
            "written_by": f"{', '.join(group.writers)} ({WRITTEN_BY})"[:200],
        }
        for input_id, groups in written_units(project).items()
        for number, group in enumerate(groups, start=1)
    ]
