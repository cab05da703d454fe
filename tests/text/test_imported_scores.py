"""A model-based metric's per-output scores (BERTScore, COMET, an LLM judge's rating, …) imported by
API, page and command join a done text evaluation like a built-in metric: its per-system means, the
meta-evaluation's heat map and scatter (checked against SciPy), its direction; bad input is refused
naming the field and line, and nothing is stored (issue 24, item 5)."""

from __future__ import annotations

import io
import json
import math

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from scipy import stats

from evaluation.models import OutputScore, TextEvaluation
from tests.scoring.test_pages_and_api import api
from tests.text.test_metrics_vs_humans_page import vectors

pytestmark = pytest.mark.django_db


def model_scores(evaluation: TextEvaluation, transform=lambda value, k: value + 0.01 * math.sin(k)) -> list:
    """A stand-in for a model's scores: each output's ROUGE-2, a little moved."""
    outputs = evaluation.outputs.order_by("system_id", "input_id")
    return [(o.system_id, o.input_id, transform(o.scores["rouge2"], k)) for k, o in enumerate(outputs)]


def as_csv(rows) -> str:
    return "system,input,value\n" + "".join(f"{s},{i},{v!r}\n" for s, i, v in rows)


def post_scores(researcher, project, evaluation, **body):
    url = reverse("text-evaluation-scores-api", args=[project.pk, evaluation.pk])
    return api(researcher).post(url, body, format="json")


def test_imported_scores_join_the_means_the_heat_map_and_the_scatter(researcher, evaluated):
    project, evaluation = evaluated
    rows = model_scores(evaluation)
    answer = post_scores(
        researcher,
        project,
        evaluation,
        metric="bertscore_f1",
        scores=as_csv(rows),
        signature="roberta-large|v0.3",
    )
    assert answer.status_code == 201, answer.content
    outputs = evaluation.outputs.count()
    systems = len({s for s, _, _ in rows})
    assert answer.json() == {
        "metric": "bertscore_f1",
        "outputs": outputs,
        "systems": systems,
        "higher_is_better": True,
        "signature": "roberta-large|v0.3",
    }
    evaluation.refresh_from_db()
    assert evaluation.metrics[-1] == "bertscore_f1" and evaluation.lower_is_better == []
    for system in {s for s, _, _ in rows}:
        mine = [v for s, _, v in rows if s == system]
        assert evaluation.per_system[system]["bertscore_f1"] == pytest.approx(sum(mine) / len(mine))
    stored = dict(
        ((o.system_id, o.input_id), o.scores) for o in OutputScore.objects.filter(evaluation=evaluation)
    )
    assert all(stored[s, i]["bertscore_f1"] == v and "rouge2" in stored[s, i] for s, i, v in rows)

    url = reverse("meta-evaluation-api", args=[project.pk, evaluation.pk])
    matrix = api(researcher).get(url, {"level": "global", "method": "pearson"}).json()
    assert "bertscore_f1" in matrix["metrics"] and "bertscore_f1" not in matrix["negated"]
    scores, human = vectors(project, evaluation, "bertscore_f1", "quality")
    expected = stats.pearsonr(scores, human).statistic
    assert matrix["cells"]["bertscore_f1"]["quality"]["value"] == pytest.approx(expected)
    scatter = (
        api(researcher)
        .get(
            reverse("scatter-api", args=[project.pk, evaluation.pk]),
            {"metric": "bertscore_f1", "dimension": "quality", "level": "global"},
        )
        .json()
    )
    assert scatter["signature"] == "roberta-large|v0.3"
    assert sorted(p["x"] for p in scatter["points"]) == pytest.approx(sorted(scores))


def test_a_lower_is_better_metric_is_negated_as_ter_is(researcher, evaluated):
    project, evaluation = evaluated
    rows = model_scores(evaluation, lambda value, k: 1 - value)  # an error rate of the model's
    body = {"metric": "llm_errors", "higher_is_better": False}
    rows_jsonl = "\n".join(json.dumps({"system": s, "input": i, "value": v}) for s, i, v in rows)
    assert post_scores(researcher, project, evaluation, scores=rows_jsonl, **body).status_code == 201
    url = reverse("meta-evaluation-api", args=[project.pk, evaluation.pk])
    matrix = api(researcher).get(url, {"level": "global", "method": "pearson"}).json()
    assert "llm_errors" in matrix["negated"]
    described = api(researcher).get(reverse("text-evaluation-api", args=[project.pk, evaluation.pk])).json()
    assert described["lower_is_better"] == ["llm_errors"] and described["metrics"][-1] == "llm_errors"
    cells = matrix["cells"]
    assert cells["llm_errors"]["quality"]["value"] == pytest.approx(cells["rouge2"]["quality"]["value"])


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda rows: rows + rows[:1], "scores", "again (line 2)"),
        (lambda rows: [*rows, ("nobody", "in0", 0.5)], "scores", "scored no output of system 'nobody'"),
        (lambda rows: rows[1:], "scores", "outputs have no score, the first"),
        (
            lambda rows: [(rows[0][0], rows[0][1], "high"), *rows[1:]],
            "scores",
            "line 2: value is not a number",
        ),
        (lambda rows: [(rows[0][0], rows[0][1], "nan"), *rows[1:]], "scores", "line 2: value is not finite"),
    ],
)
def test_bad_scores_are_refused_naming_the_line_and_nothing_is_stored(
    researcher, evaluated, change, field, message
):
    project, evaluation = evaluated
    before = {o.pk: o.scores for o in evaluation.outputs.all()}
    text = "system,input,value\n" + "".join(f"{s},{i},{v}\n" for s, i, v in change(model_scores(evaluation)))
    answer = post_scores(researcher, project, evaluation, metric="comet22", scores=text)
    assert answer.status_code == 400 and message in answer.json()[field][0], answer.content
    evaluation.refresh_from_db()
    assert "comet22" not in evaluation.metrics and "comet22" not in evaluation.signatures
    assert {o.pk: o.scores for o in evaluation.outputs.all()} == before


def test_a_name_is_checked_and_a_second_import_replaces_only_when_asked(researcher, evaluated):
    project, evaluation = evaluated
    text = as_csv(model_scores(evaluation))
    for name, message in (("rouge2", "a metric Cranfield computes"), ("9lives", "starts with a letter")):
        answer = post_scores(researcher, project, evaluation, metric=name, scores=text)
        assert answer.status_code == 400 and message in answer.json()["metric"][0]
    assert post_scores(researcher, project, evaluation, metric="judge", scores=text).status_code == 201
    again = post_scores(researcher, project, evaluation, metric="judge", scores=text)
    assert again.status_code == 400 and "replace" in again.json()["metric"][0]
    lower = as_csv(model_scores(evaluation, lambda value, k: -value))
    replaced = post_scores(researcher, project, evaluation, metric="judge", scores=lower, replace=True)
    assert replaced.status_code == 201
    evaluation.refresh_from_db()
    assert evaluation.metrics.count("judge") == 1
    assert all(o.scores["judge"] == -o.scores["rouge2"] for o in evaluation.outputs.all())
    both = post_scores(researcher, project, evaluation, metric="x")
    assert both.status_code == 400 and "scores" in both.json()
    running = TextEvaluation.objects.create(project=project)
    busy = post_scores(researcher, project, running, metric="x", scores=text)
    assert busy.status_code == 409 and "not done" in busy.json()["detail"]


def test_the_page_form_and_the_command_import_the_same_way(client, researcher, evaluated, tmp_path):
    project, evaluation = evaluated
    client.force_login(researcher)
    upload = SimpleUploadedFile("scores.csv", as_csv(model_scores(evaluation)).encode(), "text/csv")
    url = reverse("text-evaluation-scores", args=[project.pk, evaluation.pk])
    answered = client.post(
        url, {"metric": "comet22", "direction": "higher", "signature": "wmt22", "file": upload}
    )
    assert answered.status_code == 302 and answered["Location"] == reverse(
        "meta-evaluation", args=[project.pk]
    )
    page = client.get(answered["Location"]).content.decode()
    assert "comet22: " in page and "outputs of" in page and ">comet22<" in page.replace(" ", "")
    bad = SimpleUploadedFile("bad.csv", b"system,input,value\nnobody,in0,1\n", "text/csv")
    refused = client.post(url, {"metric": "other", "file": bad}, follow=True).content.decode()
    assert "The scores were not imported (file): line 2: this evaluation scored no output" in refused

    scores = tmp_path / "bleurt.csv"
    scores.write_text(as_csv(model_scores(evaluation, lambda value, k: 2 * value)))
    out = io.StringIO()
    call_command("import_text_scores", project.pk, evaluation.pk, scores, "--metric", "bleurt", stdout=out)
    assert "bleurt: " in out.getvalue() and "(higher is better)" in out.getvalue()
    evaluation.refresh_from_db()
    assert evaluation.metrics[-2:] == ["comet22", "bleurt"] and evaluation.signatures["comet22"] == "wmt22"
    scores.write_text("system,input,value\nnobody,in0,1\n")
    with pytest.raises(CommandError, match=r"bleurt\.csv: line 2: this evaluation scored no output"):
        call_command("import_text_scores", project.pk, evaluation.pk, scores, "--metric", "other")


def test_a_file_of_scores_uploads_and_one_that_is_not_utf8_is_refused(researcher, evaluated):
    project, evaluation = evaluated
    url = reverse("text-evaluation-scores-api", args=[project.pk, evaluation.pk])
    text = "\ufeff" + as_csv(model_scores(evaluation))  # a spreadsheet's byte-order mark is dropped
    upload = SimpleUploadedFile("scores.csv", text.encode(), "text/csv")
    answer = api(researcher).post(url, {"metric": "comet22", "file": upload}, format="multipart")
    assert answer.status_code == 201, answer.content
    latin = SimpleUploadedFile("scores.csv", "system,input,value\nsé,in0,1\n".encode("latin-1"), "text/csv")
    refused = api(researcher).post(url, {"metric": "other", "file": latin}, format="multipart")
    assert refused.status_code == 400 and refused.json() == {"file": ["the file is not UTF-8 text"]}
