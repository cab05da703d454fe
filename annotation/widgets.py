"""What the judging page shows for each task type, and which key does what (pure; no Django).

One place decides the answer widgets and keyboard shortcuts, so the judging page, the
correction page and the qualification test all look and behave the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .task_types import label_names

# Keys the page reserves for itself: submit, skip, undo.
RESERVED_KEYS = {"s": "skip", "u": "undo"}


@dataclass(frozen=True)
class Choice:
    value: int
    text: str
    key: str
    checked: bool = False


@dataclass(frozen=True)
class Dimension:
    name: str
    choices: list[Choice]


@dataclass(frozen=True)
class AnswerWidget:
    """Everything the answer form needs: label choices, Likert dimensions or a text box."""

    kind: str  # "choices", "likert" or "text"
    legend: str
    choices: list[Choice] = field(default_factory=list)
    dimensions: list[Dimension] = field(default_factory=list)
    text: str = ""
    max_words: int | None = None
    rationale_required: bool = False
    rationale: str = ""


def digit_keys(values: list[int]) -> list[str]:
    """One digit key per value; "" for a value without one (reached with the arrow keys).

    A value that is itself a digit is its own key (press 0-3 on a 0-3 scale). A 1-10 scale keys 10
    as 0. Any other scale is keyed by position, 1-9 then 0 for the tenth; the rest get no key.
    """
    if all(0 <= value <= 9 for value in values):
        return [str(value) for value in values]
    if values == list(range(1, 11)):
        return [str(value % 10) for value in values]
    return [str((position + 1) % 10) if position < 10 else "" for position in range(len(values))]


def _label_keys(task_type: str, values: list[int]) -> list[str]:
    """Keyboard keys for label values: r/n for relevance, a/b for pairwise, else digits."""
    if task_type == "binary_relevance":
        return ["r" if value == 1 else "n" for value in values]
    if task_type == "pairwise":
        return ["a" if value == 0 else "b" for value in values]
    return digit_keys(values)


LEGENDS = {
    "binary_relevance": "Is this document relevant to the topic?",
    "graded_relevance": "How relevant is this document to the topic?",
    "pairwise": "Which output is better?",
    "likert": "Rate the output",
    "free_text": "Write your text",
}


def answer_widget(
    task_type: str, config: dict[str, Any], answer: dict[str, Any] | None = None
) -> AnswerWidget:
    """The widget for a task type and config, pre-filled with ``answer`` when correcting one."""
    answer = answer or {}
    common = {
        "legend": LEGENDS[task_type],
        "rationale_required": bool(config.get("rationale_required")),
        "rationale": answer.get("rationale", ""),
    }
    if task_type in ("binary_relevance", "pairwise", "graded_relevance"):
        names = label_names(task_type, config)
        values = list(names) if task_type != "binary_relevance" else [1, 0]
        keys = _label_keys(task_type, values)
        choices = [
            Choice(
                value,
                names[value].capitalize() if task_type != "graded_relevance" else names[value],
                key,
                answer.get("label") == value,
            )
            for value, key in zip(values, keys, strict=True)
        ]
        return AnswerWidget("choices", choices=choices, **common)
    if task_type == "likert":
        low, high = config["scale"]
        scores = answer.get("scores", {})
        values = list(range(low, high + 1))
        keys = digit_keys(values)
        dimensions = [
            Dimension(
                name,
                [Choice(v, str(v), key, scores.get(name) == v) for v, key in zip(values, keys, strict=True)],
            )
            for name in config["dimensions"]
        ]
        return AnswerWidget("likert", dimensions=dimensions, **common)
    return AnswerWidget("text", text=answer.get("text", ""), max_words=config.get("max_words"), **common)
