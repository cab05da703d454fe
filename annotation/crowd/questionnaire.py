"""The questions a researcher asks workers about themselves (age, languages, expertise, …), pure: the
questionnaire checked when it is set, each worker's answers read from the form, and a summary in
counts that names nobody.

A questionnaire is a list of questions, each ``{"name": "age", "question": "How old are you?",
"kind": "number", "min": 18, "max": 99}``; kinds are ``choice`` (with ``choices``), ``number``
(optional ``min``/``max``) and ``text``. Every question may be answered "prefer not to say", which
is stored as that phrase. Answers are stored apart from judgements (``DemographicResponse``).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence

PREFER_NOT = "prefer not to say"
KINDS = ("choice", "number", "text")
NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
MAX_QUESTIONS = 30
MAX_TEXT = 500
# Below this many answers a number's quartiles are not shown: with a handful of workers they point
# at people, which a summary in counts must not.
FEWEST_FOR_QUARTILES = 5


class QuestionnaireError(ValueError):
    """A questionnaire that cannot be asked; the message names the question and what is wrong."""


class AnswerProblem(ValueError):
    """An answer that cannot be taken; ``name`` is the question's."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


def validate_questionnaire(value: object) -> None:
    """Refuse a questionnaire that cannot be asked, naming the question (by number and name) and the
    key that is wrong. An empty list is no questionnaire."""
    if not isinstance(value, list):
        raise QuestionnaireError("write a list of questions")
    if len(value) > MAX_QUESTIONS:
        raise QuestionnaireError(f"at most {MAX_QUESTIONS} questions")
    names: set[str] = set()
    for number, question in enumerate(value, start=1):
        where = f"question {number}"
        if not isinstance(question, dict):
            raise QuestionnaireError(f"{where}: write an object with name, question and kind")
        unknown = set(question) - {"name", "question", "kind", "choices", "min", "max", "required"}
        if unknown:
            raise QuestionnaireError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        name = question.get("name")
        if not isinstance(name, str) or not NAME.match(name):
            raise QuestionnaireError(f"{where}: name must be lower-case letters, digits and _ (e.g. age)")
        where = f"question {number} ({name})"
        if name in names:
            raise QuestionnaireError(f"{where}: the name is used twice")
        names.add(name)
        if not isinstance(question.get("question"), str) or not question["question"].strip():
            raise QuestionnaireError(f"{where}: write the question's text")
        _check_kind(where, question)


def _check_kind(where: str, question: dict) -> None:
    """What a question's kind asks of it: a choice's choices, a number's bounds."""
    kind = question.get("kind")
    if kind not in KINDS:
        raise QuestionnaireError(f"{where}: kind must be one of {', '.join(KINDS)}")
    choices = question.get("choices")
    if kind == "choice":
        if (
            not isinstance(choices, list)
            or len(choices) < 2
            or not all(isinstance(c, str) and c for c in choices)
        ):
            raise QuestionnaireError(f"{where}: give at least two choices, as text")
        if len(set(choices)) != len(choices) or PREFER_NOT in choices:
            raise QuestionnaireError(f"{where}: choices must differ (“{PREFER_NOT}” is always offered)")
    elif choices is not None:
        raise QuestionnaireError(f"{where}: only a choice question has choices")
    for bound in ("min", "max"):
        if bound in question and (kind != "number" or not isinstance(question[bound], (int, float))):
            raise QuestionnaireError(f"{where}: {bound} is a number, for a number question")
    if kind == "number" and question.get("min", float("-inf")) > question.get("max", float("inf")):
        raise QuestionnaireError(f"{where}: min is above max")


def read_answers(questions: Sequence[Mapping], form: Mapping[str, str]) -> dict[str, object]:
    """Each question's answer from the form (field ``q-<name>``, and ``q-<name>-prefer-not``);
    AnswerProblem naming the first question that is unanswered or answered wrongly."""
    answers: dict[str, object] = {}
    for question in questions:
        name = question["name"]
        if form.get(f"q-{name}-prefer-not"):
            answers[name] = PREFER_NOT
            continue
        raw = (form.get(f"q-{name}") or "").strip()
        if not raw:
            if question.get("required", True):
                raise AnswerProblem(f"Answer “{question['question']}” (or choose “{PREFER_NOT}”).", name)
            answers[name] = None
            continue
        answers[name] = _answer(question, raw)
    return answers


def _answer(question: Mapping, raw: str) -> object:
    name, kind = question["name"], question["kind"]
    if kind == "choice":
        if raw not in question["choices"]:
            raise AnswerProblem(f"Choose one of the answers to “{question['question']}”.", name)
        return raw
    if kind == "number":
        try:
            number = float(raw.replace(",", "."))
        except ValueError as error:
            raise AnswerProblem(f"Write a number for “{question['question']}”.", name) from error
        low, high = question.get("min"), question.get("max")
        if (low is not None and number < low) or (high is not None and number > high):
            raise AnswerProblem(
                f"“{question['question']}”: write a number from {low if low is not None else '…'} "
                f"to {high if high is not None else '…'}.",
                name,
            )
        return int(number) if number.is_integer() else number
    return raw[:MAX_TEXT]


def summarise(questions: Sequence[Mapping], responses: Sequence[Mapping[str, object]]) -> list[dict]:
    """Per question, what the answers add up to, naming no one: counts per choice (and of "prefer not
    to say"), a number's count and quartiles (from ``FEWEST_FOR_QUARTILES`` answers), and for free
    text only how many answered."""
    summary = []
    for question in questions:
        name = question["name"]
        given = [r.get(name) for r in responses if r.get(name) is not None]
        declined = sum(1 for value in given if value == PREFER_NOT)
        values = [value for value in given if value != PREFER_NOT]
        entry: dict[str, object] = {
            "name": name,
            "question": question["question"],
            "kind": question["kind"],
            "answered": len(values),
            "prefer_not": declined,
        }
        if question["kind"] == "choice":
            counts = Counter(values)
            entry["counts"] = [
                {"choice": choice, "count": counts.get(choice, 0)} for choice in question["choices"]
            ]
        elif question["kind"] == "number" and len(values) >= FEWEST_FOR_QUARTILES:
            numbers = sorted(float(v) for v in values)  # type: ignore[arg-type]  # numbers, as read_answers keeps them
            entry["quartiles"] = [round(q, 2) for q in statistics.quantiles(numbers, n=4)]
        summary.append(entry)
    return summary
