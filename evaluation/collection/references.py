"""Reference texts in: one or several per input of a text project, imported with the items or alone
(the metrics of ``evaluation.texts`` score each output against its input's references)."""

from __future__ import annotations

from annotation.models import Project
from evaluation.models import Reference


def import_references(project: Project, references: list[dict], *, source: str = "imported") -> int:
    """Store ``[{"input", "text", "writer"}]`` as references of ``project``; returns how many."""
    rows = [
        Reference(
            project=project,
            input_id=reference["input"],
            text=reference["text"],
            writer=reference.get("writer", ""),
            source=source,
        )
        for reference in references
    ]
    Reference.objects.bulk_create(rows, batch_size=2000)
    return len(rows)
