"""Small builders for annotation tests."""

from __future__ import annotations

from annotation.models import Project
from evaluation.collection.flow import import_collection

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
LIKERT_CONFIG = {"dimensions": ["quality", "coherence"], "scale": [1, 5]}


def project_form(**fields: str) -> dict[str, str]:
    """A valid new-project or settings form (binary relevance, k = 3, the defaults), with ``fields``
    changed or added."""
    return {
        "name": "Test project",
        "task_type": "binary_relevance",
        "assignments_per_task": "3",
        "assignment_minutes": "30",
        "serve_order": "pool",
        "gold_rate": "0",
        "attention_rate": "0",
        "qualification_pass_rate": "0.8",
        "qualification_attempts_allowed": "2",
        "quality_threshold": "0.7",
        "ground_truth_method": "majority",
        "rating_normalisation": "none",
        "active": "on",
        **fields,
    }


def make_project(owner, annotators=(), k: int = 3, pool_depth: int = 2, **settings) -> Project:
    project = Project.objects.create(name="Test project", owner=owner, assignments_per_task=k, **settings)
    project.annotators.set(annotators)
    import_collection(project, topics=TOPICS, documents=DOCUMENTS, runs=[RUN_A, RUN_B], pool_depth=pool_depth)
    return project


def make_gold_project(
    owner, annotators=(), *, items: int = 20, gold: int = 5, k: int = 2, **settings
) -> Project:
    """Binary relevance with ``items`` items and ``gold`` gold items (expected label: 1 for even ids)."""
    project = Project.objects.create(
        name="Relevance project", owner=owner, assignments_per_task=k, **settings
    )
    project.annotators.set(annotators)
    documents = [{"id": f"d{i}", "text": f"document number {i}"} for i in range(items + gold)]
    import_collection(
        project,
        topics=[{"id": "1", "title": "gas flow"}],
        documents=documents,
        items=[{"topic": "1", "document": f"d{i}"} for i in range(items)],
        gold=[
            {
                "topic": "1",
                "document": f"d{i}",
                "answer": {"label": int(i % 2 == 0)},
                "explanation": "Because.",
            }
            for i in range(items, items + gold)
        ],
    )
    return project


def make_likert_project(owner, annotators=(), *, items: int = 10, k: int = 2, **settings) -> Project:
    """A Likert project rating ``items`` summaries of one source on quality and coherence, 1–5."""
    project = Project.objects.create(
        name="Likert project",
        owner=owner,
        assignments_per_task=k,
        task_type=Project.TaskType.LIKERT,
        config=LIKERT_CONFIG,
        **settings,
    )
    project.annotators.set(annotators)
    import_collection(
        project,
        topics=[{"id": "src", "title": "A dialogue about lunch plans"}],
        documents=[
            {"id": f"s{i}", "text": f"summary {i} says they meet for lunch at noon"} for i in range(items)
        ],
        items=[{"topic": "src", "document": f"s{i}"} for i in range(items)],
        seed=7,
    )
    return project
