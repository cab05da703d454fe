"""Scores of a model-based metric computed elsewhere (BERTScore, COMET, an LLM judge's rating, …),
imported onto a done text evaluation's outputs: the metric then joins the per-system means, the
meta-evaluation's heat map and scatter, the ranking accuracy and Williams' test like a built-in one.

The file gives one score per output: CSV with a header naming system, input and value, or JSON Lines
of ``{"system", "input", "value"}``. Every output the evaluation scored must have exactly one score,
and only those; anything else is refused naming its line, and nothing is stored. The metric's
direction (is a higher score better?) and signature (the model, its version, its settings) are kept
with the evaluation: a lower-is-better metric's figures are those of its negation, as TER's and WER's.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass

from django.db import transaction

from evaluation.metrics.text.scores import METRICS
from evaluation.models import OutputScore, TextEvaluation

NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]{0,39}$")
SIGNATURE_LENGTH = 500


class ScoreImportError(ValueError):
    """The scores cannot be imported; ``field`` names the request's field at fault."""

    def __init__(self, message: str, field: str = "file") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class ScoreRow:
    line: int
    system: str
    input: str
    value: float


def decoded(data: bytes) -> str:
    """A scores file's text (a byte-order mark dropped); ScoreImportError if it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ScoreImportError("the file is not UTF-8 text") from None


def read_score_rows(text: str) -> list[ScoreRow]:
    """The rows of a CSV (header: system, input, value) or JSON Lines text, each with its line."""
    stripped = text.lstrip()
    rows = _json_lines(text) if stripped.startswith("{") else _csv_rows(text)
    if not rows:
        raise ScoreImportError("the file holds no scores")
    return rows


def _csv_rows(text: str) -> list[ScoreRow]:
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in ("system", "input", "value") if c not in (reader.fieldnames or [])]
    if missing:
        raise ScoreImportError(
            f"line 1: the header must name system, input and value (CSV), or each line be a JSON object; "
            f"missing {missing[0]}"
        )
    return [
        _row(line, row.get("system"), row.get("input"), row.get("value"))
        for line, row in enumerate(reader, start=2)
    ]


def _json_lines(text: str) -> list[ScoreRow]:
    rows = []
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            found = json.loads(raw)
        except json.JSONDecodeError as error:
            raise ScoreImportError(f"line {line}: not JSON ({error.msg})") from None
        if not isinstance(found, dict):
            raise ScoreImportError(f"line {line}: each line must be an object with system, input and value")
        rows.append(_row(line, found.get("system"), found.get("input"), found.get("value")))
    return rows


def _row(line: int, system, input_id, value) -> ScoreRow:
    for name, given in (("system", system), ("input", input_id)):
        if not isinstance(given, str | int) or not str(given).strip():
            raise ScoreImportError(f"line {line}: {name} is missing")
    if isinstance(value, bool):
        value = None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ScoreImportError(f"line {line}: value is not a number: {value!r}") from None
    if not math.isfinite(number):
        raise ScoreImportError(f"line {line}: value is not finite: {value!r}")
    return ScoreRow(line, str(system).strip(), str(input_id).strip(), number)


def check_request(evaluation: TextEvaluation, name: str, signature: str, replace: bool) -> None:
    """ScoreImportError unless scores named ``name`` may join this evaluation."""
    if evaluation.status != TextEvaluation.Status.DONE:
        raise ScoreImportError(
            "the text evaluation is not done: its outputs are not all scored", "evaluation"
        )
    if not NAME.match(name):
        raise ScoreImportError(
            "a metric's name starts with a letter; at most 40 letters, digits, '.', '_' or '-'", "metric"
        )
    if name in METRICS:
        raise ScoreImportError(f"{name} is a metric Cranfield computes: give yours another name", "metric")
    if name in evaluation.metrics and not replace:
        raise ScoreImportError(
            f"this evaluation has {name} already: import with replace to replace its scores", "metric"
        )
    if len(signature) > SIGNATURE_LENGTH:
        raise ScoreImportError(f"at most {SIGNATURE_LENGTH} characters", "signature")


def import_metric_scores(
    evaluation: TextEvaluation,
    *,
    name: str,
    rows: list[ScoreRow],
    higher_is_better: bool = True,
    signature: str = "",
    replace: bool = False,
) -> dict:
    """Store metric ``name``'s score of every output of ``evaluation``, all or nothing; what was
    stored: ``{"metric", "outputs", "systems", "higher_is_better", "signature"}``."""
    check_request(evaluation, name, signature, replace)
    with transaction.atomic():
        outputs = {
            (o.system_id, o.input_id): o for o in evaluation.outputs.select_for_update().order_by("pk")
        }
        seen: dict[tuple[str, str], int] = {}
        for row in rows:
            key = (row.system, row.input)
            if key in seen:
                raise ScoreImportError(
                    f"line {row.line}: system {row.system!r} on input {row.input!r} again (line {seen[key]})"
                )
            if key not in outputs:
                raise ScoreImportError(
                    f"line {row.line}: this evaluation scored no output of system {row.system!r} "
                    f"on input {row.input!r}"
                )
            seen[key] = row.line
            outputs[key].scores = {**outputs[key].scores, name: row.value}
        missing = sorted(outputs.keys() - seen.keys())
        if missing:
            system, input_id = missing[0]
            raise ScoreImportError(
                f"{len(missing)} of the evaluation's {len(outputs)} outputs have no score, the first: "
                f"system {system!r} on input {input_id!r}"
            )
        OutputScore.objects.bulk_update(outputs.values(), ["scores"], batch_size=2000)
        by_system: dict[str, list[float]] = {}
        for (system, _), output in outputs.items():
            by_system.setdefault(system, []).append(output.scores[name])
        per_system = {system: dict(means) for system, means in evaluation.per_system.items()}
        for system, values in by_system.items():
            per_system.setdefault(system, {})[name] = math.fsum(values) / len(values)
        evaluation.per_system = per_system
        if name not in evaluation.metrics:
            evaluation.metrics = [*evaluation.metrics, name]
        evaluation.signatures = {**evaluation.signatures, name: signature or "imported"}
        lower = [metric for metric in evaluation.lower_is_better if metric != name]
        evaluation.lower_is_better = lower if higher_is_better else [*lower, name]
        evaluation.save(update_fields=["per_system", "metrics", "signatures", "lower_is_better"])
    return {
        "metric": name,
        "outputs": len(outputs),
        "systems": len(by_system),
        "higher_is_better": higher_is_better,
        "signature": evaluation.signatures[name],
    }
