"""``cranfield aggregate`` reads the judgements CSV the app downloads: its items are the app's items
(task ids, named with their topic and documents), gold items vote too, attention checks and
qualification answers do not, a correction's newest version counts (``--duplicates newest`` on the
every-version CSV), and the labels equal the app's own ground truth."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from annotation.crowd.io.labels import APP_JUDGEMENT_COLUMNS
from annotation.judging.assignment import claim_next_task, correct_judgement, submit_judgement
from annotation.models import Judgement, Task
from annotation.projects.downloads import JUDGEMENT_COLUMNS
from cranfield.cli import main
from evaluation.ground_truth.build import build_snapshot
from tests.annotation.factories import make_gold_project

pytestmark = pytest.mark.django_db


def test_the_cli_knows_the_apps_columns():
    assert list(APP_JUDGEMENT_COLUMNS) == JUDGEMENT_COLUMNS


@pytest.fixture
def judged(researcher, annotators):
    """Three annotators label every item (the third against the others on a few), gold included;
    one judgement is corrected afterwards."""
    project = make_gold_project(researcher, annotators, items=12, gold=3, k=3, gold_rate=0.2)
    for index, annotator in enumerate(annotators[:3]):
        while (lease := claim_next_task(project, annotator)) is not None:
            number = int(lease.task.document.external_id[1:])
            label = int(number % 2 == 0)
            if index == 2 and number % 3 == 0:
                label = 1 - label
            submit_judgement(lease.pk, annotator, label)
    first = (
        Judgement.objects.filter(annotator=annotators[0], task__kind=Task.Kind.ITEM).order_by("pk").first()
    )
    correct_judgement(first.pk, annotators[0], 1 - first.label)
    return project


def download(client, researcher, project, tmp_path, every_version: bool):
    client.force_login(researcher)
    query = {"versions": "all"} if every_version else {}
    response = client.get(reverse("judgements-download", args=[project.pk, "csv"]), query)
    path = tmp_path / f"project{project.pk}-judgements{'-all' if every_version else ''}.csv"
    path.write_bytes(b"".join(response.streaming_content))
    return path


def aggregated(capsys, *arguments) -> list[dict]:
    assert main(["aggregate", *map(str, arguments)]) == 0
    return list(csv.DictReader(io.StringIO(capsys.readouterr().out)))


def test_the_apps_csv_aggregates_to_the_apps_ground_truth(client, researcher, judged, tmp_path, capsys):
    snapshot = build_snapshot(judged.pk)
    app = {str(task): label for task, label in snapshot.labels.values_list("task_id", "label")}
    path = download(client, researcher, judged, tmp_path, every_version=False)
    rows = aggregated(capsys, path, "--method", "majority")
    items = {str(pk) for pk in judged.tasks.filter(kind=Task.Kind.ITEM).values_list("pk", flat=True)}
    gold = {str(pk) for pk in judged.tasks.filter(kind=Task.Kind.GOLD).values_list("pk", flat=True)}
    assert {row["item"] for row in rows} == items | (gold & {row["item"] for row in rows})
    assert {row["item"]: int(row["label"]) for row in rows if row["item"] in items} == {
        item: app[item] for item in items
    }
    task = judged.tasks.select_related("topic", "document").get(pk=int(rows[0]["item"]))
    assert (rows[0]["topic"], rows[0]["document"]) == (task.topic.external_id, task.document.external_id)


def test_every_version_needs_the_newest_rule_and_then_counts_the_correction(
    client, researcher, judged, tmp_path, capsys
):
    path = download(client, researcher, judged, tmp_path, every_version=True)
    assert main(["aggregate", str(path)]) != 0
    error = capsys.readouterr().err
    assert "has a second label from annotator" in error and "line" in error
    newest = aggregated(capsys, path, "--duplicates", "newest")
    latest = aggregated(capsys, download(client, researcher, judged, tmp_path, every_version=False))
    assert newest == latest


def test_ratings_are_refused_naming_the_line(client, researcher, annotators, tmp_path, capsys):
    from tests.annotation.factories import make_likert_project

    project = make_likert_project(researcher, annotators, items=2, k=1)
    lease = claim_next_task(project, annotators[0])
    submit_judgement(lease.pk, annotators[0], {"scores": {"quality": 4, "coherence": 3}})
    path = download(client, researcher, project, tmp_path, every_version=False)
    assert main(["aggregate", str(path)]) != 0
    assert "line 2, field 'label': empty" in capsys.readouterr().err
