"""REALSumm's real crowd data through the app (Bhandari et al., EMNLP 2020): its 1,056 SCUs and the 25
systems' summaries of 100 CNN/DM documents imported by the Pyramid import, its 81,581 Mechanical Turk
presence answers on real SCUs imported by the judgement import, aggregated by majority vote with a 2–2
tie as absent (the LitePyramids script's rule, which reproduces the authors' scores: the data set's
PROVENANCE.md), and every summary's LitePyramid recall from the app equal to that rule applied to the
files directly. Read from ../shared (skipped locally without it, required under CI=true)."""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

import pytest
from django.test import override_settings
from django.urls import reverse

from annotation.models import Project
from evaluation.ground_truth.build import build_snapshot
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

SLOTS = 16


def hits(folder: Path):
    """Every HIT: ``(system, document, summary text, [(SCU id, [answers "p"/"n"]), …])`` over the real
    SCUs (``BLANK`` slots left out), one answer per assignment row; systems keyed by file (``bart_out``
    is in both folders, with different summaries)."""
    grouped: dict[tuple[str, str], list[dict]] = {}
    for path in sorted(folder.glob("SCU_rating_results_*_systems/*.csv")):
        kind = "abs" if "abs_systems" in path.parent.name else "ext"
        system = f"{kind}.{path.stem.removesuffix('_Batch_crowd_3')}"
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                grouped.setdefault((system, row["Input.eventId"]), []).append(row)
    for (system, document), rows in grouped.items():
        question_ids = [q.strip(" '") for q in rows[0]["Input.qIdList"].strip("[]").split(",")]
        answers = [
            (question_ids[k - 1], [row[f"Answer.S{k}Answer"] for row in rows])
            for k in range(1, SLOTS + 1)
            if rows[0][f"Input.statement_{k}"] != "BLANK"
        ]
        yield system, document, rows[0]["Input.summary_text"], answers


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=64 * 1024 * 1024)
def test_realsumms_litepyramid_recall_through_the_app_is_the_papers_rule(researcher, data_set):
    folder = data_set("summ_realsumm")
    with (folder / "SCUs_list.csv").open(encoding="utf-8", newline="") as handle:
        units = [row for row in csv.DictReader(handle) if row["answer"] == "Y"]
    assert len(units) == 1056
    every_hit = list(hits(folder))
    assert len(every_hit) == 2500

    # Four assignments at most per HIT; a 2-2 tie is absent, as the LitePyramids script settles it.
    project = Project.objects.create(
        name="REALSumm", owner=researcher, task_type="scu_presence", assignments_per_task=4, tie_rule="lower"
    )
    body = {
        "units": [
            {"input": u["eventId"], "id": u["questionId"], "statement": u["questionText"], "weight": 1}
            for u in units
        ],
        "summaries": [{"input": d, "system": s, "text": text} for s, d, text, _ in every_hit],
    }
    response = api(researcher).post(reverse("pyramid-import-api", args=[project.pk]), body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["tasks_created"] == 25 * 1056

    # The files keep no worker ids: a HIT's assignments become annotators w0..w3, the same four names in
    # every HIT (majority vote needs no more; worker-level models would).
    lines = [
        {
            "topic": f"{d}#{unit}",
            "document": f"{s}#{d}",
            "annotator": f"realsumm-w{i}",
            "label": int(a == "p"),
        }
        for s, d, _, answers in every_hit
        for unit, given in answers
        for i, a in enumerate(given)
    ]
    assert len(lines) == 81581
    response = api(researcher).post(
        reverse("judgement-import-api", args=[project.pk]),
        {"judgements": lines, "create_annotators": True},
        format="json",
    )
    assert response.status_code == 201, response.content
    snapshot = build_snapshot(project.pk)
    assert snapshot.method == "majority"

    scores = api(researcher).get(reverse("pyramid-scores-api", args=[project.pk])).json()
    assert scores["summaries_waiting"] == 0 and len(scores["summaries"]) == 2500
    by_summary = {(row["system"], row["input"]): row["lite_pyramid"] for row in scores["summaries"]}
    expected = {
        (s, d): sum(given.count("p") > given.count("n") for _, given in answers) / len(answers)
        for s, d, _, answers in every_hit
    }
    assert by_summary.keys() == expected.keys()
    assert all(by_summary[key] == pytest.approx(value, abs=1e-12) for key, value in expected.items())
    systems = {row["system"]: row["lite_pyramid"]["mean"] for row in scores["systems"]}
    for system in systems:
        mine = [value for (s, _), value in expected.items() if s == system]
        assert len(mine) == 100 and systems[system] == pytest.approx(statistics.fmean(mine), abs=1e-12)
    print("\nREALSumm LitePyramid recall per system (app, majority, tie absent):")
    for row in scores["systems"]:
        interval = row["lite_pyramid"]
        agreement = row["agreement"]
        print(
            f"  {row['system']:40s} {interval['mean']:.4f} ({interval['low']:.4f}-{interval['high']:.4f})"
            f"  Fleiss {agreement['fleiss_kappa']:.3f}  alpha {agreement['krippendorff_alpha']:.3f}"
        )
