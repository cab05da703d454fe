"""A LitePyramid campaign through the app: imported in one body (references, SCUs, summaries), judged
as scu_presence items (here through the judgement import), aggregated by the project's method into a
snapshot, and scored by the API and the page exactly as the pure scores score the snapshot's labels;
bad bodies refused naming the field; no one else's project reachable."""

from __future__ import annotations

import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from annotation.judging.assignment import claim_next_task
from annotation.models import Project, Task
from evaluation.ground_truth.build import build_snapshot
from evaluation.metrics.pyramid import summary_scores, system_scores
from evaluation.models import ContentUnit, Reference
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

BODY = {
    "references": [
        {"input": "d1", "id": "r1", "text": "The storm closed the port. Ships waited two days."},
        {"input": "d1", "id": "r2", "text": "A storm shut the port; two ships sank."},
        {"input": "d2", "id": "r1", "text": "Rates rose by half a point."},
    ],
    "units": [
        {
            "input": "d1",
            "id": "1",
            "statement": "A storm closed the port",
            "references": ["r1", "r2"],
            "spans": [{"reference": "r2", "text": "A storm shut the port"}],
        },
        {"input": "d1", "id": "2", "statement": "Ships waited two days", "references": ["r1"]},
        {"input": "d1", "id": "3", "statement": "Two ships sank", "references": ["r2"]},
        {"input": "d2", "id": "1", "statement": "Rates rose", "weight": 1},
        {"input": "d2", "id": "2", "statement": "By half a point", "weight": 1},
    ],
    "summaries": [
        {"input": "d1", "system": "alpha", "text": "The port closed in a storm and two ships sank."},
        {"input": "d1", "system": "beta", "text": "Ships waited."},
        {"input": "d2", "system": "alpha", "text": "Rates rose by 0.5."},
        {"input": "d2", "system": "beta", "text": "Nothing happened."},
    ],
}
# What each of three workers says; the third dissents on two items, so the majority decides.
TRUTH = {
    ("alpha", "d1", "1"): 1, ("alpha", "d1", "2"): 0, ("alpha", "d1", "3"): 1,
    ("beta", "d1", "1"): 0, ("beta", "d1", "2"): 1, ("beta", "d1", "3"): 0,
    ("alpha", "d2", "1"): 1, ("alpha", "d2", "2"): 1, ("beta", "d2", "1"): 0, ("beta", "d2", "2"): 0,
}  # fmt: skip


@pytest.fixture
def project(researcher):
    return Project.objects.create(
        name="LitePyramid", owner=researcher, task_type="scu_presence", assignments_per_task=3
    )


def imported(researcher, project, body=BODY):
    return api(researcher).post(reverse("pyramid-import-api", args=[project.pk]), body, format="json")


def judge(researcher, project):
    lines = []
    for (system, input_id, unit), label in TRUTH.items():
        for worker in range(3):
            dissent = worker == 2 and (system, unit) in {("alpha", "2"), ("beta", "3")}
            lines.append(
                {
                    "topic": f"{input_id}#{unit}",
                    "document": f"{system}#{input_id}",
                    "annotator": f"worker{worker}",
                    "label": 1 - label if dissent else label,
                }
            )
    response = api(researcher).post(
        reverse("judgement-import-api", args=[project.pk]),
        {"judgements": lines, "create_annotators": True},
        format="json",
    )
    assert response.status_code == 201, response.content
    return build_snapshot(project.pk)


def test_the_import_makes_one_presence_item_per_unit_and_summary(researcher, project):
    body = json.loads(json.dumps(BODY))
    body["units"][0]["spans"] = [
        {"reference": "r1", "text": "The storm closed  the port."},
        {"reference": "r2", "text": "A storm shut the port"},
    ]
    dry = imported(researcher, project, body | {"dry_run": True})
    assert (
        dry.status_code == 200 and dry.json()["tasks_created"] == 10 and dry.json()["judgements_needed"] == 30
    )
    assert dry.json()["dry_run"] is True and not project.topics.exists() and not project.tasks.exists()
    response = imported(researcher, project, body)
    assert response.status_code == 201, response.content
    assert (
        ContentUnit.objects.get(project=project, input_id="d1", unit_id="1").spans
        == body["units"][0]["spans"]
    )
    assert response.json() == {
        "units_created": 5, "summaries_created": 4, "references_created": 3, "tasks_created": 10,
        "judgements_needed": 30, "dry_run": False, "cost": None,
    }  # fmt: skip
    items = Task.objects.filter(project=project, kind="item").select_related("topic", "document")
    assert {(t.system_id, t.input_id, t.topic.external_id, t.document.external_id) for t in items} == {
        (s, i, f"{i}#{u}", f"{s}#{i}") for s, i, u in TRUTH
    }
    assert {t.required_judgements for t in items} == {3}
    units = {
        (u.input_id, u.unit_id): (u.weight, u.references) for u in ContentUnit.objects.filter(project=project)
    }
    assert units[("d1", "1")] == (2, ["r1", "r2"]) and units[("d2", "1")] == (1, [])
    assert project.topics.get(external_id="d1#2").title == "Ships waited two days"
    assert sorted(Reference.objects.filter(project=project).values_list("input_id", "writer")) == [
        ("d1", "r1"), ("d1", "r2"), ("d2", "r1"),
    ]  # fmt: skip


def test_the_scores_are_the_pure_scores_of_the_snapshots_majority(researcher, project):
    imported(researcher, project)
    snapshot = judge(researcher, project)
    answer = api(researcher).get(reverse("pyramid-scores-api", args=[project.pk]))
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["snapshot"] == snapshot.version and body["method"] == "majority"
    present = {}
    for (system, input_id, unit), label in TRUTH.items():
        present.setdefault((system, input_id), set())
        if label:
            present[(system, input_id)].add(unit)
    weights = {"d1": {"1": 2, "2": 1, "3": 1}, "d2": {"1": 1, "2": 1}}
    expected = summary_scores(weights, present, {"d1": 2, "d2": 1})
    got = {(s["system"], s["input"]): s for s in body["summaries"]}
    for score in expected:
        row = got[(score.system, score.input)]
        assert (row["present"], row["units"], row["weight"]) == (score.present, score.units, score.weight)
        assert row["pyramid"] == pytest.approx(score.pyramid)
        assert row["modified_pyramid"] == pytest.approx(score.modified_pyramid)
        assert row["lite_pyramid"] == pytest.approx(score.lite_pyramid)
    # alpha on d1: units 1 (weight 2) and 3 (weight 1) of three: LitePyramid 2/3; Pyramid 3 / (2 + 1) = 1;
    # modified: X = 4 weight / 2 references = 2 units, Max 3: 1.
    assert (
        got[("alpha", "d1")]["lite_pyramid"] == pytest.approx(2 / 3)
        and got[("alpha", "d1")]["pyramid"] == 1.0
    )
    systems = {s["system"]: s for s in body["systems"]}
    for score in system_scores(expected):
        assert systems[score.system]["lite_pyramid"]["mean"] == pytest.approx(
            score.scores["lite_pyramid"].mean
        )
    assert [s["system"] for s in body["systems"]] == ["alpha", "beta"]
    assert systems["alpha"]["agreement"]["items"] == 5 and systems["alpha"]["agreement"]["fleiss_kappa"] < 1

    client = Client()
    client.force_login(researcher)
    page = client.get(reverse("pyramid-page", args=[project.pk])).content.decode()
    assert 'id="pyramid-systems"' in page and '<th scope="row">alpha</th>' in page
    assert (
        reverse("pyramid-page", args=[project.pk])
        in client.get(reverse("project-page", args=[project.pk])).content.decode()
    )


def test_the_judging_page_asks_of_the_content_unit_in_the_summary(client, researcher, project, annotators):
    imported(researcher, project)
    project.annotators.set(annotators)
    lease = claim_next_task(project, annotators[0])
    client.force_login(annotators[0])
    page = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert f'<h2 id="topic-title">Content unit: {lease.task.topic.title}</h2>' in page
    assert page.index('id="topic-title"') < page.index('class="document"')
    assert "Does the summary express this content unit?" in page
    assert "Present" in page and "Absent" in page


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda b: b["units"][0].pop("references"), "units[0]", "an SCU with no reference"),
        (lambda b: b["units"][1].update(references=["r9"]), "units[1].references", "no reference 'r9'"),
        (lambda b: b["units"][0].update(weight=3), "units[0].weight", "3 but 2 references name it"),
        (
            lambda b: b["summaries"].append({"input": "d9", "system": "alpha", "text": "x"}),
            "summaries[4].input",
            "no SCUs",
        ),
        (lambda b: b["summaries"].append(dict(b["summaries"][0])), "summaries[0]", "two summaries"),
        (lambda b: b["units"].append(dict(b["units"][0])), "units[5].id", "appears twice"),
        (
            lambda b: b["units"][1].update(spans=[{"reference": "r2", "text": "two ships sank"}]),
            "units[1].spans[0].reference",
            "reference 'r2' does not express this SCU",
        ),
        (
            lambda b: b["units"][1].update(spans=[{"reference": "r1", "text": "ships sank"}]),
            "units[1].spans[0].text",
            "reference 'r1' does not hold these words",
        ),
    ],
)
def test_a_bad_body_is_a_400_naming_the_field_and_stores_nothing(researcher, project, change, field, words):
    body = json.loads(json.dumps(BODY))
    change(body)
    response = imported(researcher, project, body)
    assert response.status_code == 400, response.content
    assert any(words in message for message in response.json()[field]), response.json()
    assert not project.tasks.exists() and not ContentUnit.objects.exists() and not project.topics.exists()


def test_a_statement_missing_is_named_by_drf_and_a_relevance_project_is_refused(researcher, project):
    body = json.loads(json.dumps(BODY))
    del body["units"][2]["statement"]
    response = imported(researcher, project, body)
    assert response.status_code == 400, response.content
    assert response.json()["units"] == {"2": {"statement": ["This field is required."]}}
    relevance = Project.objects.create(name="Relevance", owner=researcher)
    refused = imported(researcher, relevance)
    assert refused.status_code == 400 and "scu_presence" in refused.json()["task_type"][0]


def test_units_per_summary_asks_about_a_seeded_sample_of_each_summarys_units(researcher, project):
    body = json.loads(json.dumps(BODY)) | {"units_per_summary": 2, "seed": 4}
    assert imported(researcher, project, body).json()["tasks_created"] == 8  # d1's three units: two asked
    per_summary = {}
    for task in Task.objects.filter(project=project, kind="item"):
        per_summary.setdefault((task.system_id, task.input_id), 0)
        per_summary[(task.system_id, task.input_id)] += 1
    assert set(per_summary.values()) == {2}


def test_the_page_imports_a_file_and_names_a_problem(researcher, project):
    client = Client()
    client.force_login(researcher)
    url = reverse("pyramid-page", args=[project.pk])
    bad = json.loads(json.dumps(BODY))
    bad["units"][0].pop("references")
    upload = io.BytesIO(json.dumps(bad).encode())
    upload.name = "campaign.json"
    page = client.post(url, {"file": upload}, follow=True).content.decode()
    assert "Nothing was imported. units[0]: an SCU with no reference" in page
    good = io.BytesIO(json.dumps(BODY).encode())
    good.name = "campaign.json"
    page = client.post(url, {"file": good, "preview": ""}, follow=True).content.decode()
    assert (
        "Preview, nothing stored: 5 content units and 4 summaries make 10 presence items, 30 judgements"
        in page
    )
    assert not project.tasks.exists()
    good.seek(0)
    page = client.post(url, {"file": good}, follow=True).content.decode()
    assert (
        "units[2].statement: This field is required."
        in client.post(url, {"file": statementless()}, follow=True).content.decode()
    )
    assert "Imported 5 content units, 4 summaries, 3 references: 10 presence items." in page
    assert "No ground-truth snapshot yet" in page


def statementless():
    body = json.loads(json.dumps(BODY))
    del body["units"][2]["statement"]
    upload = io.BytesIO(json.dumps(body).encode())
    upload.name = "campaign.json"
    return upload


def test_others_reach_nothing(researcher, outsider_researcher, annotators, project):
    imported(researcher, project)
    for url in (
        reverse("pyramid-scores-api", args=[project.pk]),
        reverse("pyramid-import-api", args=[project.pk]),
    ):
        assert api(outsider_researcher).get(url).status_code in {404, 405}
        assert api(annotators[0]).get(url).status_code == 403
    assert (
        api(outsider_researcher)
        .post(reverse("pyramid-import-api", args=[project.pk]), BODY, format="json")
        .status_code
        == 404
    )
    client = Client()
    client.force_login(outsider_researcher)
    assert client.get(reverse("pyramid-page", args=[project.pk])).status_code == 404


def test_pyramid_scores_are_the_human_side_of_the_systems_table_and_the_meta_evaluation(
    researcher, project, django_capture_on_commit_callbacks
):
    """Item 4: ROUGE against LitePyramid is the classic question. The text evaluation scores each
    summary once (not once per SCU item) against the imported references; the meta-evaluation's
    dimensions are the three Pyramid scores, each output's value the summary's."""
    from evaluation.jobs import embedded
    from evaluation.models import TextEvaluation

    imported(researcher, project)
    judge(researcher, project)
    with django_capture_on_commit_callbacks(execute=True):
        response = api(researcher).post(
            reverse("text-evaluations-api", args=[project.pk]), {"metrics": ["rouge1", "bleu"]}, format="json"
        )
    assert response.status_code == 202, response.content
    embedded.run_queued()
    evaluation = TextEvaluation.objects.get(project=project)
    assert evaluation.status == "done" and evaluation.outputs.count() == 4  # four summaries, ten items
    url = reverse("meta-evaluation-api", args=[project.pk, evaluation.pk])
    matrix = api(researcher).get(url, {"level": "global", "method": "pearson"}).json()
    assert matrix["dimensions"] == ["pyramid", "modified_pyramid", "lite_pyramid"]
    lite = {
        (s["system"], s["input"]): s["lite_pyramid"]
        for s in api(researcher).get(reverse("pyramid-scores-api", args=[project.pk])).json()["summaries"]
    }
    rouge = {(o.system_id, o.input_id): o.scores["rouge1"] for o in evaluation.outputs.all()}
    cell = matrix["cells"]["rouge1"]["lite_pyramid"]
    assert cell["n"] == 4 and "too few" in cell["reason"]  # four summaries: below the minimum
    scatter = (
        api(researcher)
        .get(
            reverse("scatter-api", args=[project.pk, evaluation.pk]),
            {"metric": "rouge1", "dimension": "lite_pyramid", "level": "global"},
        )
        .json()
    )
    assert {(p["label"], p["x"], p["y"]) for p in scatter["points"]} == {
        (f"{s} / {i}", rouge[(s, i)], lite[(s, i)]) for s, i in lite
    }
    systems = api(researcher).get(reverse("systems-api", args=[project.pk])).json()
    rows = {row["system"]: row["scores"] for row in systems["table"]["systems"]}
    assert rows["alpha"]["lite_pyramid"]["mean"] == pytest.approx(
        (lite[("alpha", "d1")] + lite[("alpha", "d2")]) / 2
    )
    client = Client()
    client.force_login(researcher)
    systems_page = client.get(reverse("systems-page", args=[project.pk])).content.decode()
    assert 'id="systems"' in systems_page and "mean Pyramid scores over its summaries" in systems_page
    assert '<th scope="row">alpha</th>' in systems_page and "Krippendorff" not in systems_page
    nav = client.get(reverse("pyramid-page", args=[project.pk])).content.decode()
    assert (
        reverse("meta-evaluation", args=[project.pk]) in nav
        and reverse("systems-page", args=[project.pk]) in nav
    )


def test_the_command_imports_csv_and_jsonl_files_or_a_json_body(researcher, project, tmp_path):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    (tmp_path / "units.csv").write_text(
        "input,id,statement,references,weight\n"
        "d1,1,A storm closed the port,r1 r2,\n"
        "d1,2,Ships waited two days,r1,\n"
        "d1,3,Two ships sank,r2,\n"
        'd2,1,"Rates rose, sharply",,1\n'
    )
    (tmp_path / "references.jsonl").write_text(
        "\n".join(json.dumps(r) for r in BODY["references"] if r["input"] == "d1") + "\n"
    )
    (tmp_path / "summaries.jsonl").write_text("\n".join(json.dumps(s) for s in BODY["summaries"]) + "\n")
    out = io.StringIO()
    files = ["--units", str(tmp_path / "units.csv"), "--summaries", str(tmp_path / "summaries.jsonl")]
    files += ["--references", str(tmp_path / "references.jsonl")]
    call_command("import_pyramid", project.pk, *files, "--dry-run", stdout=out)
    assert "would make 8 presence items (24 judgements)" in out.getvalue() and not project.tasks.exists()
    call_command("import_pyramid", project.pk, *files, stdout=out)
    assert (
        project.tasks.count() == 8 and project.topics.get(external_id="d2#1").title == "Rates rose, sharply"
    )
    assert ContentUnit.objects.get(project=project, input_id="d1", unit_id="1").references == ["r1", "r2"]
    (tmp_path / "bad.csv").write_text("input,id,statement\nd1,9,No reference\n")
    with pytest.raises(CommandError, match=r"units\[0\]: an SCU with no reference"):
        call_command(
            "import_pyramid", project.pk, "--units", str(tmp_path / "bad.csv"), "--summaries", files[3]
        )
    other = Project.objects.create(
        name="Other", owner=researcher, task_type="scu_presence", assignments_per_task=1
    )
    (tmp_path / "body.json").write_text(json.dumps(BODY))
    call_command("import_pyramid", other.pk, str(tmp_path / "body.json"), stdout=out)
    assert other.tasks.count() == 10
    with pytest.raises(CommandError, match="give a JSON body file, or --units and --summaries"):
        call_command("import_pyramid", other.pk)


def test_a_bundle_carries_the_content_units_and_the_copy_scores_the_same(
    researcher, project, django_capture_on_commit_callbacks
):
    from tests.scoring.test_import_jobs_and_bundles import bundle_of, import_bundle

    imported(researcher, project)
    judge(researcher, project)
    job = import_bundle(
        researcher, bundle_of(researcher, project), django_capture_on_commit_callbacks, "annotators=match"
    )
    assert job["status"] == "done", job
    copy = Project.objects.get(pk=job["summary"]["project"])

    def units(p):
        return sorted(
            p.content_units.values_list(
                "topic__external_id", "input_id", "unit_id", "weight", "references", "written_by", "spans"
            )
        )

    assert units(copy) == units(project) and len(units(project)) == 5
    scores = [api(researcher).get(reverse("pyramid-scores-api", args=[p.pk])).json() for p in (project, copy)]
    assert scores[0]["systems"] == scores[1]["systems"] and len(scores[0]["systems"]) == 2
    assert sorted(scores[0]["summaries"], key=str) == sorted(scores[1]["summaries"], key=str)


def test_gold_presence_items_come_in_as_for_any_label_project(researcher, project):
    """A known answer on a summary kept out of the campaign: served as gold beside the items, checked
    against the answer as every label project's gold is."""
    from annotation.models import Task
    from evaluation.collection.flow import import_collection

    imported(researcher, project)
    import_collection(
        project,
        documents=[{"id": "gold#d1", "text": "A storm closed the port for two days."}],
        gold=[{"topic": "d1#1", "document": "gold#d1", "answer": {"label": 1}, "explanation": "It says so."}],
    )
    gold = Task.objects.get(project=project, kind="gold")
    assert gold.topic.title == "A storm closed the port" and gold.gold_answer == {"label": 1}
    refused = api(researcher).post(
        reverse("import-api", args=[project.pk]),
        {"gold": [{"topic": "d1#1", "document": "gold#d1", "answer": {"label": 2}}]},
        format="json",
    )
    assert refused.status_code == 400 and "0 or 1, not 2" in json.dumps(refused.json())
