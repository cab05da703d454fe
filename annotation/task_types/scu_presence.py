"""Content-unit presence (LitePyramid, Shapira et al. 2019): is this summary content unit (SCU) of the
input's reference summaries expressed in this system summary? ``{"label": 1|0}`` (present, absent).

An item's topic is the SCU (its statement is the topic's title) and its document the summary, so the
crowd's answers aggregate, agree and download as any label's do; ``evaluation.pyramid`` turns the
aggregated labels into Pyramid scores."""

from __future__ import annotations

from typing import Any

from annotation.task_types.base import LabelTaskType


class ScuPresence(LabelTaskType):
    name = "scu_presence"
    legend = "Does the summary express this content unit?"
    topic_heading = "Content unit"
    scores_outputs = True

    def label_names(self, config: dict[str, Any]) -> dict[int, str]:
        return {1: "present", 0: "absent"}

    def label_keys(self, values: list[int]) -> list[str]:
        return ["p" if value == 1 else "a" for value in values]
