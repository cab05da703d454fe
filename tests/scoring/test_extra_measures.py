"""Measures beyond all_trec asked for with an evaluation (the CLI's, now in the app too): F with another
beta (pytrec_eval's set_F.β²), nDCG with custom gains (trec_eval's ndcg.<gains>, as `cranfield trec-eval`
computes it), and each topic's accuracy, specificity and fallout (`cranfield sets`' figures); named in the
signature only when asked, refused with the field named when malformed, and each setting its own
evaluation."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval
from django.urls import reverse

from evaluation.collection.runs import stored_run
from evaluation.ground_truth.downloads import snapshot_qrels
from evaluation.jobs import embedded
from evaluation.metrics.trec.measures import evaluate
from evaluation.metrics.trec.retrieved_sets import set_measures, topic_confusions
from evaluation.models import Evaluation
from evaluation.scoring.jobs import not_superseded
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

OPTIONS = {"f_beta": 0.5, "ndcg_gains": "0=0,1=1,2=3", "set_measures": True}


def requested(researcher, project, django_capture_on_commit_callbacks, **body) -> Evaluation:
    with django_capture_on_commit_callbacks(execute=True):
        response = api(researcher).post(reverse("evaluations-api", args=[project.pk]), body, format="json")
    assert response.status_code == 202, response.content
    assert embedded.run_queued() == 1
    return Evaluation.objects.get(pk=response.json()["id"])


def test_the_extra_measures_equal_the_reference_and_the_clis_figures(
    scored, researcher, django_capture_on_commit_callbacks
):
    project = scored.project
    evaluation = requested(researcher, project, django_capture_on_commit_callbacks, **OPTIONS)
    assert evaluation.status == Evaluation.Status.DONE
    assert (evaluation.f_beta, evaluation.ndcg_gains) == (0.5, "0=0,1=1,2=3")
    assert evaluation.collection_size == project.documents.count()
    assert "|F-beta:0.5|ndcg-gains:0=0,1=1,2=3|N:" in evaluation.signature
    qrels = snapshot_qrels(evaluation.snapshot)
    for score in evaluation.scores.select_related("run"):
        run = stored_run(score.run_id)
        reference = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.0.25"}).evaluate(run)
        gains = evaluate(qrels, run, ["ndcg.0=0,1=1,2=3"], complete=True)
        confusions = topic_confusions(qrels, run, collection_size=evaluation.collection_size)
        for topic in qrels:
            assert score.per_topic["set_F_0.25"][topic] == pytest.approx(
                reference.get(topic, {}).get("set_F", 0.0)
            )
            assert score.per_topic["ndcg_0=0,1=1,2=3"][topic] == pytest.approx(
                gains[topic]["ndcg_0=0,1=1,2=3"]
            )
            figures = set_measures(confusions[topic])
            for name in ("accuracy", "specificity", "fallout"):
                assert score.per_topic[f"set_{name}"][topic] == pytest.approx(figures[name])
        for name in ("set_F_0.25", "ndcg_0=0,1=1,2=3", "set_accuracy", "set_fallout"):
            assert score.overall[name] == pytest.approx(np.mean(list(score.per_topic[name].values())))
    # The leaderboard offers them like any measure.
    board = api(researcher).get(
        reverse("leaderboard-api", args=[project.pk, evaluation.pk]), {"measures": "set_F_0.25,set_accuracy"}
    )
    assert board.status_code == 200 and board.json()["measures"] == ["set_F_0.25", "set_accuracy"]


def test_a_default_evaluation_keeps_its_signature_and_measures(scored):
    assert (
        "F-beta" not in scored.signature
        and "ndcg-gains" not in scored.signature
        and "|N:" not in scored.signature
    )
    assert (scored.f_beta, scored.ndcg_gains, scored.collection_size) == (1.0, "", None)
    names = set(scored.scores.first().overall)
    assert "set_accuracy" not in names and not any(name.startswith("set_F_") for name in names)


def test_each_setting_is_its_own_evaluation_and_neither_supersedes_the_other(
    scored, researcher, django_capture_on_commit_callbacks
):
    extra = requested(researcher, scored.project, django_capture_on_commit_callbacks, **OPTIONS)
    current = set(not_superseded(scored.project.evaluations.all()).values_list("pk", flat=True))
    assert {scored.pk, extra.pk} <= current
    again = requested(researcher, scored.project, django_capture_on_commit_callbacks, **OPTIONS)
    current = set(not_superseded(scored.project.evaluations.all()).values_list("pk", flat=True))
    assert scored.pk in current and again.pk in current and extra.pk not in current


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"f_beta": 0}, "f_beta"),
        ({"f_beta": "x"}, "f_beta"),
        ({"ndcg_gains": "zero=1"}, "ndcg_gains"),
        ({"ndcg_gains": "0=0," * 30}, "ndcg_gains"),
    ],
)
def test_a_bad_setting_is_a_400_naming_it_and_nothing_is_queued(scored, researcher, body, field):
    before = Evaluation.objects.count()
    response = api(researcher).post(reverse("evaluations-api", args=[scored.project.pk]), body, format="json")
    assert response.status_code == 400 and field in response.json(), response.content
    assert Evaluation.objects.count() == before


def test_the_evaluations_page_asks_for_them_too(
    scored, client, researcher, django_capture_on_commit_callbacks
):
    client.force_login(researcher)
    url = reverse("evaluations-page", args=[scored.project.pk])
    assert 'name="ndcg_gains"' in client.get(url).content.decode()
    form = {"ground_truth": f"snapshot:{scored.snapshot.version}", "relevance_level": "1", "f_beta": "2"}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, form | {"set_measures": "on"})
    assert response.status_code in {200, 302}
    evaluation = scored.project.evaluations.order_by("-pk").first()
    assert (evaluation.f_beta, evaluation.collection_size) == (2.0, scored.project.documents.count())
    bad = client.post(url, form | {"ndcg_gains": "1=x"})
    assert bad.status_code == 400 and "ndcg_gains" in bad.content.decode()
