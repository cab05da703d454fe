"""Content-unit writing (the Pyramid method's expert step, Nenkova & Passonneau 2004): the annotator reads
an input's reference summaries (the item's document, each reference under its label) and writes the
summary content units (SCUs) they express, ticking for each the references that express it.
``{"units": [{"statement": "…", "references": ["A", "C"]}, …]}``.

Config (optional): ``{"references": ["A", "B", "C", "D"], "max_units": 12}``, the labels the references
carry in the document and how many SCUs one answer may hold. Nothing is voted on: the researcher merges
the writers' SCUs on the written-units page (``evaluation.pyramid.written``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from annotation.task_types.base import AnswerError, TaskType, _integer

DEFAULT_REFERENCES = ["A", "B", "C", "D"]
DEFAULT_MAX_UNITS = 12
MAX_STATEMENT = 300


def references_of(config: dict[str, Any]) -> list[str]:
    return list(config.get("references") or DEFAULT_REFERENCES)


def max_units_of(config: dict[str, Any]) -> int:
    return int(config.get("max_units") or DEFAULT_MAX_UNITS)


def normalised(statement: str) -> str:
    """A statement as duplicates are found: case, spacing and end punctuation ignored."""
    return re.sub(r"\s+", " ", statement.casefold()).strip(" .;:,!?")


class ScuWriting(TaskType):
    name = "scu_writing"
    legend = "Write the content units these references express"
    template = "annotation/answers/units.html"
    is_free_text = True  # written, not voted on: no ground truth, no gold answer
    answered_by_keys = False

    def check_config(self, config: dict[str, Any]) -> None:
        references = config.get("references", DEFAULT_REFERENCES)
        if (
            not isinstance(references, list)
            or not 1 <= len(references) <= 8
            or not all(isinstance(r, str) and re.fullmatch(r"[A-Za-z0-9_-]{1,20}", r) for r in references)
            or len(set(references)) != len(references)
        ):
            raise AnswerError('field \'references\': 1 to 8 different labels, such as ["A", "B"]')
        if "max_units" in config and not 1 <= _integer(config["max_units"], "max_units") <= 30:
            raise AnswerError("field 'max_units': between 1 and 30")

    def clean_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        units = answer.get("units")
        if not isinstance(units, list) or not units:
            raise AnswerError("field 'units': write at least one content unit")
        if len(units) > max_units_of(config):
            raise AnswerError(f"field 'units': at most {max_units_of(config)} content units")
        allowed = references_of(config)
        cleaned, seen = [], set()
        for number, unit in enumerate(units, start=1):
            where = f"field 'units[{number - 1}]'"
            if not isinstance(unit, dict):
                raise AnswerError(f"{where}: {{'statement': …, 'references': […]}}")
            statement = unit.get("statement")
            if not isinstance(statement, str) or not statement.strip():
                raise AnswerError(f"{where}: content unit {number} has no statement")
            if len(statement) > MAX_STATEMENT:
                raise AnswerError(f"{where}: content unit {number} is over {MAX_STATEMENT} characters")
            named = unit.get("references")
            if not isinstance(named, list) or not named:
                raise AnswerError(
                    f"{where}: content unit {number} has no reference: tick the references that express it"
                )
            unknown = [r for r in named if r not in allowed]
            if unknown:
                raise AnswerError(f"{where}: content unit {number}: no reference {unknown[0]!r}")
            key = normalised(statement)
            if key in seen:
                raise AnswerError(f"{where}: content unit {number} repeats an earlier one")
            seen.add(key)
            cleaned.append(
                {"statement": " ".join(statement.split()), "references": [r for r in allowed if r in named]}
            )
        return {"units": cleaned}

    def answer_from_form(self, config: dict[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
        """Rows ``unit-N-statement`` with boxes ``unit-N-ref-LABEL``; rows left blank are not units."""
        units = []
        for row in range(max_units_of(config)):
            statement = (form.get(f"unit-{row}-statement") or "").strip()
            named = [r for r in references_of(config) if form.get(f"unit-{row}-ref-{r}")]
            if statement or named:
                units.append({"statement": statement, "references": named})
        return {"units": units}

    def describe_answer(self, config: dict[str, Any], answer: dict[str, Any]) -> str:
        units = answer.get("units") or []
        return "; ".join(f"“{u['statement']}” ({', '.join(u['references'])})" for u in units)

    def widget_fields(self, config: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        written = list(answer.get("units") or [])
        references = references_of(config)
        rows = []
        for row in range(max_units_of(config)):
            unit = written[row] if row < len(written) else {"statement": "", "references": []}
            rows.append(
                {
                    "number": row + 1,
                    "name": f"unit-{row}",
                    "statement": unit["statement"],
                    "references": [(r, r in unit["references"]) for r in references],
                }
            )
        return {"rows": rows}
