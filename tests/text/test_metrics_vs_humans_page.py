"""The metrics-vs-humans page reads the same way on every row: TER and WER (error rates, lower is
better) are shown negated, so a higher, brighter cell always means closer agreement with the raters
(the API's and the scatter's figures likewise, checked against SciPy); the heat map's legend has its
stylesheet; a text project's menu offers no runs or leaderboard, which only relevance projects have."""

from __future__ import annotations

import pytest
from django.urls import reverse
from scipy import stats

from annotation.crowd.minimums import Minimum
from evaluation.ground_truth.downloads import rating_summary
from evaluation.metrics.colours import heat_colours, relative_luminance
from evaluation.metrics.meta_evaluation import ranking_accuracy, system_means
from evaluation.models import TextEvaluation
from evaluation.texts.meta_report import oriented_records
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db


def vectors(project, evaluation, metric: str, dimension: str) -> tuple[list[float], list[float]]:
    human = {
        (item["system"], item["input"]): item["scores"][dimension]["mean"]
        for item in rating_summary(project.snapshots.get())["items"]
    }
    scores = {(o.system_id, o.input_id): o.scores[metric] for o in evaluation.outputs.all()}
    keys = sorted(human)
    return [scores[k] for k in keys], [human[k] for k in keys]


@pytest.mark.parametrize("metric", ["ter", "wer"])
def test_an_error_rates_correlations_are_those_of_its_negation(researcher, evaluated, metric):
    project, evaluation = evaluated
    url = reverse("meta-evaluation-api", args=[project.pk, evaluation.pk])
    matrix = api(researcher).get(url, {"level": "global", "method": "pearson"}).json()
    assert set(matrix["negated"]) == {"ter", "wer"}
    scores, human = vectors(project, evaluation, metric, "quality")
    raw = stats.pearsonr(scores, human).statistic
    assert raw < 0  # closer copies of the references have fewer errors and are rated higher
    assert matrix["cells"][metric]["quality"]["value"] == pytest.approx(-raw)
    # A metric that is not an error rate keeps its own sign.
    rouge, _ = vectors(project, evaluation, "rouge2", "quality")
    assert matrix["cells"]["rouge2"]["quality"]["value"] == pytest.approx(
        stats.pearsonr(rouge, human).statistic
    )
    # The system ranking accuracy agrees: fewer errors is better (the pure function, since this
    # project's 3 systems are below the page's minimum for one, which it says instead).
    system_level = api(researcher).get(url, {"level": "system", "method": "kendall"}).json()
    cell = system_level["cells"][metric]["quality"]
    assert cell["accuracy"] is None and cell["value"] is None
    assert cell["accuracy_reason"] == "too few systems for a ranking accuracy (3; needs at least 5)"
    rows = [(o.system_id, o.input_id, o.scores[metric]) for o in evaluation.outputs.all()]
    humans = {
        (item["system"], item["input"]): item["scores"]["quality"]["mean"]
        for item in rating_summary(project.snapshots.get())["items"]
    }
    human_means = system_means([(s, i, h) for (s, i), h in humans.items()])
    negated = system_means(oriented_records(metric, rows))
    assert ranking_accuracy(negated, human_means, Minimum(3, "systems", "a ranking accuracy")) == (1.0, None)
    scatter = (
        api(researcher)
        .get(
            reverse("scatter-api", args=[project.pk, evaluation.pk]),
            {"metric": metric, "dimension": "quality", "level": "global"},
        )
        .json()
    )
    assert scatter["negated"] is True
    # The points are the real error rates; the correlations those of their negation.
    assert sorted(p["x"] for p in scatter["points"]) == pytest.approx(sorted(scores))
    global_pearson = next(
        c for c in scatter["correlations"] if (c["level"], c["method"]) == ("global", "pearson")
    )
    assert global_pearson["value"] == pytest.approx(-raw)
    # Its 6 inputs are too few for an interval, which the report says instead.
    assert global_pearson["low"] is None and "too few inputs" in global_pearson["interval_reason"]


def test_on_the_heat_map_brighter_means_closer_to_the_raters_on_every_row(client, researcher, evaluated):
    project, _ = evaluated
    client.force_login(researcher)
    page = client.get(reverse("meta-evaluation", args=[project.pk]), {"level": "global", "method": "pearson"})
    text = page.content.decode()
    assert "evaluation/reports.css" in text  # the legend's gradient and the heat map's layout
    assert 'class="legend"' in text and "closer to the raters" in text
    assert "−ter <small" in text and "−wer <small" in text
    rows = {row["metric"]: row for row in page.context["rows"]}
    # Every metric here tracks the raters over all outputs (closer copies of the references are rated
    # higher), error rates included: all their cells are on the bright side, none on the dark one.

    def luminance(colour: str) -> float:
        return relative_luminance(tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5)))

    for metric in ("rouge2", "ter", "wer"):
        cell = next(c for c in rows[metric]["cells"] if c["dimension"] == "quality")
        assert cell["value"] > 0.5
        assert cell["background"] == heat_colours(cell["value"])[0]
        assert luminance(cell["background"]) > luminance(heat_colours(0.0)[0])
    assert luminance(heat_colours(1.0)[0]) > luminance(heat_colours(-1.0)[0])
    image = client.get(
        reverse("meta-evaluation-scatter", args=[project.pk, "svg"]),
        {"metric": "ter", "dimension": "quality"},
    )
    assert image.status_code == 200 and b"axis reversed" in image.content


def test_a_text_projects_menu_offers_no_runs_evaluations_or_leaderboard(client, researcher, evaluated):
    project, _ = evaluated
    client.force_login(researcher)
    for name in ("project-page", "systems-page", "meta-evaluation"):
        text = client.get(reverse(name, args=[project.pk])).content.decode()
        for page in ("runs-page", "evaluations-page", "leaderboard"):
            assert f'href="{reverse(page, args=[project.pk])}"' not in text, (name, page)
        assert f'href="{reverse("systems-page", args=[project.pk])}"' in text
    # Reached by its address, the leaderboard says why it is empty and where to go instead.
    board = client.get(reverse("leaderboard", args=[project.pk])).content.decode()
    assert 'id="relevance-only"' in board and reverse("meta-evaluation", args=[project.pk]) in board


def test_a_relevance_projects_menu_keeps_them(client, researcher, annotators):
    from tests.annotation.factories import make_project

    project = make_project(researcher, annotators, k=1)
    client.force_login(researcher)
    text = client.get(reverse("project-page", args=[project.pk])).content.decode()
    for page in ("runs-page", "evaluations-page", "leaderboard"):
        assert f'href="{reverse(page, args=[project.pk])}"' in text
    assert 'id="relevance-only"' not in client.get(reverse("runs-page", args=[project.pk])).content.decode()


def test_a_remembered_report_belongs_to_its_evaluation_not_to_its_key_number(settings):
    """Report keys once held only the evaluation's and snapshot's ids: a database replaced under the
    same Redis (a restore, a benchmark's recreated database) was served the old database's
    evaluation 1 for its own evaluation 1."""
    from datetime import UTC, datetime, timedelta

    from django.core.cache import cache

    from evaluation.models import GroundTruthSnapshot
    from evaluation.texts.meta_report import remembered

    cache.clear()
    made = datetime(2026, 11, 27, tzinfo=UTC)
    snapshot = GroundTruthSnapshot(pk=1, created_at=made)
    old = TextEvaluation(pk=1, created_at=made)
    new = TextEvaluation(pk=1, created_at=made + timedelta(days=1))
    assert remembered(old, snapshot, "matrix", lambda: "the old database's") == "the old database's"
    assert remembered(new, snapshot, "matrix", lambda: "this one's") == "this one's"
    assert remembered(old, snapshot, "matrix", lambda: "computed again") == "the old database's"


def test_with_outputs_unrated_the_accuracy_the_scatter_and_williams_use_the_outputs_both_sides_score(
    monkeypatch,
):
    """Issue 24, item 6(a): the correlations use the outputs with both a rating and a score, and so
    do the pairwise accuracy, the system-level scatter and Williams' test beside them (the report's
    shell on generated records: ten systems, a quarter of the outputs unrated, one metric missing a
    system)."""
    from types import SimpleNamespace

    import numpy as np

    from evaluation.metrics import meta_evaluation as meta
    from evaluation.texts import meta_report

    rng = np.random.default_rng(3)
    human, rouge, bleu = [], [], []
    for k in range(10):
        for i in range(12):
            rating = k / 3 + rng.normal(0, 1)
            human.append((f"s{k}", f"in{i}", float(round(rating * 3) / 3)))
            rouge.append((f"s{k}", f"in{i}", float(rating + rng.normal(0, 1))))
            bleu.append((f"s{k}", f"in{i}", float(rng.normal(0, 1))))
    rated = [row for n, row in enumerate(human) if n % 4 != 1]
    bleu = [row for row in bleu if row[0] != "s0"]
    inputs = ({"rouge1": rouge, "bleu": bleu}, {"quality": rated})
    monkeypatch.setattr(meta_report, "report_inputs", lambda evaluation, snapshot: inputs)
    evaluation = SimpleNamespace(signatures={}, pk=0, lower_is_better=[])
    snapshot = SimpleNamespace(version=1)

    cell = meta_report._matrix(evaluation, snapshot, "system", "kendall")["cells"]["rouge1"]["quality"]
    metric_means, human_means = meta.paired_system_means(rouge, rated)
    assert cell["accuracy"] == meta.pairwise_accuracy(metric_means, human_means)
    assert cell["accuracy"] != meta.pairwise_accuracy(meta.system_means(rouge), human_means)

    found = meta_report._scatter(evaluation, snapshot, "rouge1", "quality", "system", 0)
    assert {p["label"]: (p["x"], p["y"]) for p in found["points"]} == {
        s: (metric_means[s], human_means[s]) for s in metric_means
    }
    shared_human, shared = meta.shared_outputs(rated, {"rouge1": rouge, "bleu": bleu})
    expected = meta.williams_tests(
        "rouge1", {m: meta.system_means(rows) for m, rows in shared.items()}, meta.system_means(shared_human)
    )
    assert found["williams_systems"] == 9 == expected.systems
    assert found["williams"] == [pytest.approx(test) for test in expected.tests]
