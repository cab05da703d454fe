"""Free text (reference writing). ``{"text": …}``, at most ``max_words`` words."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.task_types.base import (
    AnswerError,
    TaskType,
    _integer,
)


class FreeText(TaskType):
    name = "free_text"
    legend = "Write your text"
    template = "annotation/answers/text.html"
    is_free_text = True
    answered_by_keys = False
    config_field = "max_words"

    def check_config(self, config: dict[str, Any]) -> None:
        if _integer(config.get("max_words"), "max_words") < 1:
            raise AnswerError("field 'max_words': at least 1")

    def clean_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        text = answer.get("text")
        if not isinstance(text, str) or not text.strip():
            raise AnswerError("field 'text': write the text")
        words = len(text.split())
        if words > config["max_words"]:
            raise AnswerError(f"field 'text': at most {config['max_words']} words, got {words}")
        return {"text": text.strip()}

    def answer_from_form(self, config: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
        return {"text": form.get("text", "")}

    def describe_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> str:
        return f"“{answer.get('text', '')}”"

    def widget_fields(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        return {"text": answer.get("text", ""), "max_words": config.get("max_words")}

    def config_from_form(self, cleaned: Mapping[str, Any]) -> dict[str, Any]:
        return {"max_words": cleaned.get("max_words")}

    def form_initial(self, config: dict[str, Any]) -> dict[str, Any]:
        return {"max_words": config["max_words"]}
