"""Pairwise comparison: which of two outputs is better. ``{"label": 0|1}`` (0: the first)."""

from __future__ import annotations

from typing import Any

from annotation.task_types.base import (
    LabelTaskType,
)


class Pairwise(LabelTaskType):
    name = "pairwise"
    legend = "Which output is better?"
    compares_two = True

    def label_names(self, config: dict[str, Any]) -> dict[int, str]:
        return {0: "the first output is better", 1: "the second output is better"}

    def label_keys(self, values: list[int]) -> list[str]:
        return ["a" if value == 0 else "b" for value in values]
