"""Task types configured per project, and the one validator of an answer per type (pure; no Django).

A project's ``config`` (a dict, stored as JSON) says what is asked; ``validate_answer`` checks an
annotator's answer against it and returns it normalised. Views and API must both call this, so a
rule lives in one place.

Types and their config / answer:
- ``binary_relevance``: no config; answer ``{"label": 0|1}``.
- ``graded_relevance``: ``{"levels": [{"value": 0, "label": "Not relevant"}, ...]}``; answer
  ``{"label": <one of the values>}``.
- ``likert``: ``{"dimensions": ["quality", ...], "scale": [1, 5]}``; answer
  ``{"scores": {dimension: int in scale}}`` with every dimension present.
- ``free_text``: ``{"max_words": N}``; answer ``{"text": non-empty, at most N words}``.
- ``pairwise``: no config; answer ``{"label": 0|1}`` (0: the first output is better, 1: the second).
Any type may set ``"rationale_required": true``; the answer then needs a non-empty ``"rationale"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TASK_TYPES = ("binary_relevance", "graded_relevance", "likert", "free_text", "pairwise")


class AnswerError(ValueError):
    """An answer or configuration that does not fit its task type; the message names the field."""


def _integer(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AnswerError(f"field '{field}': expected an integer, got {value!r}")
    return value


def validate_config(task_type: str, config: dict[str, Any]) -> dict[str, Any]:
    """Check a project's task configuration; return it unchanged or raise AnswerError naming the field."""
    if task_type not in TASK_TYPES:
        known = ", ".join(TASK_TYPES)
        raise AnswerError(f"field 'task_type': unknown task type {task_type!r}; one of {known}")
    if task_type == "graded_relevance":
        levels = config.get("levels")
        if not isinstance(levels, list) or len(levels) < 2:
            raise AnswerError("field 'levels': at least two levels, each {'value': int, 'label': str}")
        if not all(isinstance(level, dict) for level in levels):
            raise AnswerError("field 'levels': each level is {'value': int, 'label': str}")
        values = [_integer(level.get("value"), f"levels[{i}].value") for i, level in enumerate(levels)]
        if len(set(values)) != len(values):
            raise AnswerError("field 'levels': level values must differ")
    elif task_type == "likert":
        dimensions = config.get("dimensions")
        if (
            not isinstance(dimensions, list)
            or not dimensions
            or not all(isinstance(d, str) and d for d in dimensions)
        ):
            raise AnswerError("field 'dimensions': a non-empty list of dimension names")
        if len(set(dimensions)) != len(dimensions):
            raise AnswerError("field 'dimensions': names must differ")
        scale = config.get("scale")
        if not isinstance(scale, list) or len(scale) != 2:
            raise AnswerError("field 'scale': [lowest, highest]")
        low, high = _integer(scale[0], "scale[0]"), _integer(scale[1], "scale[1]")
        if low >= high:
            raise AnswerError("field 'scale': lowest must be below highest")
    elif task_type == "free_text" and _integer(config.get("max_words"), "max_words") < 1:
        raise AnswerError("field 'max_words': at least 1")
    return config


def validate_answer(
    task_type: str, config: dict[str, Any], answer: dict[str, Any], *, require_rationale: bool = True
) -> dict[str, Any]:
    """Check an annotator's answer against the task type and its config; return the normalised answer.

    Raises AnswerError whose message names the offending field and says what is allowed.
    ``require_rationale=False`` checks an expected (gold) answer, which needs no rationale.
    """
    validate_config(task_type, config)
    if not isinstance(answer, dict):
        raise AnswerError("field 'answer': an object such as {\"label\": 1}")
    cleaned: dict[str, Any] = {}
    if task_type in ("binary_relevance", "pairwise"):
        label = _integer(answer.get("label"), "label")
        if label not in (0, 1):
            raise AnswerError(f"field 'label': 0 or 1, not {label}")
        cleaned["label"] = label
    elif task_type == "graded_relevance":
        label = _integer(answer.get("label"), "label")
        allowed = [level["value"] for level in config["levels"]]
        if label not in allowed:
            raise AnswerError(f"field 'label': one of {allowed}, not {label}")
        cleaned["label"] = label
    elif task_type == "likert":
        scores = answer.get("scores")
        if not isinstance(scores, dict):
            raise AnswerError("field 'scores': a score for every dimension")
        low, high = config["scale"]
        unknown = set(scores) - set(config["dimensions"])
        if unknown:
            raise AnswerError(f"field 'scores': unknown dimension(s) {sorted(unknown)}")
        cleaned["scores"] = {}
        for dimension in config["dimensions"]:
            if dimension not in scores:
                raise AnswerError(f"field 'scores.{dimension}': missing")
            score = _integer(scores[dimension], f"scores.{dimension}")
            if not low <= score <= high:
                raise AnswerError(f"field 'scores.{dimension}': between {low} and {high}, not {score}")
            cleaned["scores"][dimension] = score
    elif task_type == "free_text":
        text = answer.get("text")
        if not isinstance(text, str) or not text.strip():
            raise AnswerError("field 'text': write the text")
        words = len(text.split())
        if words > config["max_words"]:
            raise AnswerError(f"field 'text': at most {config['max_words']} words, got {words}")
        cleaned["text"] = text.strip()
    rationale = answer.get("rationale", "")
    if not isinstance(rationale, str):
        raise AnswerError("field 'rationale': text")
    if require_rationale and config.get("rationale_required") and not rationale.strip():
        raise AnswerError("field 'rationale': a rationale is required for this project")
    if rationale.strip():
        cleaned["rationale"] = rationale.strip()
    return cleaned


LABEL_TYPES = ("binary_relevance", "graded_relevance", "pairwise")
# Likert gold answers match when every dimension is within this many scale points.
LIKERT_GOLD_TOLERANCE = 1


def answers_agree(task_type: str, expected: dict[str, Any], given: dict[str, Any]) -> bool:
    """Does an answer match a gold answer? Labels must be equal; Likert scores within one point."""
    if task_type in LABEL_TYPES:
        return expected.get("label") == given.get("label")
    if task_type == "likert":
        wanted, got = expected.get("scores", {}), given.get("scores", {})
        return all(
            dimension in got and abs(got[dimension] - score) <= LIKERT_GOLD_TOLERANCE
            for dimension, score in wanted.items()
        )
    return False


def label_names(task_type: str, config: dict[str, Any]) -> dict[int, str]:
    """What each label value is called on the page and in feedback."""
    if task_type == "binary_relevance":
        return {1: "relevant", 0: "not relevant"}
    if task_type == "pairwise":
        return {0: "the first output is better", 1: "the second output is better"}
    if task_type == "graded_relevance":
        return {level["value"]: str(level.get("label", level["value"])) for level in config["levels"]}
    return {}


def describe_answer(task_type: str, config: dict[str, Any], answer: dict[str, Any]) -> str:
    """A short human description of an answer, e.g. "relevant" or "quality 4, coherence 3"."""
    if task_type in LABEL_TYPES:
        label = answer.get("label")
        return f"“{label_names(task_type, config).get(label, label)}”"
    if task_type == "likert":
        return ", ".join(f"{dimension} {score}" for dimension, score in answer.get("scores", {}).items())
    return f"“{answer.get('text', '')}”"


def answer_from_form(task_type: str, config: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
    """Turn submitted form fields into an answer for ``validate_answer``.

    Fields: ``label``; ``scores.<dimension>`` for Likert; ``text``; and ``rationale`` for every type.
    Unparseable numbers raise AnswerError naming the field.
    """
    answer: dict[str, Any] = {}

    def number(field: str) -> int:
        raw = (form.get(field) or "").strip()
        if not raw:
            raise AnswerError(f"field '{field}': choose an answer")
        try:
            return int(raw)
        except ValueError as error:
            raise AnswerError(f"field '{field}': expected a whole number, got {raw!r}") from error

    if task_type in LABEL_TYPES:
        answer["label"] = number("label")
    elif task_type == "likert":
        answer["scores"] = {d: number(f"scores.{d}") for d in config.get("dimensions", [])}
    elif task_type == "free_text":
        answer["text"] = form.get("text", "")
    if form.get("rationale"):
        answer["rationale"] = form.get("rationale", "")
    return answer
