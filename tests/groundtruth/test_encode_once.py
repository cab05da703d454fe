"""A snapshot encodes its labels once: the agreement figures, their intervals, the aggregation and
the annotator report all read the same integer codes."""

from __future__ import annotations

import pytest

from annotation.crowd.io import encoding
from annotation.models import Project
from evaluation.ground_truth.build import build_snapshot
from tests.groundtruth.builders import gold_items, items, judge, label_project, likert_project

pytestmark = pytest.mark.django_db

GRADED = {"levels": [{"value": value, "label": f"grade {value}"} for value in range(4)]}


@pytest.fixture
def encodes(monkeypatch) -> list:
    """Every encoding of triples or a DataFrame (``encode`` hands them all to ``_encode_columns``)."""
    calls = []
    real = encoding._encode_columns

    def counted(*columns):
        calls.append(len(columns[0]))
        return real(*columns)

    monkeypatch.setattr(encoding, "_encode_columns", counted)
    return calls


@pytest.mark.parametrize(
    "method,graded",
    [("majority", False), ("dawid-skene", False), ("gold-weighted", False), ("majority", True)],
)
def test_a_label_snapshot_encodes_its_labels_once(researcher, annotators, encodes, method, graded):
    settings = {"task_type": Project.TaskType.GRADED_RELEVANCE, "config": GRADED} if graded else {}
    project = label_project(researcher, annotators, items=8, gold=2, ground_truth_method=method, **settings)
    for position, task in enumerate(items(project)):
        for offset, person in enumerate(annotators):
            judge(task, person, (position + offset) % (4 if graded else 2))
    for task in gold_items(project):
        for person in annotators:
            judge(task, person, 1)
    assert build_snapshot(project.pk) is not None
    with_gold = 24 + (6 if method == "gold-weighted" else 0)
    assert encodes == [with_gold]


def test_a_rating_snapshot_encodes_each_dimension_once(researcher, annotators, encodes):
    project = likert_project(researcher, annotators, items=4)
    for position, task in enumerate(items(project)):
        for offset, person in enumerate(annotators):
            scores = {"fluency": 1 + (position + offset) % 5, "coherence": 1 + (position * offset) % 5}
            judge(task, person, {"scores": scores})
    assert build_snapshot(project.pk) is not None
    assert encodes == [12, 12]  # fluency, coherence
