"""A pairwise project ranks its systems: items name the systems of both outputs, every annotator's
comparison goes into a Bradley-Terry fit stored with the ground-truth snapshot, equal to choix's
maximum-likelihood fit on the same comparisons, shown on the Systems page and as CSV."""

from __future__ import annotations

import csv
import io
import itertools

import choix
import numpy as np
import pytest
from django.urls import reverse

from annotation.items.importing import ImportProblem
from annotation.judging.assignment import RecordedJudgement, record_judgements
from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.ground_truth.build import build_snapshot
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

STRENGTH = {"lead": 4.0, "bart": 2.0, "pgn": 1.0, "random": 0.5}


@pytest.fixture
def compared(researcher, django_user_model):
    """Every pair of the four systems compared on 12 inputs by three annotators who pick the
    winner as Bradley-Terry with ``STRENGTH`` would (seeded)."""
    annotators = [django_user_model.objects.create_user(f"rater{n}", password="x") for n in range(3)]
    project = Project.objects.create(
        name="Pairs", owner=researcher, task_type="pairwise", assignments_per_task=3
    )
    project.annotators.set(annotators)
    inputs = [f"in{i}" for i in range(12)]
    documents = [{"id": f"{s}-{i}", "text": f"{s} summary of {i}"} for s in STRENGTH for i in inputs]
    items = [
        {"document": f"{a}-{i}", "document_b": f"{b}-{i}", "system": a, "system_b": b, "input": i}
        for i in inputs
        for a, b in itertools.combinations(STRENGTH, 2)
    ]
    import_collection(project, documents=documents, items=items)
    rng = np.random.default_rng(7)
    judgements = []
    for task in project.tasks.all():
        first, second = STRENGTH[task.system_id], STRENGTH[task.system_b_id]
        for annotator in annotators:
            label = 0 if rng.random() < first / (first + second) else 1
            judgements.append(RecordedJudgement(task, annotator, {"label": label}))
    record_judgements(project, judgements)
    return project, build_snapshot(project.pk)


def test_the_snapshot_ranks_the_systems_as_choix_fits_them(compared):
    project, snapshot = compared
    described = snapshot.agreement["systems"]
    assert described["method"] == "bradley-terry" and described["error"] is None
    assert described["comparisons"] == 12 * 6 * 3
    # choix's maximum-likelihood fit (no regularisation) on the same comparisons, as (winner, loser).
    names = list(STRENGTH)
    pairs = []
    for task in project.tasks.prefetch_related("judgements"):
        for judgement in task.judgements.all():
            winner, loser = (
                (task.system_id, task.system_b_id)
                if judgement.label == 0
                else (task.system_b_id, task.system_id)
            )
            pairs.append((names.index(winner), names.index(loser)))
    theta = choix.opt_pairwise(len(names), pairs, alpha=0, tol=1e-12)
    expected = np.exp(theta) / np.exp(theta).sum()
    ranking = {row["system"]: row for row in described["ranking"]}
    for name, value in zip(names, expected, strict=True):
        assert ranking[name]["strength"] == pytest.approx(value, abs=1e-6)
        assert ranking[name]["low"] <= ranking[name]["strength"] <= ranking[name]["high"]
        assert ranking[name]["comparisons"] == 12 * 3 * 3
    assert described["ranking"][0]["system"] == "lead"
    assert sum(row["wins"] for row in described["ranking"]) == described["comparisons"]


def test_the_systems_page_and_csv_show_the_ranking(client, researcher, compared):
    project, snapshot = compared
    client.force_login(researcher)
    page = client.get(reverse("systems-page", args=[project.pk])).content.decode()
    assert "Bradley–Terry" in page and 'id="ranking"' in page
    rows = list(
        csv.DictReader(
            io.StringIO(
                client.get(reverse("systems-page", args=[project.pk]), {"as": "csv"}).content.decode()
            )
        )
    )
    stored = snapshot.agreement["systems"]["ranking"]
    assert [row["system"] for row in rows] == [row["system"] for row in stored]
    assert [float(row["strength"]) for row in rows] == pytest.approx([row["strength"] for row in stored])
    assert [row["rank"] for row in rows] == ["1", "2", "3", "4"]
    data = api(researcher).get(reverse("systems-api", args=[project.pk])).json()
    assert data["snapshot"] == snapshot.version and data["ranking"] == stored


def test_a_system_that_never_loses_is_named_instead_of_ranked(researcher, annotators):
    project = Project.objects.create(name="P", owner=researcher, task_type="pairwise", assignments_per_task=1)
    project.annotators.set(annotators)
    import_collection(
        project,
        documents=[{"id": d, "text": d} for d in ("a1", "b1", "a2", "b2")],
        items=[
            {"document": "a1", "document_b": "b1", "system": "A", "system_b": "B"},
            {"document": "a2", "document_b": "b2", "system": "A", "system_b": "B"},
        ],
    )
    record_judgements(
        project, [RecordedJudgement(t, annotators[0], {"label": 0}) for t in project.tasks.all()]
    )
    described = build_snapshot(project.pk).agreement["systems"]
    assert described["ranking"] == [] and "not strongly connected" in described["error"]


@pytest.mark.parametrize(
    ("item", "field", "message"),
    [
        ({"system": "A"}, "items[0].system_b", "both outputs"),
        ({"system_b": "B"}, "items[0].system", "both outputs"),
        ({"system": "A", "system_b": "A"}, "items[0].system_b", "two different systems"),
    ],
)
def test_a_pairwise_item_names_two_different_systems_or_none(researcher, item, field, message):
    project = Project.objects.create(name="P", owner=researcher, task_type="pairwise", assignments_per_task=1)
    with pytest.raises(ImportProblem) as failed:
        import_collection(
            project,
            documents=[{"id": "x", "text": "x"}, {"id": "y", "text": "y"}],
            items=[{"document": "x", "document_b": "y", **item}],
        )
    assert failed.value.field == field and message in failed.value.message
    assert project.tasks.count() == 0


def test_only_pairwise_items_have_a_second_system(researcher):
    project = Project.objects.create(
        name="P", owner=researcher, task_type="likert", assignments_per_task=1,
        config={"dimensions": ["quality"], "scale": [1, 5]},
    )  # fmt: skip
    response = api(researcher).post(
        reverse("import-api", args=[project.pk]),
        {
            "documents": [{"id": "x", "text": "x"}],
            "items": [{"document": "x", "system": "A", "system_b": "B"}],
        },
        format="json",
    )
    assert response.status_code == 400
    assert "second system" in str(response.json()["items[0].system_b"])


def test_a_system_in_fewer_than_ten_comparisons_gets_no_interval_but_the_reason():
    from evaluation.ground_truth.compute import system_ranking

    # A and B meet 24 times (A wins 16), C meets A 4 times and B 2 times, winning half.
    pairs = [("A", "B")] * 24 + [("A", "C")] * 4 + [("B", "C")] * 2
    systems = {task: pair for task, pair in enumerate(pairs)}
    labels = [0] * 16 + [1] * 8 + [0, 1, 0, 1] + [0, 1]
    described = system_ranking([(task, "rater", label) for task, label in enumerate(labels)], systems)
    ranking = {row["system"]: row for row in described["ranking"]}
    assert described["minimum_comparisons"] == 10 and ranking["C"]["comparisons"] == 6
    assert ranking["C"]["low"] is None and ranking["C"]["high"] is None
    assert ranking["C"]["reason"] == "too few comparisons for an interval (6; needs at least 10)"
    for name in ("A", "B"):
        assert ranking[name]["reason"] is None
        assert 0 <= ranking[name]["low"] <= ranking[name]["strength"] <= ranking[name]["high"] <= 1


def test_the_qrels_download_of_a_pairwise_project_writes_each_pair_as_preferences(compared, researcher):
    """Found on the way (issue 25, item 7): the download wrote ``None 0 docno label``, the topic of
    an item without one and only its first document. Now trec_eval's preference qrels: per item a
    judgement sub-group of its two documents, the preferred one rel 1, under its input as the query."""
    project, snapshot = compared
    url = reverse("snapshot-qrels-api", args=[project.pk, snapshot.version])
    text = api(researcher).get(url).content.decode()
    assert "None" not in text
    lines = [line.split() for line in text.splitlines()]
    assert all(len(fields) == 4 for fields in lines)
    labels = dict(snapshot.labels.values_list("task_id", "label"))
    assert len(lines) == 2 * len(labels)
    by_group: dict[str, dict[str, int]] = {}
    for query, group, document, rel in lines:
        by_group.setdefault(group, {})[document] = int(rel)
        assert document.endswith(f"-{query}")  # the input both outputs summarise
    for task in project.tasks.all():
        preferred = task.document if labels[task.pk] == 0 else task.document_b
        other = task.document_b if labels[task.pk] == 0 else task.document
        assert by_group[f"pair{task.pk}"] == {preferred.external_id: 1, other.external_id: 0}
