"""ir_datasets' qrels as prior judgements: stored as a prior set of the project, and the scoreddocs'
pool leaves their pairs out (issue 25, item 2)."""

from __future__ import annotations

import pytest

from annotation.models import Project, Task
from evaluation.models import PriorJudgement
from tests.irds.test_import import DEMO_REQUEST, run_import

pytestmark = pytest.mark.django_db


def item_pairs(project: Project) -> set[tuple[str, str]]:
    rows = Task.objects.filter(project=project, kind=Task.Kind.ITEM)
    return set(rows.values_list("topic__external_id", "document__external_id"))


def test_qrels_as_prior_are_a_prior_set_and_the_pool_skips_their_pairs(researcher, demo_dataset):
    reference = Project.objects.create(name="reference", owner=researcher)
    assert run_import(reference, {"dataset": demo_dataset, **DEMO_REQUEST}).status == "done"
    reused = Project.objects.create(name="reused", owner=researcher)
    job = run_import(reused, {"dataset": demo_dataset, **DEMO_REQUEST, "qrels": "prior"})
    assert job.status == "done", job.errors
    prior = reused.prior_qrels.get()
    assert (prior.name, prior.source) == ("cranfield-official", f"ir_datasets {demo_dataset}")
    official = reference.external_qrels.get().judgements
    judged = {(topic, doc) for topic, docs in official.items() for doc in docs}
    stored = PriorJudgement.objects.filter(prior_qrels=prior).values_list(
        "topic__external_id", "document__external_id", "relevance"
    )
    assert {(t, d): r for t, d, r in stored} == {(t, d): official[t][d] for t, d in judged}
    assert not reused.external_qrels.exists()
    full_pool = item_pairs(reference)
    assert item_pairs(reused) == full_pool - judged
    assert job.summary["prior_skipped"] == len(full_pool & judged) > 0
    assert job.summary["judgements_saved"] == len(full_pool & judged) * reused.assignments_per_task


def test_a_prior_name_the_project_has_is_refused_at_once(researcher, demo_dataset):
    project = Project.objects.create(name="twice", owner=researcher)
    request = {"dataset": demo_dataset, **DEMO_REQUEST, "qrels": "prior", "scoreddocs": False}
    assert run_import(project, request).status == "done"
    from evaluation.collection.flow import ImportFailed
    from evaluation.irds.importing import choice_from, send_import

    with pytest.raises(ImportFailed, match="already has prior judgements named 'cranfield-official'"):
        send_import(researcher, project, choice_from(request))
