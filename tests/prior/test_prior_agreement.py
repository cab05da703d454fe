"""The crowd's agreement with the prior sets on the pairs both judged: Cohen's kappa (statsmodels'),
its bootstrap interval, the confusion counts, per topic where enough items; on the ground-truth page
and over the API next to the snapshot."""

from __future__ import annotations

import numpy as np
import pytest
from django.urls import reverse
from statsmodels.stats.inter_rater import cohens_kappa

from evaluation.ground_truth.build import build_snapshot
from evaluation.prior.agreement import crowd_against_prior, overlap_agreement
from evaluation.prior.importing import import_prior_qrels
from tests.annotation.factories import make_project
from tests.prior.test_prior_import_and_pooling import api
from tests.scoring.conftest import judge_everything

PRIOR = "401 0 d1 0\n401 0 d2 0\n402 0 d4 1\n402 0 d2 1\n401 0 d5 0\n"


def generated_pairs(n: int, seed: int = 3) -> list[tuple[int, int]]:
    """Prior labels, and crowd labels that copy them 80 % of the time."""
    rng = np.random.default_rng(seed)
    prior = rng.integers(0, 2, n)
    crowd = np.where(rng.random(n) < 0.8, prior, 1 - prior)
    return list(zip(prior.tolist(), crowd.tolist(), strict=True))


def test_kappa_and_confusion_equal_statsmodels_on_the_same_table():
    pairs = generated_pairs(60)
    figures = overlap_agreement(pairs, [0, 1])
    table = np.zeros((2, 2))
    for prior, crowd in pairs:
        table[prior, crowd] += 1
    expected = cohens_kappa(table)
    assert figures["confusion"] == table.astype(int).tolist()
    assert figures["items"] == 60 and figures["agreed"] == int(np.trace(table))
    assert figures["kappa"] == pytest.approx(expected.kappa, abs=1e-12)
    assert figures["kappa_low"] == pytest.approx(expected.kappa_low, abs=1e-12)
    assert figures["kappa_high"] == pytest.approx(expected.kappa_upp, abs=1e-12)
    interval = figures["bootstrap"]
    assert interval["low"] < figures["kappa"] < interval["high"]
    assert (interval["resamples"], interval["confidence"]) == (1000, 0.95)
    assert overlap_agreement(pairs, [0, 1])["bootstrap"] == interval  # seeded


def test_too_few_items_give_the_reason_instead_of_a_figure():
    few = overlap_agreement(generated_pairs(9), [0, 1])
    assert few["kappa"] is None and few["reason"] == "too few shared items for a kappa (9; needs at least 10)"
    some = overlap_agreement(generated_pairs(20), [0, 1])
    assert some["kappa"] is not None and some["bootstrap"] is None
    assert some["interval_reason"] == "too few items for an interval (20; needs at least 30)"


def test_per_topic_only_where_enough_items_and_topics_in_natural_order():
    pairs = generated_pairs(45)
    sources = {task: ("both", prior, crowd) for task, (prior, crowd) in enumerate(pairs)}
    topic_of = {task: (10 if task < 40 else 2, task) for task in sources}
    figures = crowd_against_prior(sources, topic_of, {10: "10", 2: "2"})
    assert [row["topic"] for row in figures["topics"]] == ["2", "10"]
    assert figures["topics"][0]["items"] == 5 and figures["topics"][0]["kappa"] is None
    assert figures["topics"][1]["items"] == 40 and figures["topics"][1]["bootstrap"] is not None
    assert figures["overall"]["items"] == 45


@pytest.fixture
def merged(researcher, annotators):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    import_prior_qrels(project, "nist", PRIOR, assessor="NIST assessors")
    build_snapshot(project.pk)
    return project


@pytest.mark.django_db
def test_the_snapshot_reports_the_overlap_and_the_api_gives_it_to_the_owner(merged, researcher):
    answer = api(researcher).get(reverse("prior-agreement-api", args=[merged.pk]))
    assert answer.status_code == 200
    body = answer.json()
    assert (body["snapshot"], body["precedence"], body["sets"], body["prior_only"]) == (
        1,
        "prior-wins",
        ["nist"],
        2,
    )
    # 401/d1: prior 0, crowd 1; 401/d2: both 0; 402/d4: both 1.
    assert body["overall"]["confusion"] == [[1, 1], [0, 1]] and body["overall"]["agreed"] == 2
    assert body["overall"]["reason"] == "too few shared items for a kappa (3; needs at least 10)"
    assert [row["topic"] for row in body["topics"]] == ["401", "402"]
    assert (
        api(researcher).get(reverse("prior-agreement-api", args=[merged.pk]), {"version": 9}).status_code
        == 404
    )


@pytest.mark.django_db
def test_a_snapshot_without_prior_sets_says_why_there_is_no_agreement(researcher, annotators):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    endpoint = reverse("prior-agreement-api", args=[project.pk])
    assert api(researcher).get(endpoint).status_code == 404  # no snapshot yet
    judge_everything(project, annotators)
    build_snapshot(project.pk)
    assert "merged no prior judgements" in api(researcher).get(endpoint).json()["reason"]


@pytest.mark.django_db
def test_another_researcher_gets_404_and_an_annotator_403(merged, outsider_researcher, annotators, client):
    endpoint = reverse("prior-agreement-api", args=[merged.pk])
    assert api(outsider_researcher).get(endpoint).status_code == 404
    assert api(annotators[0]).get(endpoint).status_code == 403
    client.force_login(outsider_researcher)
    assert client.get(reverse("ground-truth", args=[merged.pk])).status_code == 404


@pytest.mark.django_db
def test_the_ground_truth_page_shows_the_agreement_beside_the_snapshot(merged, researcher, client):
    client.force_login(researcher)
    text = client.get(reverse("ground-truth", args=[merged.pk])).content.decode()
    assert "Crowd against prior judgements (v1)" in text
    assert "2 pairs only they judged" in text and "agrees with the prior one on 2" in text
    assert 'id="prior-confusion"' in text and '<th scope="row">401</th>' in text


@pytest.mark.django_db
def test_the_owner_reads_and_sets_the_precedence_and_a_new_snapshot_follows_it(merged, researcher):
    from annotation.models import Task
    from evaluation.models import SnapshotLabel

    settings = reverse("prior-settings-api", args=[merged.pk])
    assert api(researcher).get(settings).json() == {"precedence": "prior-wins"}
    bad = api(researcher).put(settings, {"precedence": "coin-toss"}, format="json")
    assert bad.status_code == 400 and "precedence" in bad.json()
    answer = api(researcher).put(settings, {"precedence": "crowd-wins"}, format="json")
    assert answer.status_code == 200 and answer.json() == {"precedence": "crowd-wins"}
    second = build_snapshot(merged.pk)
    assert second.version == 2 and second.parameters["prior"] == "crowd-wins"
    task = Task.objects.get(project=merged, topic__external_id="401", document__external_id="d1")
    assert SnapshotLabel.objects.get(snapshot=second, task=task).label == 1


@pytest.mark.django_db
def test_the_page_sets_the_precedence_for_the_owner(merged, researcher, client):
    client.force_login(researcher)
    page = client.get(reverse("evaluations-page", args=[merged.pk])).content.decode()
    assert '<option value="prior-wins" selected>' in page
    assert (
        client.post(reverse("prior-precedence", args=[merged.pk]), {"precedence": "nope"}).status_code == 302
    )
    client.post(reverse("prior-precedence", args=[merged.pk]), {"precedence": "crowd-where-missing"})
    page = client.get(reverse("evaluations-page", args=[merged.pk])).content.decode()
    assert '<option value="crowd-where-missing" selected>' in page
