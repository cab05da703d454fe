"""The ground truth merges prior and crowd labels under the project's precedence, records each item's
source and both labels, puts the pairs only a prior set judged in the qrels, and leaves the snapshots of
projects without prior sets as they were."""

from __future__ import annotations

import pytest

from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.downloads import qrels_text, snapshot_qrels
from evaluation.metrics.trec.files import read_qrels
from evaluation.models import LabelSource, PriorQrels, SnapshotLabel
from evaluation.prior.importing import import_prior_qrels
from evaluation.prior.merge import merge_labels
from evaluation.prior.settings import set_precedence
from tests.annotation.factories import make_project
from tests.scoring.conftest import judge_everything

pytestmark = pytest.mark.django_db

# The crowd (majority of three, one dissenting) says 401: d1 1, d2 0, d3 1, d6 0; 402: d4 1, d5 0, d6 0.
# The prior set disagrees on 401/d1, agrees on 401/d2 and 402/d4, and judges two pairs no one pooled.
PRIOR = "401 0 d1 0\n401 0 d2 0\n402 0 d4 1\n402 0 d2 1\n401 0 d5 0\n"
CROWD = {"401": {"d1": 1, "d2": 0, "d3": 1, "d6": 0}, "402": {"d4": 1, "d5": 0, "d6": 0}}


@pytest.fixture
def judged(researcher, annotators):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    return project


def labels_by_pair(snapshot) -> dict:
    rows = SnapshotLabel.objects.filter(snapshot=snapshot).values_list(
        "task__topic__external_id",
        "task__document__external_id",
        "label",
        "source",
        "prior_label",
        "crowd_label",
    )
    return {(t, d): rest for t, d, *rest in rows}


def test_without_prior_sets_the_snapshot_is_the_crowds_alone(judged):
    snapshot = build_snapshot(judged.pk)
    assert snapshot_qrels(snapshot) == CROWD
    assert {source for _, source, _, _ in labels_by_pair(snapshot).values()} == {LabelSource.CROWD}
    assert "prior" not in snapshot.parameters and "prior" not in snapshot.agreement
    assert "|prior" not in snapshot.signature


def test_prior_wins_takes_the_prior_label_where_both_judged(judged):
    import_prior_qrels(judged, "nist", PRIOR, assessor="NIST assessors")
    snapshot = build_snapshot(judged.pk)
    rows = labels_by_pair(snapshot)
    assert rows[("401", "d1")] == [0, "both", 0, 1]
    assert rows[("401", "d2")] == [0, "both", 0, 0]
    assert rows[("402", "d4")] == [1, "both", 1, 1]
    assert rows[("401", "d3")] == [1, "crowd", None, None]
    expected = {"401": CROWD["401"] | {"d1": 0, "d5": 0}, "402": CROWD["402"] | {"d2": 1}}
    assert snapshot_qrels(snapshot) == expected
    assert read_qrels(qrels_text(snapshot).splitlines()) == expected  # the download says the same
    assert snapshot.parameters["prior"] == "prior-wins" and snapshot.parameters["prior_sets"] == "nist"
    assert "prior:prior-wins" in snapshot.signature and snapshot.method == "majority"
    assert snapshot.prior_labels.count() == 2


def test_crowd_wins_keeps_the_crowd_label_and_still_adds_the_prior_only_pairs(judged):
    import_prior_qrels(judged, "nist", PRIOR)
    set_precedence(judged, "crowd-wins")
    snapshot = build_snapshot(judged.pk)
    assert labels_by_pair(snapshot)[("401", "d1")] == [1, "both", 0, 1]
    assert snapshot_qrels(snapshot) == {"401": CROWD["401"] | {"d5": 0}, "402": CROWD["402"] | {"d2": 1}}


def test_crowd_only_where_prior_is_missing_labels_the_overlap_from_the_prior(judged):
    import_prior_qrels(judged, "nist", PRIOR)
    set_precedence(judged, "crowd-where-missing")
    snapshot = build_snapshot(judged.pk)
    rows = labels_by_pair(snapshot)
    assert rows[("401", "d1")] == [0, "prior", 0, 1]
    assert rows[("401", "d6")] == [0, "crowd", None, None]
    assert snapshot_qrels(snapshot)["401"]["d1"] == 0


def test_the_precedence_and_the_prior_sets_are_inputs_but_a_project_without_them_fingerprints_as_before(
    judged,
):
    first = build_snapshot(judged.pk)
    set_precedence(judged, "crowd-wins")  # no prior set: nothing to merge, nothing new
    assert build_snapshot(judged.pk) is None
    import_prior_qrels(judged, "nist", PRIOR)
    second = build_snapshot(judged.pk)
    assert second.version == 2 and second.input_fingerprint != first.input_fingerprint
    set_precedence(judged, "prior-wins")
    assert build_snapshot(judged.pk).version == 3
    PriorQrels.objects.filter(project=judged).delete()
    fourth = build_snapshot(judged.pk)
    assert fourth.version == 4 and fourth.input_fingerprint == first.input_fingerprint
    assert snapshot_qrels(fourth) == snapshot_qrels(first) == CROWD


def test_two_prior_sets_judging_one_pair_the_later_dated_counts(judged):
    from datetime import date

    import_prior_qrels(judged, "newer", "401 0 d3 0\n", judged_on=date(2020, 1, 1))
    import_prior_qrels(judged, "older", "401 0 d3 1\n401 0 d6 1\n", judged_on=date(1999, 1, 1))
    snapshot = build_snapshot(judged.pk)
    rows = labels_by_pair(snapshot)
    assert rows[("401", "d3")] == [0, "both", 0, 1]
    assert rows[("401", "d6")] == [1, "both", 1, 0]
    assert snapshot.parameters["prior_sets"] == "older+newer"


def test_merge_labels_follows_each_precedence():
    labels = [(1, 1, 0.7, 3, {}), (2, 0, 1.0, 3, {}), (3, 1, 0.6, 3, {})]
    pairs = {1: (10, 100), 2: (10, 101), 3: (11, 100)}
    prior = {(10, 100): 0, (10, 101): 0, (12, 200): 1}
    won = merge_labels(labels, pairs, prior, "prior-wins")
    assert won.labels == [(1, 0, 1.0, 3, {}), (2, 0, 1.0, 3, {}), (3, 1, 0.6, 3, {})]
    assert won.sources == {1: ("both", 0, 1), 2: ("both", 0, 0)}
    assert won.prior_only == [(12, 200, 1)]
    lost = merge_labels(labels, pairs, prior, "crowd-wins")
    assert lost.labels == labels and lost.sources[1] == ("both", 0, 1)
    assert merge_labels(labels, pairs, prior, "crowd-where-missing").sources[1] == ("prior", 0, 1)
    with pytest.raises(ValueError, match="precedence"):
        merge_labels(labels, pairs, prior, "coin-toss")


def test_prior_labels_off_the_projects_scale_are_refused_naming_the_line(judged):
    from annotation.items.importing import ImportProblem

    with pytest.raises(ImportProblem, match=r"line 2: label 2 is not on the project's scale \(0, 1\)"):
        import_prior_qrels(judged, "graded", "401 0 d1 1\n401 0 d2 2\n")
    assert not PriorQrels.objects.exists()


def test_importing_a_prior_set_asks_for_a_snapshot_that_merges_it(
    judged, researcher, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    from evaluation.jobs import embedded
    from evaluation.models import GroundTruthSnapshot
    from tests.prior.test_prior_import_and_pooling import api

    assert build_snapshot(judged.pk).version == 1
    with django_capture_on_commit_callbacks(execute=True):
        answer = api(researcher).post(
            reverse("prior-qrels-api", args=[judged.pk]), {"name": "nist", "qrels": PRIOR}, format="json"
        )
    assert answer.status_code == 201
    embedded.run_queued()
    newest = GroundTruthSnapshot.objects.filter(project=judged).latest()
    assert newest.version == 2 and newest.parameters["prior_sets"] == "nist"
    assert snapshot_qrels(newest)["402"]["d2"] == 1


def test_the_crowd_against_external_qrels_compares_the_crowds_own_labels(judged):
    from evaluation.collection.external_qrels import import_external_qrels
    from evaluation.ground_truth.downloads import crowd_qrels
    from evaluation.scoring.external import crowd_against_external

    import_prior_qrels(judged, "nist", PRIOR)
    snapshot = build_snapshot(judged.pk)
    assert crowd_qrels(snapshot) == CROWD  # 401/d1 stays the crowd's 1; no prior-only pair
    external = import_external_qrels(judged, "official", "401 0 d1 1\n401 0 d5 1\n402 0 d2 1\n")
    report = crowd_against_external(snapshot, external)
    assert [(row["topic"], row["shared"]) for row in report["topics"]] == [("401", 1), ("402", 0)]
