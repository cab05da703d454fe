"""Plots of an evaluation and of a project's snapshots: the data they draw equal the reference
libraries' on the same inputs, and the downloads answer the owner only.

Security behavior checked here: the owner gets the image, another researcher a 404, a bad query
parameter a 400 naming it, an evaluation not done a 409.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest
import pytrec_eval
from django.urls import reverse
from rest_framework.test import APIClient
from scipy import stats
from sklearn.metrics import roc_auc_score

from evaluation.collection.runs import stored_run
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.downloads import snapshot_qrels
from evaluation.metrics import curves
from evaluation.metrics.plotting import Estimate
from evaluation.models import Evaluation, GroundTruthSnapshot, Run, RunScore
from evaluation.scoring import plots
from evaluation.scoring.jobs import request_evaluation
from tests.annotation.factories import make_project
from tests.scoring.conftest import judge_everything
from tests.scoring.test_pages_and_api import api

# ``scored`` (tests/scoring/conftest.py): a two-run project judged by three annotators, scored against
# its snapshot.
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUERIES = {"pr": {}, "per-topic": {"measure": "P_5"}, "roc": {}, "det": {}}


def run_id(evaluation, tag: str) -> int:
    return Run.objects.get(project=evaluation.project, tag=tag).pk


def plot_url(evaluation, kind: str, fmt: str = "png") -> str:
    return reverse(
        "evaluation-plot",
        kwargs={
            "project_id": evaluation.project_id,
            "evaluation_id": evaluation.pk,
            "kind": kind,
            "fmt": fmt,
        },
    )


def qq_query(evaluation) -> dict:
    return {"a": run_id(evaluation, "runA"), "b": run_id(evaluation, "runB"), "measure": "map"}


def add_a_third_topic(evaluation) -> None:
    """The fixture's two topics make no Q-Q plot (it needs three): a third, in both runs' scores."""
    for row in RunScore.objects.filter(evaluation=evaluation):
        row.per_topic["map"]["403"] = 0.25 if row.run.tag == "runA" else 0.75
        row.save(update_fields=["per_topic"])


# -- the data equal the reference libraries' --------------------------------------------------------


def test_precision_recall_data_are_the_stored_iprec_at_recall_and_equal_pytrec_eval(scored):
    data = plots.precision_recall_data(scored)
    qrels = snapshot_qrels(scored.snapshot)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"})
    assert set(data) == {"runA", "runB"}
    compared = 0
    for tag, (recall, precision) in data.items():
        row = RunScore.objects.get(evaluation=scored, run__tag=tag)
        assert recall == pytest.approx([i / 10 for i in range(11)])
        assert precision == [row.overall[f"iprec_at_recall_{point:.2f}"] for point in recall]
        expected = evaluator.evaluate(stored_run(row.run_id))
        for point, value in zip(recall, precision, strict=True):
            # pytrec_eval is trec_eval 9, which turns a recall point into a relevant-document count
            # as int(p·R + 0.9); the app stores trec_eval 10.0's round(p·R). Where the two counts
            # agree on every topic, the values must be equal.
            if all(same_cutoff(point, len(judged_relevant(qrels[topic]))) for topic in qrels):
                reference = np.mean([v[f"iprec_at_recall_{point:.2f}"] for v in expected.values()])
                assert value == pytest.approx(reference), (tag, point)
                compared += 1
    assert compared >= 2 * 8  # on this fixture only 0.6 and 0.7 differ (R = 2: counts 1 and 2)


def same_cutoff(point: float, relevant: int) -> bool:
    version_9 = int(point * relevant + 0.9)
    version_10 = int(np.floor(point * relevant + 0.5))
    return max(1, version_9) == max(1, version_10)


def judged_relevant(judgements: dict) -> list:
    return [doc for doc, value in judgements.items() if value >= 1]


def test_roc_auc_is_the_mean_of_scikit_learns_per_topic_on_the_same_scores(scored):
    data = plots.relevance_scores(scored, None)
    qrels = snapshot_qrels(scored.snapshot)
    assert "runA" in data
    # The judged documents runA retrieved, labelled by the snapshot, topic by topic.
    run = stored_run(Run.objects.get(project=scored.project, tag="runA").pk)
    for topic, (scores, labels) in data["runA"].items():
        expected = [(run[topic][d], int(qrels[topic][d] >= 1)) for d in run[topic] if d in qrels[topic]]
        assert sorted(zip(scores, labels, strict=True)) == sorted(expected)
    aucs = [
        roc_auc_score(labels, scores)
        for scores, labels in data["runA"].values()
        if 0 < sum(labels) < len(labels)
    ]
    assert curves.topic_averaged_roc(data["runA"].values()).auc == pytest.approx(sum(aucs) / len(aucs))


def test_qq_data_equal_scipys_probplot(scored):
    add_a_third_topic(scored)
    a, b = run_id(scored, "runA"), run_id(scored, "runB")
    points, names = plots.difference_quantiles(scored, a, b, "map")
    assert names == ("runA", "runB")
    first = RunScore.objects.get(evaluation=scored, run__tag="runA").per_topic["map"]
    second = RunScore.objects.get(evaluation=scored, run__tag="runB").per_topic["map"]
    differences = [first[t] - second[t] for t in sorted(first)]
    (_, ordered), _ = stats.probplot(differences, dist="norm")
    # statsmodels' ProbPlot(fit=True), which qq_against_distribution is, standardises the sample by
    # the fitted normal (maximum likelihood) and plots it against standard-normal quantiles at the
    # positions i/(n + 1); probplot keeps the raw sample and uses Filliben's positions. So: the same
    # ordered sample, standardised; the same distribution's quantiles at statsmodels' positions.
    loc, scale = stats.norm.fit(differences)
    np.testing.assert_allclose(points.y, (ordered - loc) / scale)
    n = len(differences)
    np.testing.assert_allclose(points.x, stats.norm.ppf(np.arange(1, n + 1) / (n + 1)))


def test_per_topic_data_read_one_measure_of_every_run(scored):
    data = plots.per_topic_data(scored, "P_5")
    for tag in ("runA", "runB"):
        assert data[tag] == RunScore.objects.get(evaluation=scored, run__tag=tag).per_topic["P_5"]


def test_kappa_data_read_every_snapshot_with_its_interval(scored):
    first = scored.snapshot
    GroundTruthSnapshot.objects.create(
        project=scored.project,
        version=first.version + 1,
        method=first.method,
        input_judgement_count=0,
        signature="test",
        agreement={
            "fleiss_kappa": 0.5,
            "fleiss_kappa_ci": {"low": 0.25, "high": 0.75},
            "cohen_kappa_mean": 0.4,
            "cohen_kappa_mean_ci": {"low": None, "high": None, "reason": "too few items for an interval"},
        },
    )
    versions, series = plots.kappa_data(scored.project)
    assert [v.split("\n")[0] for v in versions] == [f"v{first.version}", f"v{first.version + 1}"]
    fleiss, cohen = series["Fleiss' kappa"], series["Mean Cohen's kappa"]
    assert fleiss[0].value == pytest.approx(first.agreement["fleiss_kappa"])
    # The fixture's few items: no pair shares the 10 a kappa needs, so the first has no mean.
    assert first.agreement["cohen_kappa_mean"] is None and cohen[0] == Estimate(None, None, None)
    interval = first.agreement.get("fleiss_kappa_ci") or {}
    assert (fleiss[0].low, fleiss[0].high) == (interval.get("low"), interval.get("high"))
    assert fleiss[1] == Estimate(0.5, 0.25, 0.75)
    assert cohen[1] == Estimate(0.4, None, None)  # a figure without an interval


# -- the downloads ----------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_the_owner_gets_every_kind_as_a_valid_image(scored, client, researcher, fmt):
    add_a_third_topic(scored)
    client.force_login(researcher)
    for kind in plots.EVALUATION_KINDS:
        query = qq_query(scored) if kind == "qq" else QUERIES[kind]
        response = client.get(plot_url(scored, kind, fmt), query)
        assert response.status_code == 200, (kind, response.content[:300])
        assert_image(response, fmt)
    response = client.get(reverse("kappa-plot", kwargs={"project_id": scored.project_id, "fmt": fmt}))
    assert response.status_code == 200, response.content[:300]
    assert_image(response, fmt)


def assert_image(response, fmt: str) -> None:
    if fmt == "png":
        assert response["Content-Type"] == "image/png"
        assert response.content.startswith(PNG_MAGIC)
    else:
        assert response["Content-Type"] == "image/svg+xml"
        assert ElementTree.fromstring(response.content).tag == "{http://www.w3.org/2000/svg}svg"


def test_another_researcher_gets_404(scored, client, outsider_researcher):
    client.force_login(outsider_researcher)
    assert client.get(plot_url(scored, "pr")).status_code == 404
    kappa = reverse("kappa-plot", kwargs={"project_id": scored.project_id, "fmt": "svg"})
    assert client.get(kappa).status_code == 404


def test_anonymous_is_sent_to_log_in(scored, client):
    response = client.get(plot_url(scored, "pr"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize(
    ("kind", "query", "parameter"),
    [
        ("qq", {"b": "1"}, "a"),
        ("qq", {"a": "x", "b": "1"}, "a"),
        ("qq", {"a": "999999", "b": "1"}, "a"),
        ("per-topic", {"measure": "no_such_measure"}, "measure"),
        ("roc", {"run": "abc"}, "run"),
        ("det", {"run": "999999"}, "run"),
    ],
)
def test_a_bad_parameter_is_a_400_naming_it(scored, client, researcher, kind, query, parameter):
    client.force_login(researcher)
    response = client.get(plot_url(scored, kind), query)
    assert response.status_code == 400
    assert response.content.decode().startswith(f"{parameter}: ")


def test_only_get_is_allowed(scored, client, researcher):
    client.force_login(researcher)
    assert client.post(plot_url(scored, "pr")).status_code == 405


def test_an_evaluation_not_done_is_a_409(researcher, annotators, client):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    evaluation = request_evaluation(project, snapshot=build_snapshot(project.pk))
    assert evaluation.status == Evaluation.Status.QUEUED
    client.force_login(researcher)
    response = client.get(plot_url(evaluation, "pr", "svg"))
    assert response.status_code == 409
    assert "queued" in response.content.decode()


def test_an_unknown_kind_or_format_is_no_url(scored, client, researcher):
    client.force_login(researcher)
    base = plot_url(scored, "pr")
    assert client.get(base.replace("pr.png", "pr.gif")).status_code == 404
    assert client.get(base.replace("pr.png", "pie.png")).status_code == 404


def test_a_project_without_snapshots_has_no_kappa_plot(researcher, client):
    project = make_project(researcher)
    client.force_login(researcher)
    response = client.get(reverse("kappa-plot", kwargs={"project_id": project.pk, "fmt": "png"}))
    assert response.status_code == 409


def test_an_svg_opened_on_its_own_and_the_browsable_api_may_use_their_inline_styles_and_nothing_else_may(
    client, researcher, scored
):
    """Issue 27: the Content-Security-Policy blocked the <style> element of plot SVGs opened directly
    and of DRF's browsable API. Their responses alone allow inline styles; scripts stay files only."""
    client.force_login(researcher)
    project = scored.project

    def policy(response) -> dict[str, set[str]]:
        """The Content-Security-Policy's directives and their sources (in no fixed order)."""
        assert response.status_code == 200, response.content[:300]
        directives = [part.split() for part in response["Content-Security-Policy"].split(";") if part.strip()]
        return {name: set(sources) for name, *sources in directives}

    inline = {"'self'", "'unsafe-inline'"}

    svg = client.get(plot_url(scored, "pr", "svg"))
    assert b"<style" in svg.content
    assert policy(svg)["style-src"] == inline and policy(svg)["script-src"] == {"'self'"}
    png = client.get(plot_url(scored, "pr", "png"))
    assert policy(png)["style-src"] == {"'self'"}
    browsable = client.get(reverse("project-list"), HTTP_ACCEPT="text/html")
    assert "<style>" in browsable.content.decode()
    assert policy(browsable)["style-src"] == inline
    page = client.get(reverse("leaderboard", args=[project.pk]))
    assert policy(page)["style-src"] == {"'self'"} and policy(page)["script-src"] == {"'self'"}


@pytest.mark.parametrize(("against", "extra"), [("run", {}), ("normal", {"b": None}), ("differences", {})])
def test_a_qq_plot_sets_two_runs_or_one_against_the_normal(scored, client, researcher, against, extra):
    add_a_third_topic(scored)
    client.force_login(researcher)
    query = {key: value for key, value in (qq_query(scored) | {"against": against} | extra).items() if value}
    response = client.get(plot_url(scored, "qq", "svg"), query)
    assert response.status_code == 200 and response["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in response.content


def test_the_qq_plots_values_are_each_runs_per_topic_values_in_natural_order(scored):
    add_a_third_topic(scored)
    a, b = run_id(scored, "runA"), run_id(scored, "runB")
    (tag_a, first), (tag_b, second) = plots.topic_values(scored, [a, b], "map")
    stored = {
        tag: RunScore.objects.get(evaluation=scored, run__tag=tag).per_topic["map"]
        for tag in ("runA", "runB")
    }
    assert (tag_a, tag_b) == ("runA", "runB")
    assert first == [stored["runA"][t] for t in ("401", "402", "403")]
    assert second == [stored["runB"][t] for t in ("401", "402", "403")]


@pytest.mark.parametrize(
    ("query", "parameter", "status"),
    [
        ({"against": "uniform"}, "against", 400),
        ({"against": "normal", "b": None, "a": "999999"}, "a", 400),
        ({"against": "run", "b": None}, "b", 400),
    ],
)
def test_a_bad_qq_choice_is_a_400_naming_it(scored, client, researcher, query, parameter, status):
    add_a_third_topic(scored)
    client.force_login(researcher)
    merged = {key: value for key, value in (qq_query(scored) | query).items() if value}
    response = client.get(plot_url(scored, "qq"), merged)
    assert response.status_code == status
    assert response.content.decode().startswith(f"{parameter}: ")


def test_a_run_against_itself_is_refused(scored, client, researcher):
    add_a_third_topic(scored)
    client.force_login(researcher)
    a = run_id(scored, "runA")
    response = client.get(plot_url(scored, "qq"), {"a": a, "b": a, "against": "run"})
    assert response.status_code == 400 and response.content.decode().startswith("b: ")


# -- the plots' data over the API --------------------------------------------------------------------


def data_url(evaluation, kind: str) -> str:
    return reverse("plot-data-api", args=[evaluation.project_id, evaluation.pk, kind])


def test_the_apis_plot_data_are_the_figures_values(scored, researcher):
    add_a_third_topic(scored)
    client = api(researcher)
    pr = client.get(data_url(scored, "pr")).json()
    for tag, (recall, precision) in plots.precision_recall_data(scored).items():
        assert pr["runs"][tag] == {"recall": list(recall), "precision": list(precision)}
    per_topic = client.get(data_url(scored, "per-topic"), {"measure": "P_5"}).json()
    assert per_topic["runs"] == plots.per_topic_data(scored, "P_5") and per_topic["measure"] == "P_5"
    qq = client.get(data_url(scored, "qq"), qq_query(scored)).json()
    points, _ = plots.difference_quantiles(scored, run_id(scored, "runA"), run_id(scored, "runB"), "map")
    assert qq["points"] == {"x": list(points.x), "y": list(points.y)}
    assert qq["x_label"] == "Normal quantiles (fitted)" and "runA − runB" in qq["y_label"]
    roc = client.get(data_url(scored, "roc")).json()
    for tag, by_topic in plots.relevance_scores(scored, None).items():
        assert roc["runs"][tag]["auc"] == pytest.approx(curves.topic_averaged_roc(by_topic.values()).auc)
    det = client.get(data_url(scored, "det")).json()
    assert set(det["runs"]) == set(roc["runs"])
    for curve in det["runs"].values():  # infinite deviates (rates 0 and 1) are null: JSON has no infinity
        assert len(curve["miss_deviate"]) == len(curve["miss_rate"])


def test_the_plot_data_refuse_what_the_figures_refuse_and_only_the_owner_sees_them(
    scored, researcher, outsider_researcher, annotators
):
    client = api(researcher)
    assert client.get(data_url(scored, "qq"), {"b": "1"}).json() == {"a": ["required: a run id"]}
    response = client.get(data_url(scored, "pie"))
    assert response.status_code == 400 and "kind" in response.json()
    response = client.get(data_url(scored, "qq"), qq_query(scored))  # two topics: no Q-Q plot
    assert response.status_code == 409 and "at least 3" in response.json()["plot"][0]
    assert api(outsider_researcher).get(data_url(scored, "pr")).status_code == 404
    assert api(annotators[0]).get(data_url(scored, "pr")).status_code == 403
    assert APIClient().get(data_url(scored, "pr")).status_code in {401, 403}
