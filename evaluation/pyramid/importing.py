"""A LitePyramid campaign in one import: the inputs' reference summaries, their summary content units
(SCUs) and the systems' summaries become the presence items the crowd judges, one per (SCU, summary),
all or nothing.

Body (JSON)::

    {"references": [{"input": "d1", "id": "r1", "text": "…"}],                           # optional
     "units": [{"input": "d1", "id": "1", "statement": "…", "references": ["r1", "r2"]}],
     "summaries": [{"input": "d1", "system": "bart", "text": "…"}],
     "units_per_summary": 8, "seed": 0, "dry_run": false}                                # optional

An SCU's weight is the number of references that express it: its ``references`` (ids of its input's
references), or ``weight`` when they are not known; an SCU with neither is refused, naming it. Its
contributing ``spans`` (optional: ``[{"reference": "r1", "text": "the words of r1 that say it"}]``)
must be words of references that express it.
``units_per_summary`` asks the crowd about a seeded sample of each summary's SCUs (LitePyramid's
sampling; the Pyramid scores still use the whole pyramid). ``dry_run`` checks everything and answers
the counts, the number of presence items and the judgements they need (items × k), storing nothing.
The SCU becomes the item's topic (its statement the title the judging page shows, id ``input#unit``)
and the summary its document (id ``system#input``), with the item's system and input recorded.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections import Counter
from typing import Any

from django.db import transaction
from rest_framework import serializers

from annotation.items.importing import ImportProblem, ItemIn, import_items
from annotation.models import Project
from annotation.pay.costs import cost_of_judgements
from annotation.serializers import IdentifierField, StrictSerializer
from evaluation.models import ContentUnit, Reference

SEPARATOR = "#"


class PyramidReferenceIn(StrictSerializer):
    input = IdentifierField(max_length=80)
    id = IdentifierField(max_length=100)
    text = serializers.CharField(trim_whitespace=False)


class PyramidSpanIn(StrictSerializer):
    reference = IdentifierField(max_length=100)
    text = serializers.CharField(max_length=2000)


class PyramidUnitIn(StrictSerializer):
    input = IdentifierField(max_length=80)
    id = IdentifierField(max_length=19)
    statement = serializers.CharField(max_length=2000)
    references = serializers.ListField(child=IdentifierField(max_length=100), required=False)
    weight = serializers.IntegerField(min_value=1, max_value=1000, required=False)
    written_by = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
    spans = PyramidSpanIn(many=True, required=False, default=list)


class PyramidSummaryIn(StrictSerializer):
    input = IdentifierField(max_length=80)
    system = IdentifierField(max_length=100)
    text = serializers.CharField(trim_whitespace=False)


class PyramidIn(StrictSerializer):
    references = PyramidReferenceIn(many=True, required=False, default=list)
    units = PyramidUnitIn(many=True, allow_empty=False)
    summaries = PyramidSummaryIn(many=True, allow_empty=False)
    units_per_summary = serializers.IntegerField(min_value=1, required=False, allow_null=True, default=None)
    seed = serializers.IntegerField(min_value=0, required=False, default=0)
    dry_run = serializers.BooleanField(required=False, default=False)


def unit_topic(input_id: str, unit_id: str) -> str:
    return f"{input_id}{SEPARATOR}{unit_id}"


def summary_document(system: str, input_id: str) -> str:
    return f"{system}{SEPARATOR}{input_id}"


def unit_weights(units: list[dict], references: list[dict]) -> list[tuple[int, list[str]]]:
    """Each SCU's weight and the references expressing it; ImportProblem names an SCU with no
    reference, one naming a reference its input lacks, an SCU given twice, and a span that is not
    its references' (``check_spans``)."""
    known: dict[str, set[str]] = {}
    texts = {(ref["input"], ref["id"]): " ".join(ref["text"].split()) for ref in references}
    for index, ref in enumerate(references):
        if ref["id"] in known.setdefault(ref["input"], set()):
            raise ImportProblem(
                f"references[{index}].id", f"{ref['id']!r} appears twice for input {ref['input']!r}"
            )
        known[ref["input"]].add(ref["id"])
    seen: set[tuple[str, str]] = set()
    out = []
    for index, unit in enumerate(units):
        where = f"units[{index}]"
        key = (unit["input"], unit["id"])
        if key in seen:
            raise ImportProblem(
                f"{where}.id", f"SCU {unit['id']!r} appears twice for input {unit['input']!r}"
            )
        seen.add(key)
        named = list(dict.fromkeys(unit.get("references") or []))
        if named:
            missing = [r for r in named if r not in known.get(unit["input"], set())]
            if missing:
                raise ImportProblem(
                    f"{where}.references", f"input {unit['input']!r} has no reference {missing[0]!r}"
                )
            if "weight" in unit and unit["weight"] != len(named):
                raise ImportProblem(
                    f"{where}.weight", f"{unit['weight']} but {len(named)} references name it"
                )
            out.append((len(named), named))
        elif "weight" in unit:
            out.append((unit["weight"], []))
        else:
            raise ImportProblem(
                where, "an SCU with no reference: give the references that express it, or its weight"
            )
        check_spans(where, unit, named, texts)
        if len(unit_topic(unit["input"], unit["id"])) > 100:
            raise ImportProblem(
                f"{where}.id", "the input's id and the SCU's together are over 100 characters"
            )
    return out


def check_spans(where: str, unit: dict, named: list[str], texts: dict[tuple[str, str], str]) -> None:
    """An SCU's contributing spans must be words (spacing aside) of references that express it."""
    for number, span in enumerate(unit.get("spans") or []):
        if named and span["reference"] not in named:
            raise ImportProblem(
                f"{where}.spans[{number}].reference",
                f"reference {span['reference']!r} does not express this SCU",
            )
        text = texts.get((unit["input"], span["reference"]))
        if text is not None and " ".join(span["text"].split()) not in text:
            raise ImportProblem(
                f"{where}.spans[{number}].text", f"reference {span['reference']!r} does not hold these words"
            )


def import_pyramid(project: Project, body: Any) -> dict:
    """Validate and store the body (the module's docstring); returns the counts. ImportProblem (or a
    DRF ValidationError for the body's shape) names the field; nothing is stored then."""
    if project.task_type != Project.TaskType.SCU_PRESENCE:
        raise ImportProblem(
            "task_type", f"a Pyramid import needs a scu_presence project, not {project.task_type}"
        )
    checked = PyramidIn(data=body)
    checked.is_valid(raise_exception=True)
    data = checked.validated_data
    units, summaries, references = data["units"], data["summaries"], data["references"]
    weights = unit_weights(units, references)
    by_input: dict[str, list[str]] = {}
    for unit in units:
        by_input.setdefault(unit["input"], []).append(unit["id"])
    twice = Counter((s["system"], s["input"]) for s in summaries)
    items: list[ItemIn] = []
    rng = random.Random(data["seed"])
    for index, summary in enumerate(summaries):
        system, input_id = summary["system"], summary["input"]
        if twice[(system, input_id)] > 1:
            raise ImportProblem(f"summaries[{index}]", f"{system!r} has two summaries of input {input_id!r}")
        asked = by_input.get(input_id)
        if not asked:
            raise ImportProblem(f"summaries[{index}].input", f"input {input_id!r} has no SCUs")
        if data["units_per_summary"] and data["units_per_summary"] < len(asked):
            asked = sorted(rng.sample(asked, data["units_per_summary"]), key=asked.index)
        document = summary_document(system, input_id)
        items += [
            {"topic": unit_topic(input_id, unit), "document": document, "system": system, "input": input_id}
            for unit in asked
        ]
    counts = {
        "units_created": len(units),
        "summaries_created": len(summaries),
        "references_created": len(references),
        "tasks_created": len(items),
        "judgements_needed": len(items) * project.assignments_per_task,
        "dry_run": data["dry_run"],
        # What those judgements would cost paid workers, with the project's pay settings (else null).
        "cost": cost_of_judgements(project, len(items) * project.assignments_per_task),
    }
    if data["dry_run"]:
        return counts
    with transaction.atomic():
        result = import_items(
            project,
            topics=[
                {"id": unit_topic(u["input"], u["id"]), "title": u["statement"], "description": ""}
                for u in units
            ],
            documents=[
                {"id": summary_document(s["system"], s["input"]), "title": "", "text": s["text"]}
                for s in summaries
            ],
            items=items,
        )
        topics = dict(project.topics.values_list("external_id", "pk"))
        ContentUnit.objects.bulk_create(
            ContentUnit(
                project=project,
                topic_id=topics[unit_topic(u["input"], u["id"])],
                input_id=u["input"],
                unit_id=u["id"],
                weight=weight,
                references=named,
                written_by=u.get("written_by", ""),
                spans=[dict(span) for span in u.get("spans") or []],
            )
            for u, (weight, named) in zip(units, weights, strict=True)
        )
        Reference.objects.bulk_create(
            # The reference's id is its writer, as the SCUs name it.
            Reference(project=project, input_id=r["input"], text=r["text"], writer=r["id"], source="imported")
            for r in references
        )
    return counts | {"tasks_created": result.tasks_created}


def read_rows(name: str, text: str) -> list[dict]:
    """The rows of a CSV (a header line; a unit's ``references`` as ids separated by spaces) or JSON
    Lines file, by its name's ending; ImportProblem names the file and line that cannot be read."""
    if name.endswith(".csv"):
        rows = list(csv.DictReader(io.StringIO(text)))
        for row in rows:
            if "references" in row:
                row["references"] = (row["references"] or "").split()
            for key in ("weight",):
                if key in row and not row[key]:
                    del row[key]
        return rows
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as error:
                raise ImportProblem(f"{name} line {number}", f"not JSON: {error}") from error
    return rows
