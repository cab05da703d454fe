"""diff_snapshots on real snapshot rows: a judgement that flips a majority shows up as one changed label."""

from __future__ import annotations

import pytest

from annotation.models import Judgement
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.diff import diff_snapshots
from tests.annotation.factories import make_project
from tests.annotation.test_ground_truth import ANSWERS, judge_everything

pytestmark = pytest.mark.django_db


def test_flipping_one_judgement_changes_exactly_that_label(researcher, annotators):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    first = build_snapshot(project.pk)
    # ("401", "d2") is 1, 0, 0 -> majority 0; turning the third vote to 1 makes it 1.
    judgement = Judgement.objects.get(
        task__topic__external_id="401", task__document__external_id="d2", annotator=annotators[2]
    )
    # Replace it (new row id) so the snapshot's input check sees new judgements.
    judgement.delete()
    judgement.pk = None
    judgement.label = 1
    judgement.save()
    second = build_snapshot(project.pk)
    assert second is not None and second.version == first.version + 1
    diff = diff_snapshots(first, second)
    assert [(old, new) for _task, old, new in diff.changed] == [(0, 1)]
    assert diff.changed[0][0] == judgement.task_id
    assert diff.added == [] and diff.removed == []
    assert diff.unchanged_count == len(ANSWERS) - 1


def test_the_diff_api_is_owner_only(client, researcher, outsider_researcher, annotators):
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    judge_everything(project, annotators)
    build_snapshot(project.pk)
    judgement = Judgement.objects.filter(task__project=project).first()
    judgement.delete()
    assert build_snapshot(project.pk).version == 2
    url = f"/api/projects/{project.pk}/snapshots/2/diff/?against=1"
    client.force_login(researcher)
    body = client.get(url).json()
    assert (body["from_version"], body["to_version"]) == (1, 2)
    assert body["added"] == [] and body["removed"] == []
    assert body["unchanged_count"] + len(body["changed"]) == len(ANSWERS)
    assert client.get(f"/api/projects/{project.pk}/snapshots/2/diff/?against=9").status_code == 404
    client.force_login(outsider_researcher)
    assert client.get(url).status_code == 404
    client.force_login(annotators[0])
    assert client.get(url).status_code == 403
    client.logout()
    assert client.get(url).status_code in (401, 403)
