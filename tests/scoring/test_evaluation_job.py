"""Evaluation jobs: every run scored against a snapshot, stored with its signature and checks.

The leaderboard's numbers must equal trec_eval's on the exported qrels and the stored runs
(pytrec_eval is trec_eval's own code, as a library)."""

from __future__ import annotations

import io

import pytest
import pytrec_eval

from evaluation.collection.runs import stored_run
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.downloads import snapshot_qrels
from evaluation.metrics.trec.files import read_run, write_run
from evaluation.metrics.trust import leave_one_out, unjudged_share
from evaluation.models import Evaluation, RunScore
from evaluation.scoring.jobs import request_evaluation
from tests.annotation.factories import RUN_A, RUN_B, make_project
from tests.scoring.conftest import judge_everything


def test_every_run_is_scored_and_equals_trec_eval(scored):
    assert scored.status == Evaluation.Status.DONE, scored.error
    assert scored.progress == 1.0
    qrels = snapshot_qrels(scored.snapshot)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "ndcg", "recip_rank", "bpref"})
    for text in (RUN_A, RUN_B):
        run, tag = read_run(text.splitlines())
        row = RunScore.objects.get(evaluation=scored, run__tag=tag)
        # The stored run gives back the file's ranking.
        assert stored_run(row.run_id) == run
        expected = evaluator.evaluate(run)
        for measure, name in (("map", "map"), ("P_5", "P_5"), ("ndcg", "ndcg"), ("recip_rank", "recip_rank")):
            per_topic = {topic: values[measure] for topic, values in expected.items()}
            assert row.per_topic[name] == pytest.approx(per_topic)
            assert row.overall[name] == pytest.approx(sum(per_topic.values()) / len(per_topic))


def test_the_signature_names_what_the_numbers_depend_on(scored):
    assert scored.signature.startswith(f"gt:v{scored.snapshot.version}+majority|l:1|J:no|c:yes|")
    assert "m:all_trec" in scored.signature and "version:cranfield-eval-" in scored.signature


def test_the_checks_equal_the_pure_trust_functions(scored):
    qrels = snapshot_qrels(scored.snapshot)
    runs = {tag: run for run, tag in (read_run(text.splitlines()) for text in (RUN_A, RUN_B))}
    expected = {r.run: r for r in leave_one_out(runs, qrels, depth=2)}
    for row in scored.checks["pool_bias"]:
        reference = expected[row["run"]]
        assert row["score"] == pytest.approx(reference.score)
        assert row["score_left_out"] == pytest.approx(reference.score_left_out)
        assert (row["rank"], row["rank_left_out"]) == (reference.rank, reference.rank_left_out)
        assert row["unique_relevant"] == reference.unique_relevant
    for row in scored.checks["unjudged"]["runs"]:
        shares = unjudged_share(runs[row["run"]], qrels, (10,))
        assert row["shares"]["10"] == pytest.approx(sum(s[10] for s in shares.values()) / len(qrels))
    names = {entry["ground_truth"] for entry in scored.checks["stability"]}
    assert {"method: majority", "method: dawid-skene", "annotators: first half"} <= names
    majority = next(e for e in scored.checks["stability"] if e["ground_truth"] == "method: majority")
    assert majority["kendall_tau"] == pytest.approx(1.0) and majority["flipped"] == []


def test_a_request_joins_the_waiting_job(researcher, annotators):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    snapshot = build_snapshot(project.pk)
    first = request_evaluation(project, snapshot=snapshot)
    assert request_evaluation(project, snapshot=snapshot) == first
    assert request_evaluation(project, snapshot=snapshot, relevance_level=2) != first


def test_run_files_round_trip(scored):
    out = io.StringIO()
    row = RunScore.objects.get(evaluation=scored, run__tag="runA")
    write_run(stored_run(row.run_id), out, "runA")
    assert read_run(out.getvalue().splitlines())[0] == read_run(RUN_A.splitlines())[0]


def test_runs_added_later_extend_the_pool_and_a_dry_run_counts_first(researcher, annotators):
    from evaluation.collection.flow import import_collection

    project = make_project(researcher, annotators, k=3, pool_depth=2)
    before = project.tasks.count()
    run_c = "\n".join(["401 Q0 d1 1 9.0 runC", "401 Q0 d5 2 8.0 runC", "402 Q0 d2 1 1.0 runC"])
    preview = import_collection(project, runs=[run_c], pool_depth=2, dry_run=True)
    # d1 (401) is already pooled; (401, d5) and (402, d2) are new.
    assert (preview.tasks_created, preview.runs_created, preview.dry_run) == (2, 1, True)
    assert project.tasks.count() == before and not project.runs.filter(tag="runC").exists()
    done = import_collection(project, runs=[run_c], pool_depth=2, run_group="team-c")
    assert done.tasks_created == 2 and project.tasks.count() == before + 2
    assert project.runs.get(tag="runC").group == "team-c"


def test_a_pool_budget_judges_in_depth_order(researcher, annotators):
    from annotation.models import Project
    from evaluation.collection.flow import import_collection
    from tests.annotation.factories import DOCUMENTS, TOPICS

    project = Project.objects.create(name="Budget", owner=researcher, assignments_per_task=1)
    import_collection(
        project, topics=TOPICS, documents=DOCUMENTS, runs=[RUN_A, RUN_B], pool_depth=3, pool_budget=3
    )
    order = list(
        project.tasks.filter(topic__external_id="401")
        .order_by("pool_rank")
        .values_list("document__external_id", flat=True)
    )
    # Depth order: runA's first (d1), runB's first (d3), runA's second (d2); budget 3 stops there.
    assert order == ["d1", "d3", "d2"]


def test_rbp_pooling_orders_the_items_and_a_dry_run_shows_that_order(researcher, annotators):
    from annotation.models import Project
    from evaluation.collection.flow import import_collection
    from tests.annotation.factories import DOCUMENTS, TOPICS

    project = Project.objects.create(name="RBP", owner=researcher, assignments_per_task=1)
    options = {"topics": TOPICS, "documents": DOCUMENTS, "runs": [RUN_A, RUN_B], "pool_depth": 3}
    preview = import_collection(project, pool_method="rbp", dry_run=True, **options)
    # Topic 401: d3 is ranked by both runs (0.64 + 1), d1 and d2 by runA, d6 by runB.
    assert preview.judging_order["401"] == ["d3", "d1", "d2", "d6"]
    assert not project.topics.exists()
    import_collection(project, pool_method="rbp", **options)
    order = project.tasks.filter(topic__external_id="401").order_by("pool_rank")
    assert [t.document.external_id for t in order] == ["d3", "d1", "d2", "d6"]


def test_an_evaluation_the_broker_lost_is_sent_again(researcher, annotators):
    from datetime import timedelta

    from django.utils import timezone

    from evaluation.jobs import embedded, lifecycle
    from evaluation.scoring.jobs import EVALUATIONS

    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    lost = request_evaluation(project, snapshot=build_snapshot(project.pk))  # never sent (no commit here)
    assert lifecycle.recover(EVALUATIONS, waiting=set()).resent == []  # too new to be lost
    old = timezone.now() - timedelta(seconds=lifecycle.QUEUED_GRACE_SECONDS + 1)
    Evaluation.objects.filter(pk=lost.pk).update(created_at=old)
    assert lifecycle.recover(EVALUATIONS, waiting=set()).resent == [lost.pk]
    embedded.run_queued()
    lost.refresh_from_db()
    assert lost.status == Evaluation.Status.DONE
    assert lifecycle.recover(EVALUATIONS, waiting=set()).resent == []
