"""The systems × dimensions table of a rating project: each system's mean rating with a bootstrap
interval over inputs (equal to ``meta_evaluation.system_scores`` on the snapshot's item means), the
agreement per dimension, as a page and as CSV, for the owner only."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.downloads import rating_summary
from evaluation.metrics.intervals import OVER_INPUTS
from evaluation.metrics.meta_evaluation import system_scores
from tests.annotation.factories import LIKERT_CONFIG
from tests.scoring.test_pages_and_api import api

SYSTEMS = {"good": 5, "fair": 3, "poor": 1}


def rated_project(researcher, annotators, inputs: int):
    """Three systems' outputs on ``inputs`` inputs, rated by two annotators through the engine."""
    project = Project.objects.create(
        name="Summaries", owner=researcher, task_type="likert", config=LIKERT_CONFIG, assignments_per_task=2
    )
    project.annotators.set(annotators)
    items = [
        {"topic": f"in{i}", "document": f"{s}-{i}", "system": s, "input": f"in{i}"}
        for s in SYSTEMS
        for i in range(inputs)
    ]
    import_collection(
        project,
        topics=[{"id": f"in{i}", "title": f"input {i}"} for i in range(inputs)],
        documents=[{"id": item["document"], "text": "a summary"} for item in items],
        items=items,
    )
    for offset, annotator in enumerate(annotators[:2]):
        while (lease := claim_next_task(project, annotator)) is not None:
            base = SYSTEMS[lease.task.system_id]
            score = max(1, min(5, base - offset + (int(lease.task.input_id[2:]) % 2)))
            submit_judgement(lease.pk, annotator, {"scores": {"quality": score, "coherence": base}})
    return project, build_snapshot(project.pk)


@pytest.fixture
def rated(researcher, annotators):
    return rated_project(researcher, annotators, 4)


def table_rows(client, project) -> list[dict]:
    download = client.get(reverse("systems-page", args=[project.pk]), {"as": "csv"}).content.decode()
    return list(csv.DictReader(io.StringIO(download)))


def expected_scores(snapshot) -> dict:
    records = [
        (item["system"], item["input"], item["scores"]["quality"]["mean"])
        for item in rating_summary(snapshot)["items"]
    ]
    found = system_scores(records, resamples=OVER_INPUTS.resamples, minimum=OVER_INPUTS.minimum)
    return {s.system: s for s in found}


def test_on_four_inputs_the_table_has_each_mean_but_no_interval_and_says_why(client, researcher, rated):
    project, snapshot = rated
    client.force_login(researcher)
    page = client.get(reverse("systems-page", args=[project.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert text.index(">good<") < text.index(">fair<") < text.index(">poor<")
    reason = "too few inputs for an interval (4; needs at least 10)"
    assert f"No interval: {reason}." in text and 'class="interval"' not in text
    expected = expected_scores(snapshot)
    for row in table_rows(client, project):
        score = expected[row["system"]]
        assert float(row["quality_mean"]) == pytest.approx(score.mean)
        assert row["quality_low"] == row["quality_high"] == "" and row["note"] == reason
        assert int(row["quality_outputs"]) == 4 and int(row["quality_inputs"]) == 4


def test_on_twelve_inputs_the_intervals_are_system_scores_and_inside_the_scale(
    client, researcher, annotators
):
    project, snapshot = rated_project(researcher, annotators, 12)
    client.force_login(researcher)
    text = client.get(reverse("systems-page", args=[project.pk])).content.decode()
    assert OVER_INPUTS.describe() in text and "No interval" not in text
    expected = expected_scores(snapshot)
    for row in table_rows(client, project):
        score = expected[row["system"]]
        low, high = float(row["quality_low"]), float(row["quality_high"])
        assert (low, high) == pytest.approx((score.low, score.high)) and row["note"] == ""
        assert 1 <= low <= float(row["quality_mean"]) <= high <= 5
        assert f'<small class="interval">[{low:.3f}, {high:.3f}]</small>' in text


def test_only_the_owner_sees_it(client, outsider_researcher, rated):
    project, _ = rated
    client.force_login(outsider_researcher)
    assert client.get(reverse("systems-page", args=[project.pk])).status_code == 404


def test_alpha_per_dimension_interval_and_ordinal_equals_the_krippendorff_package(client, researcher, rated):
    """Both alphas of every dimension, as the ``krippendorff`` package computes them on the same
    annotator × item table, on the page's footer."""
    import krippendorff
    import numpy as np

    from annotation.models import Judgement

    project, snapshot = rated
    judgements = list(
        Judgement.objects.filter(project=project).values_list("annotator_id", "task_id", "answer")
    )
    annotators = sorted({a for a, _, _ in judgements})
    tasks = sorted({t for _, t, _ in judgements})
    client.force_login(researcher)
    text = client.get(reverse("systems-page", args=[project.pk])).content.decode()
    assert "(interval)" in text and "(ordinal)" in text
    for dimension in ("quality", "coherence"):
        table = np.full((len(annotators), len(tasks)), np.nan)
        for annotator, task, answer in judgements:
            table[annotators.index(annotator), tasks.index(task)] = answer["scores"][dimension]
        figures = snapshot.agreement["dimensions"][dimension]
        for level, key in (("interval", "krippendorff_alpha"), ("ordinal", "krippendorff_alpha_ordinal")):
            expected = krippendorff.alpha(
                reliability_data=table, level_of_measurement=level, value_domain=[1, 2, 3, 4, 5]
            )
            assert figures[key] == pytest.approx(expected, abs=1e-9), (dimension, level)


def test_the_page_shows_each_systems_median_beside_its_mean(client, researcher, rated):
    """The README promises the mean and the median per dimension: the median of each system's
    output ratings (NumPy's), in a column of its own, on the page as in the CSV."""
    import re

    import numpy as np

    project, snapshot = rated
    client.force_login(researcher)
    text = client.get(reverse("systems-page", args=[project.pk])).content.decode()
    summary = rating_summary(snapshot)
    dimensions = summary["dimensions"]
    assert text.count('scope="col" class="median">Median</th>') == len(dimensions)
    for system in SYSTEMS:
        row = re.search(rf'<tr><th scope="row">{system}</th>(.*?)</tr>', text).group(1)
        shown = re.findall(r'<td class="median">([^<]*)</td>', row)
        expected = [
            np.median(
                [
                    i["scores"][d]["mean"]
                    for i in summary["items"]
                    if i["system"] == system and d in i["scores"]
                ]
            )
            for d in dimensions
        ]
        assert [float(value) for value in shown] == pytest.approx(expected, abs=5e-4)
    rows = csv.DictReader(
        io.StringIO(client.get(reverse("systems-page", args=[project.pk]), {"as": "csv"}).content.decode())
    )
    for row in rows:
        assert f"{float(row['quality_median']):.3f}" in text


def test_the_api_gives_the_tables_scores_and_only_to_the_owner(
    client, researcher, outsider_researcher, annotators
):
    project, snapshot = rated_project(researcher, annotators, 12)
    url = reverse("systems-api", args=[project.pk])
    data = api(researcher).get(url).json()
    assert data["snapshot"] == snapshot.version and data["reason"] is None
    table = data["table"]
    assert table["dimensions"] == ["quality", "coherence"] and table["interval"] == OVER_INPUTS.describe()
    expected = expected_scores(snapshot)
    assert [row["system"] for row in table["systems"]] == sorted(expected, key=lambda s: -expected[s].mean)
    for row in table["systems"]:
        quality = row["scores"]["quality"]
        score = expected[row["system"]]
        assert (quality["mean"], quality["low"], quality["high"]) == pytest.approx(
            (score.mean, score.low, score.high)
        )
    client.force_login(researcher)
    csv_rows = {row["system"]: row for row in table_rows(client, project)}
    for row in table["systems"]:
        assert float(csv_rows[row["system"]]["coherence_mean"]) == pytest.approx(
            row["scores"]["coherence"]["mean"]
        )
    assert api(outsider_researcher).get(url).status_code == 404
    assert api(annotators[0]).get(url).status_code == 403


def test_the_api_says_why_there_is_no_table(researcher):
    relevance = Project.objects.create(name="Relevance", owner=researcher)
    data = api(researcher).get(reverse("systems-api", args=[relevance.pk])).json()
    reason = "per-system scores come from rating, Pyramid and pairwise projects"
    assert data == {"snapshot": None, "reason": reason}
    rating = Project.objects.create(
        name="Ratings", owner=researcher, task_type="likert", config=LIKERT_CONFIG
    )
    data = api(researcher).get(reverse("systems-api", args=[rating.pk])).json()
    assert data == {"snapshot": None, "reason": "no ground-truth snapshot yet"}
