"""The per-annotator table and the agreement report: every figure checked against an independent
computation (scikit-learn, statistics, the crowd module), and the table's cost is fixed."""

from __future__ import annotations

import statistics
from collections import Counter

import pytest
from django.db import connection
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from annotation.crowd.aggregation.dawid_skene import dawid_skene
from annotation.models import Membership
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.report import agreement_report, annotator_table, judgement_volume
from tests.groundtruth.builders import correct, gold_items, items, judge, label_project, likert_project

pytestmark = pytest.mark.django_db

# Labels of annotators 0, 1 and 2 on items d0…d7.
LABELS = [(1, 1, 1), (1, 0, 0), (0, 0, 0), (1, 1, 0), (0, 1, 1), (1, 1, 1), (0, 0, 1), (1, 0, 1)]
SECONDS = [[3, 5, 4, 10, 2, 8, 7, 1], [20, 30, 25, 35, 40, 45, 50, 55], [1, 1, 2, 2, 3, 3, 4, 5]]


def majority(votes) -> int:
    return int(sum(votes) * 2 > len(votes))


@pytest.fixture
def project(researcher, annotators):
    project = label_project(researcher, annotators, items=8, gold=2, quality_threshold=0.7)
    for position, (task, votes) in enumerate(zip(items(project), LABELS, strict=True)):
        for index, (annotator, label) in enumerate(zip(annotators, votes, strict=True)):
            judge(task, annotator, label, seconds=SECONDS[index][position])
    g0, g1 = gold_items(project)  # expected 1 and 0
    judge(g0, annotators[0], 1)
    judge(g1, annotators[0], 0)
    correct(judge(g0, annotators[1], 0), 1)  # wrong first, corrected after feedback
    return project


def rows_by_name(rows):
    return {row["username"]: row for row in rows}


def twice_over(researcher, annotators):
    """The fixture's labels twice over (16 items): every pair shares the 10 items a kappa needs."""
    project = label_project(researcher, annotators, items=16)
    for task, votes in zip(items(project), LABELS * 2, strict=True):
        for annotator, label in zip(annotators, votes, strict=True):
            judge(task, annotator, label)
    return project


def test_agreement_comes_from_the_snapshot_and_volume_and_time_are_live(project, annotators):
    build_snapshot(project.pk)
    rows = rows_by_name(annotator_table(project))
    for index, annotator in enumerate(annotators):
        row = rows[annotator.username]
        mine = [votes[index] for votes in LABELS]
        agreed = sum(label == majority(votes) for label, votes in zip(mine, LABELS, strict=True))
        assert row["agreement_with_aggregate"] == pytest.approx(agreed / len(LABELS))
        assert row["agreement_compared"] == len(LABELS)
        assert row["labels_given"] == len(LABELS)
        assert row["median_seconds"] == pytest.approx(statistics.median(SECONDS[index]))
        assert row["in_snapshot"] and row["status"] == "active" and not row["blocked"]
        assert row["reliability"] is None  # majority vote estimates none


def test_gold_accuracy_counts_first_answers_so_a_correction_does_not_raise_it(project, annotators):
    rows = rows_by_name(annotator_table(project))
    first, second, third = (rows[a.username] for a in annotators)
    assert (first["gold_answered"], first["gold_correct"], first["gold_accuracy"]) == (2, 2, 1.0)
    assert (second["gold_answered"], second["gold_correct"], second["gold_accuracy"]) == (1, 0, 0.0)
    assert (third["gold_answered"], third["gold_accuracy"]) == (0, None)


def test_flags_use_gold_accuracy_and_without_gold_the_agreement_with_the_aggregate(project, annotators):
    build_snapshot(project.pk)
    rows = annotator_table(project)
    by_name = rows_by_name(rows)
    assert not by_name[annotators[0].username]["flagged"]
    assert by_name[annotators[1].username]["flagged"]
    assert "gold accuracy 0% is below 70%" in by_name[annotators[1].username]["flag_reason"]
    third = by_name[annotators[2].username]  # no gold: agreement 6/8 = 75% ≥ 70%
    assert third["agreement_with_aggregate"] == pytest.approx(0.75) and not third["flagged"]
    project.quality_threshold = 0.8
    third = rows_by_name(annotator_table(project))[annotators[2].username]
    assert third["flagged"] and "agreement with the aggregate 75% is below 80%" in third["flag_reason"]
    assert [row["flagged"] for row in annotator_table(project)] == sorted(
        (row["flagged"] for row in annotator_table(project)), reverse=True
    )  # flagged first


def test_a_blocked_annotator_is_listed_as_blocked_and_left_out_of_the_snapshot(project, annotators):
    Membership.objects.filter(project=project, annotator=annotators[2]).update(
        status=Membership.Status.BLOCKED
    )
    build_snapshot(project.pk)
    row = rows_by_name(annotator_table(project))[annotators[2].username]
    assert row["blocked"] and row["status"] == "blocked"
    assert not row["in_snapshot"] and row["agreement_with_aggregate"] is None
    assert row["labels_given"] == len(LABELS)  # live volume still shows what they did


def test_the_median_time_is_the_same_from_postgresql_and_from_python(project, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("compares PostgreSQL's percentile_cont with the Python fallback")
    from_database = judgement_volume(project)
    monkeypatch.setattr(connection, "vendor", "sqlite")
    assert judgement_volume(project) == from_database  # medians of whole numbers: exact halves


def test_the_table_costs_the_same_few_queries_however_many_annotators(project, django_assert_max_num_queries):
    snapshot = build_snapshot(project.pk)
    with django_assert_max_num_queries(4):  # volume, gold answers, memberships, strangers
        annotator_table(project, snapshot)
    with django_assert_max_num_queries(5):  # and the newest snapshot
        annotator_table(project)


def test_dawid_skene_reliability_is_the_crowd_modules_estimate(project, annotators):
    project.ground_truth_method = "dawid-skene"
    project.save()
    snapshot = build_snapshot(project.pk)
    triples = [
        (task.pk, annotator.pk, votes[index])
        for task, votes in zip(items(project), LABELS, strict=True)
        for index, annotator in enumerate(annotators)
    ]
    expected = dawid_skene(triples).parameters["annotator_reliability"]
    rows = rows_by_name(annotator_table(project, snapshot))
    for annotator in annotators:
        assert rows[annotator.username]["reliability"] == pytest.approx(expected[annotator.pk])


def test_confusion_matrices_and_pairwise_kappa_agree_with_scikit_learn(project, annotators, researcher):
    snapshot = build_snapshot(project.pk)
    report = agreement_report(project, snapshot)
    truth = [majority(votes) for votes in LABELS]
    matrices = {row["username"]: row["matrix"] for row in report["confusion"]["annotators"]}
    assert report["confusion"]["classes"] == [0, 1]
    assert report["confusion"]["class_names"] == ["not relevant", "relevant"]
    for index, annotator in enumerate(annotators):
        given = [votes[index] for votes in LABELS]
        assert matrices[annotator.username] == confusion_matrix(truth, given, labels=[0, 1]).tolist()
    # Eight shared items are fewer than a kappa needs: every cell is empty.
    (few,) = report["pairwise"]
    assert all(value is None for row in few["kappa"] for value in row) and few["min_shared"] == 10
    doubled = twice_over(researcher, annotators)
    (panel,) = agreement_report(doubled, build_snapshot(doubled.pk))["pairwise"]
    names = [annotator["username"] for annotator in panel["annotators"]]
    assert sorted(names) == sorted(a.username for a in annotators) and panel["weights"] == "none"
    for i, first in enumerate(names):
        for j, second in enumerate(names):
            if i == j:
                assert panel["kappa"][i][j] is None
                continue
            a, b = (next(k for k, x in enumerate(annotators) if x.username == n) for n in (first, second))
            expected = cohen_kappa_score([v[a] for v in LABELS], [v[b] for v in LABELS])
            assert panel["kappa"][i][j] == pytest.approx(expected) and panel["shared"][i][j] == 2 * len(
                LABELS
            )


def test_every_agreement_figure_says_what_it_rests_on(project, researcher, annotators):
    snapshot = build_snapshot(project.pk)
    figures = {figure["name"]: figure for figure in agreement_report(project, snapshot)["figures"]}
    assert set(figures) == {
        "Fleiss' kappa",
        "Mean Cohen's kappa",
        "PABAK (prevalence- and bias-adjusted kappa)",
        "Krippendorff's alpha (nominal)",
    }
    for name in (
        "Fleiss' kappa",
        "PABAK (prevalence- and bias-adjusted kappa)",
        "Krippendorff's alpha (nominal)",
    ):
        assert (figures[name]["n_items"], figures[name]["n_annotators"]) == (8, 3)
        assert figures[name]["value"] is not None and figures[name]["note"] and figures[name]["low"] is None
    for name in ("Fleiss' kappa", "Krippendorff's alpha (nominal)"):
        assert figures[name]["interval_reason"] == "too few items for an interval (8; needs at least 30)"
    # No pair shares the 10 items a kappa needs: no mean, and the note says why.
    cohen = figures["Mean Cohen's kappa"]
    assert cohen["value"] is None and cohen["note"] == "no two annotators share 10 items yet"
    doubled = twice_over(researcher, annotators)
    figures = {f["name"]: f for f in agreement_report(doubled, build_snapshot(doubled.pk))["figures"]}
    assert list(figures) == [
        "Fleiss' kappa",
        "Mean Cohen's kappa",
        "PABAK (prevalence- and bias-adjusted kappa)",
        "Krippendorff's alpha (nominal)",
    ]
    for figure in figures.values():
        assert (figure["n_items"], figure["n_annotators"]) == (16, 3)
        assert figure["value"] is not None and figure["note"]
    assert figures["Mean Cohen's kappa"]["note"] == (
        "mean over 3 pairs of annotators sharing at least 10 items, each weighted by the items it shares"
    )
    # p_o by hand: the share of (pair, item) entries on which the pair agrees; twice over, as once.
    agree = sum((v[0] == v[1]) + (v[0] == v[2]) + (v[1] == v[2]) for v in LABELS) / (3 * len(LABELS))
    assert figures["PABAK (prevalence- and bias-adjusted kappa)"]["value"] == pytest.approx(2 * agree - 1)


def test_a_report_before_any_snapshot_has_only_the_live_annotator_table(project, annotators):
    report = agreement_report(project, None)
    assert report["snapshot"] is None and report["figures"] == [] and report["pairwise"] == []
    assert {row["username"] for row in report["annotators"]} == {a.username for a in annotators}


def test_likert_agreement_with_the_aggregate_is_within_one_point_of_the_median_on_every_dimension(
    researcher, annotators
):
    project = likert_project(researcher, annotators, items=12)
    ratings = [  # (fluency, coherence) of annotators 0, 1, 2 on s0…s3, three times over (12 items)
        [(5, 4), (4, 4), (1, 4)],
        [(2, 2), (2, 3), (3, 5)],
        [(3, 3), (4, 4), (5, 5)],
        [(1, 1), (1, 2), (1, 1)],
    ] * 3
    for task, row in zip(items(project), ratings, strict=True):
        for annotator, (fluency, coherence) in zip(annotators, row, strict=True):
            judge(task, annotator, {"scores": {"fluency": fluency, "coherence": coherence}})
    snapshot = build_snapshot(project.pk)
    rows = rows_by_name(annotator_table(project, snapshot))
    for index, annotator in enumerate(annotators):
        agreed = 0
        for row in ratings:
            medians = [statistics.median(r[d] for r in row) for d in (0, 1)]
            agreed += all(abs(row[index][d] - medians[d]) <= 1 for d in (0, 1))
        assert rows[annotator.username]["agreement_with_aggregate"] == pytest.approx(agreed / len(ratings))
    report = agreement_report(project, snapshot)
    assert [panel["dimension"] for panel in report["dimensions"]] == ["fluency", "coherence"]
    assert [panel["dimension"] for panel in report["pairwise"]] == ["fluency", "coherence"]
    assert {panel["weights"] for panel in report["pairwise"]} == {"quadratic"}
    assert report["confusion"] is None
    fluency = report["pairwise"][0]
    names = [a["username"] for a in fluency["annotators"]]
    i, j = names.index(annotators[0].username), names.index(annotators[1].username)
    expected = cohen_kappa_score([r[0][0] for r in ratings], [r[1][0] for r in ratings], weights="quadratic")
    assert fluency["kappa"][i][j] == pytest.approx(expected)
    assert Counter(row["labels_given"] for row in report["annotators"]) == Counter({12: 3})


def test_a_snapshot_written_before_the_one_vocabulary_is_read_the_same_way(researcher, annotators):
    """Computation version 2 stored "assessors" where version 3 stores "annotators"."""
    from evaluation.ground_truth.report import annotator_report_of

    project = label_project(researcher, annotators, items=3)
    for task in items(project):
        for annotator in annotators:
            judge(task, annotator, 1)
    snapshot = build_snapshot(project.pk)
    current = annotator_report_of(snapshot)
    old = dict(snapshot.annotator_report)
    old["assessors"] = old.pop("annotators")
    old["pairwise"] = [
        {("assessors" if key == "annotators" else key): value for key, value in panel.items()}
        for panel in old["pairwise"]
    ]
    snapshot.annotator_report = old
    assert annotator_report_of(snapshot) == current
