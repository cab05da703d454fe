"""Small builders for annotation tests."""

from __future__ import annotations

from annotation.importing import import_collection
from annotation.models import Project

TOPICS = [
    {"id": "401", "title": "heat conduction in composite slabs", "description": "Any solved problem."},
    {"id": "402", "title": "chemically reacting gas flow"},
]
DOCUMENTS = [{"id": f"d{i}", "title": f"Document {i}", "text": f"Text of document {i}."} for i in range(1, 7)]
RUN_A = "\n".join(
    [
        "401 Q0 d1 1 9.0 runA",
        "401 Q0 d2 2 8.0 runA",
        "401 Q0 d3 3 7.0 runA",
        "402 Q0 d4 1 5.0 runA",
        "402 Q0 d5 2 4.0 runA",
    ]
)
RUN_B = "\n".join(["401 Q0 d3 1 3.0 runB", "401 Q0 d6 2 2.0 runB", "402 Q0 d6 1 1.0 runB"])


def make_project(owner, annotators=(), k: int = 3, pool_depth: int = 2) -> Project:
    project = Project.objects.create(name="Test project", owner=owner, assignments_per_task=k)
    project.annotators.set(annotators)
    import_collection(project, topics=TOPICS, documents=DOCUMENTS, runs=[RUN_A, RUN_B], pool_depth=pool_depth)
    return project
