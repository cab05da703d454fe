"""Text projects in the app: references imported with the collection or taken in one step from a
free-text project (writers kept); a text evaluation job scores every output equal to
``text_scores.score_outputs`` (and ROUGE-1 to rouge-score), stored per output and per system with
signatures; the meta-evaluation (API and page) equals SciPy's correlations on the same vectors;
owner only."""

from __future__ import annotations

import html
import random

import pytest
from django.urls import reverse
from rouge_score import rouge_scorer
from scipy import stats

from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.models import Project
from evaluation.collection.flow import import_collection
from evaluation.ground_truth.build import build_snapshot
from evaluation.ground_truth.downloads import rating_summary
from evaluation.jobs import embedded
from evaluation.metrics.text.scores import METRICS, Output, score_outputs
from evaluation.models import Reference, TextEvaluation
from tests.annotation.factories import LIKERT_CONFIG
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

WORDS = ["wing", "flow", "shock", "layer", "heat", "pressure", "boundary", "laminar", "the", "a"]
SYSTEMS = {"lead": 0.9, "keywords": 0.5, "random": 0.1}  # how much of the reference each copies
INPUTS = 6


def summary_like(reference: str, share: float, rng: random.Random) -> str:
    words = reference.split()
    return " ".join(w if rng.random() < share else rng.choice(WORDS) for w in words)


@pytest.fixture
def text_project(researcher, annotators):
    """A Likert project of 3 systems × 6 inputs with two references per input, rated by two annotators
    who rate closer copies of the references higher."""
    rng = random.Random(0)
    references = {
        f"in{i}": [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(2)] for i in range(INPUTS)
    }
    project = Project.objects.create(
        name="Summaries", owner=researcher, task_type="likert", config=LIKERT_CONFIG, assignments_per_task=2
    )
    project.annotators.set(annotators)
    documents, items = [], []
    for system, share in SYSTEMS.items():
        for input_id, texts in references.items():
            documents.append({"id": f"{system}-{input_id}", "text": summary_like(texts[0], share, rng)})
            items.append({"document": f"{system}-{input_id}", "system": system, "input": input_id})
    body = {
        "documents": documents,
        "items": items,
        "references": [
            {"input": i, "text": t, "writer": f"w{n}"}
            for i, texts in references.items()
            for n, t in enumerate(texts)
        ],
    }
    response = api(researcher).post(reverse("import-api", args=[project.pk]), body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["references_created"] == 2 * INPUTS
    for offset, annotator in enumerate(annotators[:2]):
        while (lease := claim_next_task(project, annotator)) is not None:
            base = 1 + round(4 * SYSTEMS[lease.task.system_id])
            quality = max(1, min(5, base - offset + rng.choice([-1, 0, 0, 1])))
            submit_judgement(
                lease.pk, annotator, {"scores": {"quality": quality, "coherence": max(1, base - 1)}}
            )
    build_snapshot(project.pk)
    return project, references


def run_text_evaluation(researcher, project, capture, **body) -> dict:
    with capture(execute=True):
        response = api(researcher).post(
            reverse("text-evaluations-api", args=[project.pk]), body, format="json"
        )
    assert response.status_code == 202, response.content
    assert embedded.run_queued() >= 1
    return api(researcher).get(response.json()["url"]).json()


def test_every_output_is_scored_as_the_pure_function_and_rouge_score_score_it(
    researcher, text_project, django_capture_on_commit_callbacks
):
    project, references = text_project
    job = run_text_evaluation(researcher, project, django_capture_on_commit_callbacks)
    assert job["status"] == "done" and job["progress"] == 1.0 and job["output_count"] == len(SYSTEMS) * INPUTS
    assert job["signatures"]["rouge2"].startswith("rouge2|rouge|") and "nrefs:2" in job["signatures"]["bleu"]
    outputs = [
        Output(t.system_id, t.input_id, t.document.text) for t in project.tasks.select_related("document")
    ]
    expected = score_outputs(outputs, references)
    rows = (
        api(researcher)
        .get(reverse("text-evaluation-outputs-api", args=[project.pk, job["id"]]), {"page_size": 1000})
        .json()["results"]
    )
    assert len(rows) == len(outputs)
    kit = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    for row in rows:
        assert row["scores"] == pytest.approx(expected.per_output[(row["system"], row["input"])], abs=1e-12)
        text = next(o.text for o in outputs if (o.system, o.input) == (row["system"], row["input"]))
        assert row["scores"]["rouge1"] == pytest.approx(
            kit.score_multi(references[row["input"]], text)["rouge1"].fmeasure
        )
    for system, means in job["per_system"].items():
        assert means == pytest.approx(expected.per_system[system])
    assert job["per_system"]["lead"]["rouge1"] > job["per_system"]["random"]["rouge1"]
    only = (
        api(researcher)
        .get(
            reverse("text-evaluation-outputs-api", args=[project.pk, job["id"]]),
            {"system": "lead", "input": "in1"},
        )
        .json()
    )
    assert only["count"] == 1


def test_the_meta_evaluation_equals_scipy_on_the_same_vectors(
    client, researcher, text_project, django_capture_on_commit_callbacks
):
    project, _ = text_project
    job = run_text_evaluation(researcher, project, django_capture_on_commit_callbacks)
    evaluation = TextEvaluation.objects.get(pk=job["id"])
    human = {
        (item["system"], item["input"]): item["scores"]["quality"]["mean"]
        for item in rating_summary(project.snapshots.get())["items"]
    }
    metric = {(o.system_id, o.input_id): o.scores["rouge2"] for o in evaluation.outputs.all()}
    keys = sorted(human)
    url = reverse("meta-evaluation-api", args=[project.pk, job["id"]])
    for level, method, scipy_function in [
        ("global", "pearson", stats.pearsonr),
        ("global", "kendall", stats.kendalltau),
    ]:
        matrix = api(researcher).get(url, {"level": level, "method": method}).json()
        expected = scipy_function([metric[k] for k in keys], [human[k] for k in keys]).statistic
        assert matrix["cells"]["rouge2"]["quality"]["value"] == pytest.approx(expected)
        assert matrix["cells"]["rouge2"]["quality"]["n"] == len(keys)
    systems = sorted(SYSTEMS)
    # Three systems: too few for a correlation or an accuracy, and each cell says why.
    system_level = api(researcher).get(url, {"level": "system", "method": "spearman"}).json()
    cell = system_level["cells"]["rouge2"]["quality"]
    assert cell["value"] is None and cell["n"] == 3
    assert cell["reason"] == "too few systems for a correlation (3; needs at least 5)"
    assert cell["accuracy"] is None
    assert cell["accuracy_reason"] == "too few systems for a ranking accuracy (3; needs at least 5)"
    assert system_level["reasons"] == sorted([cell["reason"], cell["accuracy_reason"]])
    assert set(system_level["metrics"]) == set(METRICS) and set(system_level["dimensions"]) == {
        "quality",
        "coherence",
    }
    # Summary level: per input over its three outputs, then averaged.
    per_input = [
        stats.pearsonr([metric[(s, i)] for s in systems], [human[(s, i)] for s in systems]).statistic
        for i in sorted({i for _, i in keys})
    ]
    summary = api(researcher).get(url, {"level": "summary", "method": "pearson"}).json()
    assert summary["cells"]["rouge2"]["quality"]["value"] == pytest.approx(sum(per_input) / len(per_input))
    bad = api(researcher).get(url, {"level": "corpus"})
    assert bad.status_code == 400 and "level" in bad.json()
    scatter = (
        api(researcher)
        .get(
            reverse("scatter-api", args=[project.pk, job["id"]]),
            {"metric": "rouge2", "dimension": "quality", "level": "global"},
        )
        .json()
    )
    assert len(scatter["points"]) == len(keys) and len(scatter["correlations"]) == 9
    found = next(c for c in scatter["correlations"] if (c["level"], c["method"]) == ("global", "pearson"))
    # Six inputs to resample: a value, but too few for an interval (tests/metrics has the intervals).
    assert found["value"] == pytest.approx(matrix_value(api(researcher), url))
    assert found["low"] is None and found["high"] is None
    assert found["interval_reason"] == "too few inputs for an interval (6; needs at least 10)"
    unknown = api(researcher).get(
        reverse("scatter-api", args=[project.pk, job["id"]]), {"metric": "rouge2", "dimension": "tone"}
    )
    assert unknown.status_code == 400 and "dimension" in unknown.json()
    # The page shows the same matrix as a heat map, and the scatter as an SVG.
    client.force_login(researcher)
    page = client.get(
        reverse("meta-evaluation", args=[project.pk]),
        {"level": "global", "method": "pearson", "metric": "rouge2"},
    )
    assert page.status_code == 200
    text = page.content.decode()
    assert 'id="correlations"' in text and f"{matrix_value(api(researcher), url):.2f}" in text
    # At the system level (the page's default) three systems: the reasons, and no Williams' test.
    default = html.unescape(client.get(reverse("meta-evaluation", args=[project.pk])).content.decode())
    assert "No figure: too few systems for a correlation (3; needs at least 5)." in default
    assert "No figure: too few systems for a ranking accuracy (3; needs at least 5)." in default
    assert "No Williams' test: too few systems for Williams' test (3; needs at least 8);" in default
    image = client.get(
        reverse("meta-evaluation-scatter", args=[project.pk, "svg"]),
        {"metric": "rouge2", "dimension": "quality"},
    )
    assert image.status_code == 200 and image["Content-Type"] == "image/svg+xml" and b"<svg" in image.content


def matrix_value(client, url) -> float:
    return client.get(url, {"level": "global", "method": "pearson"}).json()["cells"]["rouge2"]["quality"][
        "value"
    ]


def test_a_free_text_projects_texts_become_references_in_one_step(researcher, annotators, text_project):
    project, _ = text_project
    writing = Project.objects.create(
        name="Write summaries",
        owner=researcher,
        task_type="free_text",
        config={"max_words": 50},
        assignments_per_task=2,
    )
    writing.annotators.set(annotators[:2])
    import_collection(
        writing,
        documents=[{"id": f"dialogue-{i}", "text": f"dialogue {i}"} for i in range(3)],
        items=[{"document": f"dialogue-{i}", "input": f"in{i}"} for i in range(2)]
        + [{"document": "dialogue-2"}],
    )
    for annotator in annotators[:2]:
        while (lease := claim_next_task(writing, annotator)) is not None:
            submit_judgement(
                lease.pk,
                annotator,
                {"text": f"{annotator.username} summarises {lease.task.document.external_id}"},
            )
    endpoint = reverse("references-api", args=[project.pk])
    before = Reference.objects.filter(project=project).count()
    response = api(researcher).post(endpoint, {"from_project": writing.pk}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["references_created"] == 6
    taken = Reference.objects.filter(project=project, source=f"free-text project {writing.pk}")
    assert {(r.input_id, r.writer) for r in taken} == {
        (i, a.username) for i in ("in0", "in1", "dialogue-2") for a in annotators[:2]
    }
    assert all(r.text.startswith(r.writer) for r in taken)
    again = api(researcher).post(endpoint, {"from_project": writing.pk, "replace": True}, format="json")
    assert again.json()["references_total"] == before + 6  # replaced, not doubled
    listed = api(researcher).get(endpoint, {"input": "in0", "writer": annotators[0].username}).json()
    assert listed["count"] == 1
    assert api(researcher).post(endpoint, {"from_project": project.pk}, format="json").status_code == 400
    neither = api(researcher).post(endpoint, {}, format="json")
    assert neither.status_code == 400 and "references" in neither.json()


def test_only_the_owner_reaches_text_evaluations_and_references(
    researcher, outsider_researcher, text_project, django_capture_on_commit_callbacks
):
    project, _ = text_project
    job = run_text_evaluation(researcher, project, django_capture_on_commit_callbacks)
    other = api(outsider_researcher)
    for name, args in [
        ("references-api", [project.pk]),
        ("text-evaluations-api", [project.pk]),
        ("text-evaluation-api", [project.pk, job["id"]]),
        ("text-evaluation-outputs-api", [project.pk, job["id"]]),
        ("meta-evaluation-api", [project.pk, job["id"]]),
    ]:
        assert other.get(reverse(name, args=args)).status_code == 404, name


def test_a_text_evaluation_computes_only_the_metrics_chosen(
    client, researcher, text_project, django_capture_on_commit_callbacks
):
    project, references = text_project
    job = run_text_evaluation(
        researcher, project, django_capture_on_commit_callbacks, metrics=["wer", "rouge1"]
    )
    assert job["status"] == "done" and job["metrics"] == ["rouge1", "wer"]  # in the module's order
    assert set(job["signatures"]) == {"rouge1", "wer"}
    outputs = [
        Output(t.system_id, t.input_id, t.document.text) for t in project.tasks.select_related("document")
    ]
    expected = score_outputs(outputs, references)
    for row in TextEvaluation.objects.get(pk=job["id"]).outputs.all():
        assert set(row.scores) == {"rouge1", "wer"}
        full = expected.per_output[(row.system_id, row.input_id)]
        assert row.scores == pytest.approx({"rouge1": full["rouge1"], "wer": full["wer"]}, abs=1e-12)
    matrix = api(researcher).get(reverse("meta-evaluation-api", args=[project.pk, job["id"]])).json()
    assert matrix["metrics"] == ["rouge1", "wer"]
    not_computed = api(researcher).get(
        reverse("scatter-api", args=[project.pk, job["id"]]), {"metric": "bleu", "dimension": "quality"}
    )
    assert not_computed.status_code == 400 and "metric" in not_computed.json()
    endpoint = reverse("text-evaluations-api", args=[project.pk])
    for bad in (["meteor"], []):
        refused = api(researcher).post(endpoint, {"metrics": bad}, format="json")
        assert refused.status_code == 400 and "metrics" in refused.json(), bad
    # The page's form: the boxes ticked are the metrics computed; none ticked requests nothing.
    client.force_login(researcher)
    page = reverse("meta-evaluation", args=[project.pk])
    before = project.text_evaluations.count()
    client.post(page, {"rouge_multi_ref": "max", "metrics": ["bleu", "chrf"]})
    assert project.text_evaluations.order_by("-pk").first().metrics == ["bleu", "chrf"]
    client.post(page, {"rouge_multi_ref": "max"})
    assert project.text_evaluations.count() == before + 1


def test_a_text_evaluation_the_broker_lost_is_sent_again_by_recovery(researcher, text_project):
    from datetime import timedelta

    from django.utils import timezone

    from evaluation.jobs import lifecycle
    from evaluation.texts.jobs import TEXT_EVALUATIONS, request_text_evaluation

    project, _ = text_project
    lost = request_text_evaluation(project)  # never sent: its request did not commit here
    assert lifecycle.recover(TEXT_EVALUATIONS, waiting=set()).resent == []  # too new to be lost
    old = timezone.now() - timedelta(seconds=lifecycle.QUEUED_GRACE_SECONDS + 1)
    TextEvaluation.objects.filter(pk=lost.pk).update(created_at=old)
    assert lifecycle.recover(TEXT_EVALUATIONS, waiting=set()).resent == [lost.pk]
    embedded.run_queued()
    lost.refresh_from_db()
    assert lost.status == TextEvaluation.Status.DONE and lost.output_count == len(SYSTEMS) * INPUTS
    assert lost.attempts == 1
    assert lifecycle.recover(TEXT_EVALUATIONS, waiting=set()).resent == []


def test_a_job_in_many_parts_stores_what_the_pure_function_gives_for_all_outputs_at_once(
    researcher, text_project, django_capture_on_commit_callbacks, settings
):
    """18 outputs in parts of 4 (5 parts, one short), one input without references: the stored
    scores, per-system means, signatures and unscored outputs equal one call on every output."""
    project, references = text_project
    Reference.objects.filter(project=project, input_id="in5").delete()
    settings.TEXT_OUTPUTS_PER_PART = 4
    job = run_text_evaluation(researcher, project, django_capture_on_commit_callbacks)
    evaluation = TextEvaluation.objects.get(pk=job["id"])
    assert evaluation.part_count == 5 and len(evaluation.parts_done) == 5
    outputs = [
        Output(t.system_id, t.input_id, t.document.text) for t in project.tasks.select_related("document")
    ]
    expected = score_outputs(outputs, {i: t for i, t in references.items() if i != "in5"})
    assert job["status"] == "done" and job["progress"] == 1.0
    assert job["output_count"] == len(expected.per_output) == len(SYSTEMS) * (INPUTS - 1)
    assert sorted(map(tuple, job["unscored"])) == sorted(expected.unscored)
    assert len(job["unscored"]) == len(SYSTEMS)
    assert job["signatures"] == expected.signatures
    assert job["per_system"].keys() == expected.per_system.keys()
    for system, means in expected.per_system.items():
        assert job["per_system"][system] == pytest.approx(means, abs=1e-12)
    stored = {(o.system_id, o.input_id): o.scores for o in evaluation.outputs.all()}
    assert stored.keys() == expected.per_output.keys()
    for key, values in expected.per_output.items():
        assert stored[key] == pytest.approx(values, abs=1e-12)
    assert job["stage"] == "done"


def test_a_redelivered_part_is_stored_once_and_the_job_finishes_once(researcher, text_project, monkeypatch):
    """A worker that dies after storing a part gets its message again (acks_late): the part is not
    stored twice, and only the part that completes the job finishes it."""
    from evaluation.texts import jobs as text_evaluation
    from evaluation.texts.jobs import output_tasks, score_part, store_part
    from evaluation.texts.tasks import score_text_part

    project, _ = text_project
    finished = []
    real_finish = text_evaluation.finish
    monkeypatch.setattr(text_evaluation, "finish", lambda pk: (finished.append(pk), real_finish(pk)))
    evaluation = TextEvaluation.objects.create(
        project=project, status=TextEvaluation.Status.RUNNING, part_count=2
    )
    ids = list(output_tasks(project).values_list("pk", flat=True))
    first, second = ids[:10], ids[10:]
    score_text_part(evaluation.pk, 0, first)
    score_text_part(evaluation.pk, 0, first)  # redelivered
    tasks, result = score_part(evaluation, first)  # a delivery that scored it at the same time as another
    store_part(evaluation.pk, 0, tasks, result)
    evaluation.refresh_from_db()
    assert evaluation.status == TextEvaluation.Status.RUNNING and evaluation.progress == pytest.approx(0.475)
    assert evaluation.outputs.count() == 10 and finished == []
    score_text_part(evaluation.pk, 1, second)
    score_text_part(evaluation.pk, 1, second)  # redelivered after the job is done: nothing
    evaluation.refresh_from_db()
    assert evaluation.status == TextEvaluation.Status.DONE and finished == [evaluation.pk]
    assert evaluation.outputs.count() == evaluation.output_count == len(ids)


def test_a_part_that_cannot_be_scored_fails_the_job_with_the_reason(researcher, text_project, monkeypatch):
    from evaluation.texts import jobs as text_evaluation
    from evaluation.texts.jobs import output_tasks
    from evaluation.texts.tasks import score_text_part

    project, _ = text_project

    def broken(*args, **kwargs):
        raise ValueError("system 'lead' has two outputs for input 'in1'")

    monkeypatch.setattr(text_evaluation, "score_outputs", broken)
    evaluation = TextEvaluation.objects.create(
        project=project, status=TextEvaluation.Status.RUNNING, part_count=1
    )
    score_text_part(evaluation.pk, 0, list(output_tasks(project).values_list("pk", flat=True)))
    evaluation.refresh_from_db()
    assert evaluation.status == TextEvaluation.Status.FAILED
    assert evaluation.error == "ValueError: system 'lead' has two outputs for input 'in1'"
    assert evaluation.outputs.count() == 0


def test_a_report_is_computed_once_per_evaluation_and_snapshot(
    researcher, text_project, django_capture_on_commit_callbacks, monkeypatch
):
    """The matrix and the scatter are kept under the evaluation's and the snapshot's ids: a second
    visit reads them back, a new snapshot (new ratings) computes them again, equal to a fresh call."""
    from evaluation.texts import meta_report

    project, _ = text_project
    job = run_text_evaluation(researcher, project, django_capture_on_commit_callbacks)
    evaluation = TextEvaluation.objects.get(pk=job["id"])
    computed = []
    real_matrix, real_scatter = meta_report._matrix, meta_report._scatter
    monkeypatch.setattr(meta_report, "_matrix", lambda *a: (computed.append("matrix"), real_matrix(*a))[1])
    monkeypatch.setattr(meta_report, "_scatter", lambda *a: (computed.append("scatter"), real_scatter(*a))[1])
    first = meta_report.correlation_matrix(evaluation, "system", "kendall")
    assert meta_report.correlation_matrix(evaluation, "system", "kendall") == first
    assert meta_report.correlation_matrix(evaluation, "global", "kendall")["level"] == "global"
    pair = meta_report.scatter(evaluation, "rouge2", "quality", "system", resamples=20)
    assert meta_report.scatter(evaluation, "rouge2", "quality", "system", resamples=20) == pair
    assert computed == ["matrix", "matrix", "scatter"]
    with pytest.raises(meta_report.ReportProblem):  # refused, never kept
        meta_report.scatter(evaluation, "rouge2", "no such dimension", "system")
    with pytest.raises(meta_report.ReportProblem):
        meta_report.scatter(evaluation, "rouge2", "no such dimension", "system")
    from annotation.models import Judgement

    changed = Judgement.objects.filter(project=project, task__system_id="random").first()
    changed.answer = {"scores": {"quality": 5, "coherence": 5}}
    changed.save(update_fields=["answer"])
    assert build_snapshot(project.pk) is not None
    newer = meta_report.correlation_matrix(evaluation, "system", "kendall")
    assert computed[-1] == "matrix" and newer["snapshot"] == first["snapshot"] + 1
    assert newer == real_matrix(
        evaluation, project.snapshots.order_by("-version").first(), "system", "kendall"
    )
