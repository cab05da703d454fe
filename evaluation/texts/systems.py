"""Per-system human scores from the newest ground-truth snapshot: for a rating project the
SNOW-style systems × dimensions table (each system's mean rating per dimension with a bootstrap
interval over inputs, computed by ``metrics.meta_evaluation``, and the agreement per dimension);
for a pairwise project the systems ranked by Bradley-Terry strength, which the ground-truth job
fits on every comparison (``ground_truth.compute.system_ranking``).

Security behavior: the project's owner only (``owned_project``; anyone else gets 404).
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation.items.inputs import spreadsheet_safe
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from evaluation.metrics.intervals import OVER_INPUTS
from evaluation.metrics.meta_evaluation import SystemScore, system_scores
from evaluation.models import GroundTruthSnapshot
from evaluation.pyramid.scores import output_scores

# Bootstrap resamples of the inputs for each system's interval (seeded: the page is reproducible).
RESAMPLES = OVER_INPUTS.resamples


def system_table(snapshot: GroundTruthSnapshot) -> dict:
    """``{"dimensions", "systems" (best first by the first dimension), "cells": {system: {dimension:
    SystemScore}}, "alpha", "alpha_ordinal": {dimension: Krippendorff's alpha}}`` over the items that
    name their system."""
    summary = output_scores(snapshot)
    items = [item for item in summary["items"] if item["system"]]
    cells: dict[str, dict[str, SystemScore]] = {}
    for dimension in summary["dimensions"]:
        records = [
            (item["system"], item["input"] or item["document"], item["scores"][dimension]["mean"])
            for item in items
            if dimension in item["scores"]
        ]
        found = system_scores(
            records,
            resamples=OVER_INPUTS.resamples,
            level=OVER_INPUTS.level,
            seed=OVER_INPUTS.seed,
            minimum=OVER_INPUTS.minimum,
        )
        for score in found:
            cells.setdefault(score.system, {})[dimension] = score
    first = summary["dimensions"][0] if summary["dimensions"] else None
    systems = sorted(cells, key=lambda s: (-cells[s][first].mean if first in cells[s] else 0.0, s))
    agreement = snapshot.agreement.get("dimensions", {})
    alpha = {dimension: figures.get("krippendorff_alpha") for dimension, figures in agreement.items()}
    # Snapshots from before the ordinal alpha was computed have none: the page shows "–".
    alpha_ordinal = {
        dimension: figures.get("krippendorff_alpha_ordinal") for dimension, figures in agreement.items()
    }
    reasons = sorted({score.reason for row in cells.values() for score in row.values() if score.reason})
    return {
        "dimensions": summary["dimensions"],
        "systems": systems,
        "cells": cells,
        "alpha": alpha,
        "alpha_ordinal": alpha_ordinal,
        "interval": OVER_INPUTS.describe(),
        "reasons": reasons,
    }


def ranking_csv(ranking: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = ("strength", "low", "high", "wins", "comparisons")
    writer.writerow(["rank", "system", *columns, "note"])
    for rank, row in enumerate(ranking, start=1):
        cells = [row.get(c) for c in columns]
        writer.writerow([rank, spreadsheet_safe(row["system"]), *cells, row.get("reason") or ""])
    return out.getvalue()


def csv_download(text: str, name: str) -> HttpResponse:
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def table_csv(table: dict) -> str:
    """One line per system: each dimension's mean, median, interval (empty where there is none),
    outputs and inputs, and why an interval is missing."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    parts = ("mean", "median", "low", "high", "outputs", "inputs")
    header = ["system", *(spreadsheet_safe(f"{d}_{p}") for d in table["dimensions"] for p in parts), "note"]
    writer.writerow(header)
    for system in table["systems"]:
        row = [spreadsheet_safe(system)]
        reasons = []
        for dimension in table["dimensions"]:
            score = table["cells"][system].get(dimension)
            row += [getattr(score, p) if score else "" for p in parts]
            if score and score.reason and score.reason not in reasons:
                reasons.append(score.reason)
        writer.writerow([*row, "; ".join(reasons)])
    return out.getvalue()


def systems_data(project) -> dict:
    """The Systems page as JSON-ready data: the newest snapshot's version and, for a rating project,
    ``table`` (each system's row of per-dimension scores, best first, and the agreement per
    dimension), for a pairwise project ``ranking`` (Bradley-Terry strengths); ``reason`` when there
    is none."""
    pairwise = project.type.compares_two
    scored = project.type.scores_outputs
    if not (scored or pairwise):
        return {
            "snapshot": None,
            "reason": "per-system scores come from rating, Pyramid and pairwise projects",
        }
    snapshot = project.snapshots.order_by("-version").first()
    if snapshot is None:
        return {"snapshot": None, "reason": "no ground-truth snapshot yet"}
    data: dict = {"snapshot": snapshot.version, "reason": None}
    if scored:
        table = system_table(snapshot)
        data["table"] = {
            "dimensions": table["dimensions"],
            "interval": table["interval"],
            "alpha": table["alpha"],
            "alpha_ordinal": table["alpha_ordinal"],
            "systems": [
                {
                    "system": system,
                    "scores": {d: asdict(table["cells"][system][d]) for d in table["cells"][system]},
                }
                for system in table["systems"]
            ],
        }
    else:
        data["ranking"] = (snapshot.agreement.get("systems") or {}).get("ranking", [])
    return data


@login_required
@require_GET
def systems_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """The systems × dimensions table of a rating project (``?as=csv`` downloads it)."""
    project = owned_project(request.user, project_id)
    pairwise = project.type.compares_two
    ranked = project.type.scores_outputs or pairwise
    snapshot = project.snapshots.order_by("-version").first() if ranked else None
    table = system_table(snapshot) if snapshot is not None and project.type.scores_outputs else None
    ranking = snapshot.agreement.get("systems") if snapshot is not None and pairwise else None
    if snapshot is not None and request.GET.get("as") == "csv":
        name = f"project{project.pk}-v{snapshot.version}-systems.csv"
        if table is not None:
            return csv_download(table_csv(table), name)
        if ranking is not None:
            return csv_download(ranking_csv(ranking["ranking"]), name)
    rows = []
    if table is not None:
        rows = [(s, [table["cells"][s].get(d) for d in table["dimensions"]]) for s in table["systems"]]
    context = {"project": project, "snapshot": snapshot, "table": table, "rows": rows, "ranking": ranking}
    return render(request, "evaluation/systems.html", context)
