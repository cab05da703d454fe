"""The issue's newcomer: one careful annotator and two careless ones, few relevant documents. The
agreement page, the API and ``cranfield agreement`` give the same mean kappa, PABAK and
explanation of the low kappa (the page and API in the project's words for the labels)."""

from __future__ import annotations

import html
import json
import random

import pytest
from django.urls import reverse

from cranfield.cli import main
from evaluation.ground_truth.build import build_snapshot
from tests.groundtruth.builders import items, judge, label_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def newcomer(researcher, annotators):
    """60 items, 8 % relevant; annotators[0] always right, the others right 85 % of the time."""
    project = label_project(researcher, annotators, items=60)
    rng = random.Random(0)
    rows = []
    for task in items(project):
        truth = int(rng.random() < 0.08)
        for index, annotator in enumerate(annotators):
            label = truth if index == 0 or rng.random() < 0.85 else 1 - truth
            judge(task, annotator, label)
            rows.append((task.pk, annotator.username, label))
    build_snapshot(project.pk)
    return project, rows


def test_the_page_the_api_and_the_cli_explain_the_low_kappa_alike(
    client, researcher, newcomer, tmp_path, capsys
):
    project, rows = newcomer
    client.force_login(researcher)
    body = client.get(reverse("agreement-api", args=[project.pk])).json()
    sentence = body["kappa_explanation"]
    assert sentence.startswith("Kappa is low although the annotators mostly agree")
    assert "Most labels are “not relevant”" in sentence and "Byrt, Bishop & Carlin 1993" in sentence
    figures = {figure["name"]: figure for figure in body["figures"]}
    kappa = figures["Mean Cohen's kappa"]["value"]
    pabak = figures["PABAK (prevalence- and bias-adjusted kappa)"]["value"]
    assert kappa < 0.4 < pabak
    assert f"mean Cohen's kappa is {kappa:.2f}" in sentence and f"is {pabak:.2f}." in sentence
    assert body["min_shared"] == 10

    page = client.get(reverse("agreement-report", args=[project.pk])).content.decode()
    assert f'<p class="notice" id="kappa-explanation">{sentence}</p>' in html.unescape(page)
    assert '<th scope="row">PABAK (prevalence- and bias-adjusted kappa)</th>' in page

    labels = tmp_path / "labels.csv"
    labels.write_text("item,annotator,label\n" + "".join(f"{i},{a},{label}\n" for i, a, label in rows))
    assert main(["agreement", str(labels)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["cohen_kappa_mean"] == pytest.approx(kappa) and report["pabak"] == pytest.approx(pabak)
    # The same sentence; the file's labels are 0 and 1, the project calls 0 "not relevant".
    assert report["kappa_explanation"] == sentence.replace("“not relevant”", "“0”")


def test_the_kappa_tests_of_the_cli_are_on_the_page_and_in_the_api(
    client, researcher, newcomer, tmp_path, capsys
):
    """Fleiss' kappa's z test and Randolph's kappa, computed by the ground-truth job, equal what
    ``cranfield agreement`` prints for the same labels, and the page shows them."""
    project, rows = newcomer
    labels = tmp_path / "labels.csv"
    labels.write_text("item,annotator,label\n" + "".join(f"{i},{a},{label}\n" for i, a, label in rows))
    assert main(["agreement", str(labels)]) == 0
    printed = json.loads(capsys.readouterr().out)
    client.force_login(researcher)
    tests = {
        row["name"]: row
        for row in client.get(reverse("agreement-api", args=[project.pk])).json()["kappa_tests"]
    }
    fleiss = tests["Fleiss' kappa"]
    for field in ("kappa", "std_kappa0", "z_value", "pvalue_one_sided", "pvalue_two_sided", "n_items"):
        assert fleiss[field] == pytest.approx(printed["fleiss_kappa_test"][field]), field
    assert fleiss["std_kappa0"] > 0 and fleiss["items"] == 60
    randolph = tests["Randolph's free-marginal kappa (2 categories)"]
    assert randolph["kappa"] == pytest.approx(printed["randolph_kappa"])
    assert "Cohen's kappa (two annotators)" not in tests  # three annotators: three pairs
    page = html.unescape(client.get(reverse("agreement-report", args=[project.pk])).content.decode())
    assert 'id="kappa-tests"' in page and f"<td>{fleiss['z_value']:.3f}</td>" in page
    assert '<th scope="row">Randolph\'s free-marginal kappa (2 categories)</th>' in page
