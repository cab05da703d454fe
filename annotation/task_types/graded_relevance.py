"""Graded relevance: how relevant, on the project's levels. ``{"label": <a level's value>}``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.task_types.base import (
    LABEL_RANGE,
    AnswerError,
    LabelTaskType,
    _integer,
    parse_levels,
)


class GradedRelevance(LabelTaskType):
    name = "graded_relevance"
    legend = "How relevant is this document to the topic?"
    judged_for_topic = True
    topic_heading = "Topic"
    config_field = "graded_levels"
    ordered = True

    def check_config(self, config: dict[str, Any]) -> None:
        levels = config.get("levels")
        if not isinstance(levels, list) or len(levels) < 2:
            raise AnswerError("field 'levels': at least two levels, each {'value': int, 'label': str}")
        if not all(isinstance(level, dict) for level in levels):
            raise AnswerError("field 'levels': each level is {'value': int, 'label': str}")
        values = [_integer(level.get("value"), f"levels[{i}].value") for i, level in enumerate(levels)]
        if len(set(values)) != len(values):
            raise AnswerError("field 'levels': level values must differ")
        low, high = LABEL_RANGE
        outside = next((value for value in values if not low <= value <= high), None)
        if outside is not None:
            raise AnswerError(f"field 'levels': a level value is between {low} and {high}, not {outside}")

    def label_names(self, config: dict[str, Any]) -> dict[int, str]:
        return {level["value"]: str(level.get("label", level["value"])) for level in config["levels"]}

    def choice_text(self, name: str) -> str:
        return name

    def config_from_form(self, cleaned: Mapping[str, Any]) -> dict[str, Any]:
        return {"levels": parse_levels(cleaned.get("graded_levels") or "")}

    def form_initial(self, config: dict[str, Any]) -> dict[str, Any]:
        return {"graded_levels": "\n".join(f"{lv['value']}: {lv['label']}" for lv in config["levels"])}
