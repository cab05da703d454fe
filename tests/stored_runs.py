"""Stored run lines as rows, for tests that count or compare them (runs are stored as ranked lists)."""

from __future__ import annotations


def run_lines(**filters) -> list[tuple[str, str, str, int, float]]:
    """``(run tag, topic, document, rank, score)`` of every line of the runs ``filters`` select."""
    from evaluation.collection.runs import ranked_lists
    from evaluation.models import Run

    lines = []
    for run in Run.objects.filter(**filters).order_by("tag"):
        for topic, ranked in ranked_lists(run.pk).items():
            ranks = enumerate(zip(ranked.docnos, ranked.scores.tolist(), strict=True), start=1)
            lines.extend((run.tag, topic, document, rank, score) for rank, (document, score) in ranks)
    return lines
