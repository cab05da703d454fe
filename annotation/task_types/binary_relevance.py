"""Binary relevance: is this document relevant to the topic? ``{"label": 0|1}``."""

from __future__ import annotations

from typing import Any

from annotation.task_types.base import (
    LabelTaskType,
)


class BinaryRelevance(LabelTaskType):
    name = "binary_relevance"
    legend = "Is this document relevant to the topic?"
    judged_for_topic = True
    topic_heading = "Topic"

    def label_names(self, config: dict[str, Any]) -> dict[int, str]:
        return {1: "relevant", 0: "not relevant"}

    def label_keys(self, values: list[int]) -> list[str]:
        return ["r" if value == 1 else "n" for value in values]
