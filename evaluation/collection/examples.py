"""A small import body per task type, shown on the Import page (and imported by the tests, so an
example that stopped working would fail there before it misled anyone).

Each is the smallest body that shows what its type needs: relevance projects pool system runs over
topics and documents (with a gold item); rating projects list their items, naming the system and
input of each output, and the input's reference; free-text items give the text to write about;
pairwise items name two outputs and their systems.
"""

from __future__ import annotations

import json
from typing import Any

from annotation.models import Project
from annotation.task_types import TASK_TYPES, TaskType

TOPICS = [
    {"id": "1", "title": "jet noise reduction", "description": "How can the noise of jet engines be reduced?"}
]
ABSTRACTS = [
    {
        "id": "d1",
        "title": "Noise of subsonic jets",
        "text": "Measurements of the noise of cold subsonic jets.",
    },
    {"id": "d2", "text": "A theory of the boundary layer on a flat plate."},
    {"id": "d3", "text": "Mixing nozzles that lower the noise of a jet by 10 dB."},
]
RUNS = ["1 Q0 d1 1 12.5 bm25\n1 Q0 d2 2 9.1 bm25\n", "1 Q0 d2 1 0.8 tfidf\n1 Q0 d1 2 0.7 tfidf\n"]
# The configuration the examples of the other task types assume (a project has its own).
SAMPLE_CONFIGS: dict[str, dict[str, Any]] = {
    "graded_relevance": {
        "levels": [{"value": 0, "label": "Not relevant"}, {"value": 2, "label": "Relevant"}]
    },
    "likert": {"dimensions": ["informativeness"], "scale": [1, 5]},
    "free_text": {"max_words": 50},
}
ARTICLE = [{"id": "a1", "title": "Article 1: a storm closes the harbour"}]
ARTICLE_TEXT = "A storm closed the harbour on Monday. Boats stayed in port until the wind dropped."
SUMMARIES = [
    {"id": "a1-lead", "text": "A storm closed the harbour on Monday."},
    {"id": "a1-keywords", "text": "storm harbour closed boats Monday"},
]


def example_body(kind: TaskType, config: dict[str, Any]) -> dict[str, Any]:
    """The example import body for a project of task type ``kind`` with ``config``."""
    if kind.judged_for_topic:
        return {
            "topics": TOPICS,
            "documents": ABSTRACTS,
            "runs": RUNS,
            "pool_depth": 10,
            "gold": [
                {
                    "topic": "1",
                    "document": "d3",
                    "answer": {"label": max(kind.classes(config))},
                    "explanation": "It is about reducing jet noise.",
                }
            ],
        }
    if kind.compares_two:
        return {
            "topics": ARTICLE,
            "documents": SUMMARIES,
            "items": [
                {
                    "topic": "a1",
                    "document": "a1-lead",
                    "document_b": "a1-keywords",
                    "system": "lead",
                    "system_b": "keywords",
                }
            ],
        }
    if kind.is_free_text:
        return {
            "documents": [{"id": "a1", "title": ARTICLE[0]["title"], "text": ARTICLE_TEXT}],
            "items": [{"document": "a1", "input": "a1"}],
        }
    body: dict[str, Any] = {
        "topics": ARTICLE,
        "documents": SUMMARIES,
        "items": [
            {"topic": "a1", "document": summary["id"], "system": summary["id"].split("-")[1], "input": "a1"}
            for summary in SUMMARIES
        ],
    }
    if kind.is_rating:
        body["references"] = [{"input": "a1", "text": "Storm shuts the harbour.", "writer": "editor"}]
    return body


def example_json(kind: TaskType, config: dict[str, Any]) -> str:
    return json.dumps(example_body(kind, config), indent=2, ensure_ascii=False)


def other_examples(task_type: str) -> list[dict[str, str]]:
    """The examples of every task type but ``task_type``, each with the type's name as people say it."""
    return [
        {"label": Project.TaskType(name).label, "json": example_json(kind, SAMPLE_CONFIGS.get(name, {}))}
        for name, kind in TASK_TYPES.items()
        if name != task_type
    ]
