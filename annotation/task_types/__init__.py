"""Task types: what annotators are asked, one class per type in one registry (pure; no Django).

A project's ``task_type`` names one of ``TASK_TYPES``; its ``config`` (a dict, stored as JSON) says
what exactly is asked. Everything that differs between types lives on the type — the
configuration check, the answer check, the keys, the answer form's template, what is aggregated
and what counts as agreement — so the rest of the code asks ``project.type`` instead of comparing
strings, and adding a type means one module here (registered below) and one template under
``templates/annotation/answers/``.

Types and their config / answer:
- ``binary_relevance``: no config; answer ``{"label": 0|1}``.
- ``graded_relevance``: ``{"levels": [{"value": 0, "label": "Not relevant"}, ...]}``; answer
  ``{"label": <one of the values>}``.
- ``likert``: ``{"dimensions": ["quality", ...], "scale": [1, 5]}``, optionally with
  ``"anchors": {"1": "very poor", "5": "excellent"}`` (labels of points of the scale, shown on the
  judging page); answer ``{"scores": {dimension: int in scale}}`` with every dimension present.
- ``free_text``: ``{"max_words": N}``; answer ``{"text": non-empty, at most N words}``.
- ``pairwise``: no config; answer ``{"label": 0|1}`` (0: the first output is better, 1: the second).
- ``scu_presence``: no config; answer ``{"label": 1|0}`` (the content unit, the item's topic, is present
  in the summary, the item's document, or absent): LitePyramid's micro-task.
- ``scu_writing``: ``{"references": ["A", …], "max_units": N}`` (optional); answer ``{"units":
  [{"statement": …, "references": ["A", …]}, …]}``: the Pyramid method's expert step.
Any type may set ``"rationale_required": true``; the answer then needs a non-empty ``"rationale"``.
"""

from __future__ import annotations

from typing import Any

from annotation.task_types.base import (
    LABEL_RANGE,
    LIKERT_GOLD_TOLERANCE,
    AnswerError,
    AnswerWidget,
    Choice,
    Dimension,
    FormTextError,
    LabelTaskType,
    TaskType,
    describe_anchors,
    digit_keys,
    parse_anchors,
    parse_levels,
)
from annotation.task_types.binary_relevance import BinaryRelevance
from annotation.task_types.free_text import FreeText
from annotation.task_types.graded_relevance import GradedRelevance
from annotation.task_types.likert import Likert
from annotation.task_types.pairwise import Pairwise
from annotation.task_types.scu_presence import ScuPresence
from annotation.task_types.scu_writing import ScuWriting

__all__ = [
    "LABEL_RANGE",
    "LIKERT_GOLD_TOLERANCE",
    "TASK_TYPES",
    "AnswerError",
    "AnswerWidget",
    "Choice",
    "Dimension",
    "FormTextError",
    "LabelTaskType",
    "TaskType",
    "describe_anchors",
    "digit_keys",
    "parse_anchors",
    "parse_levels",
    "task_type",
    "validate_config",
]

TASK_TYPES: dict[str, TaskType] = {
    task_type.name: task_type
    for task_type in (
        BinaryRelevance(),
        GradedRelevance(),
        Likert(),
        FreeText(),
        Pairwise(),
        ScuPresence(),
        ScuWriting(),
    )
}


def task_type(name: str) -> TaskType:
    """The task type called ``name``; AnswerError naming the field if there is none."""
    try:
        return TASK_TYPES[name]
    except KeyError:
        known = ", ".join(TASK_TYPES)
        raise AnswerError(f"field 'task_type': unknown task type {name!r}; one of {known}") from None


def validate_config(name: str, config: Any) -> dict[str, Any]:
    """``task_type(name).validate_config(config)``: for callers that have only the type's name."""
    return task_type(name).validate_config(config)
