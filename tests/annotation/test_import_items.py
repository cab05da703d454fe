"""Importing items, gold and qualification questions for every task type: all or nothing, errors
naming the field."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Document, Project, Task

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def post(user, project, body):
    return client_for(user).post(f"/api/projects/{project.pk}/import/", body, format="json")


DOCS = [{"id": f"o{i}", "text": f"output {i}"} for i in range(6)]


@pytest.fixture
def pairwise(researcher):
    return Project.objects.create(name="Pairs", owner=researcher, task_type="pairwise")


def test_pairwise_items_compare_two_documents(researcher, pairwise):
    body = {
        "topics": [{"id": "t", "title": "translate this"}],
        "documents": DOCS,
        "items": [{"topic": "t", "document": "o0", "document_b": "o1"}],
        "gold": [{"topic": "t", "document": "o2", "document_b": "o3", "answer": {"label": 1}}],
    }
    response = post(researcher, pairwise, body)
    assert response.status_code == 201, response.content
    assert (response.json()["tasks_created"], response.json()["gold_created"]) == (1, 1)
    item = Task.objects.get(kind=Task.Kind.ITEM)
    assert (item.document.external_id, item.document_b.external_id) == ("o0", "o1")


@pytest.mark.parametrize(
    "items, field, message",
    [
        ([{"topic": "t", "document": "o0"}], "items[0].document_b", "compares two documents"),
        ([{"topic": "t", "document": "o0", "document_b": "o0"}], "items[0].document_b", "two different"),
        ([{"topic": "t", "document": "o0", "document_b": "nope"}], "items[0].document_b", "'nope' is not"),
        ([{"topic": "zz", "document": "o0", "document_b": "o1"}], "items[0].topic", "'zz' is not"),
    ],
)
def test_bad_pairwise_items_name_the_field_and_store_nothing(researcher, pairwise, items, field, message):
    body = {"topics": [{"id": "t", "title": "x"}], "documents": DOCS, "items": items}
    response = post(researcher, pairwise, body)
    assert response.status_code == 400
    assert message in response.json()[field][0]
    assert Document.objects.count() == 0 and Task.objects.count() == 0


def test_gold_answers_are_checked_against_the_task_type(researcher):
    project = Project.objects.create(
        name="G",
        owner=researcher,
        task_type="graded_relevance",
        config={"levels": [{"value": 0, "label": "no"}, {"value": 2, "label": "yes"}]},
    )
    body = {
        "topics": [{"id": "t", "title": "x"}],
        "documents": DOCS,
        "items": [{"topic": "t", "document": "o0"}],
        "gold": [{"topic": "t", "document": "o1", "answer": {"label": 1}}],
    }
    response = post(researcher, project, body)
    assert response.status_code == 400
    assert "one of [0, 2], not 1" in response.json()["gold[0].answer"][0]
    assert Task.objects.count() == 0


def test_a_gold_item_that_is_also_an_item_to_judge_is_refused(researcher):
    project = Project.objects.create(name="B", owner=researcher)
    body = {
        "topics": [{"id": "t", "title": "x"}],
        "documents": DOCS,
        "items": [{"topic": "t", "document": "o0"}],
        "gold": [{"topic": "t", "document": "o0", "answer": {"label": 1}}],
    }
    response = post(researcher, project, body)
    assert response.status_code == 400
    assert "would see it twice" in response.json()["gold[0]"][0]


def test_relevance_items_need_a_topic_and_rating_projects_take_no_runs(researcher):
    binary = Project.objects.create(name="B", owner=researcher)
    response = post(researcher, binary, {"documents": DOCS, "items": [{"document": "o0"}]})
    assert response.status_code == 400 and "topic" in response.json()["items[0].topic"][0]
    likert = Project.objects.create(
        name="L", owner=researcher, task_type="likert", config={"dimensions": ["q"], "scale": [1, 5]}
    )
    response = post(
        researcher,
        likert,
        {"topics": [{"id": "1", "title": "x"}], "documents": DOCS, "runs": ["1 Q0 o0 1 1 r\n"]},
    )
    assert response.status_code == 400 and "not likert tasks" in response.json()["runs"][0]


def test_free_text_items_need_no_topic_and_cannot_have_gold(researcher):
    project = Project.objects.create(
        name="F", owner=researcher, task_type="free_text", config={"max_words": 50}
    )
    response = post(
        researcher, project, {"documents": DOCS, "items": [{"document": "o0"}, {"document": "o1"}]}
    )
    assert response.status_code == 201 and response.json()["tasks_created"] == 2
    response = post(researcher, project, {"gold": [{"document": "o2", "answer": {"text": "x"}}]})
    assert response.status_code == 400 and "no single right answer" in response.json()["gold[0].answer"][0]


def test_importing_the_same_item_twice_is_refused(researcher):
    project = Project.objects.create(
        name="F", owner=researcher, task_type="free_text", config={"max_words": 50}
    )
    post(researcher, project, {"documents": DOCS, "items": [{"document": "o0"}]})
    response = post(researcher, project, {"items": [{"document": "o1"}, {"document": "o0"}]})
    assert response.status_code == 400 and "already in the project" in response.json()["items[1]"][0]
    assert project.tasks.count() == 1


def test_the_project_api_validates_the_task_configuration(researcher):
    client = client_for(researcher)
    response = client.post(
        "/api/projects/", {"name": "L", "task_type": "likert", "config": {"dimensions": []}}, format="json"
    )
    assert response.status_code == 400 and "dimensions" in response.json()["config"][0]
    response = client.post(
        "/api/projects/",
        {
            "name": "L",
            "task_type": "likert",
            "config": {"dimensions": ["q"], "scale": [1, 7]},
            "gold_rate": 1.5,
        },
        format="json",
    )
    assert response.status_code == 400 and "gold_rate" in response.json()
    response = client.post(
        "/api/projects/",
        {
            "name": "L",
            "task_type": "likert",
            "config": {"dimensions": ["q"], "scale": [1, 7]},
            "attention_rate": 0.2,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["config"] == {"dimensions": ["q"], "scale": [1, 7]}


def test_text_outputs_carry_their_system_and_input_into_the_rating_downloads(researcher, annotators):
    from evaluation.ground_truth.build import build_snapshot
    from evaluation.ground_truth.downloads import rating_summary
    from tests.annotation.factories import LIKERT_CONFIG

    project = Project.objects.create(
        name="Summaries", owner=researcher, task_type="likert", config=LIKERT_CONFIG, assignments_per_task=1
    )
    project.annotators.set(annotators)
    items = [
        {"topic": "src", "document": f"o{i}", "system": f"sys-{i % 2}", "input": f"dialogue-{i // 2}"}
        for i in range(4)
    ]
    body = {"topics": [{"id": "src", "title": "source"}], "documents": DOCS[:4], "items": items}
    assert post(researcher, project, body).status_code == 201
    stored = {t.document.external_id: (t.system_id, t.input_id) for t in project.tasks.all()}
    assert stored == {"o0": ("sys-0", "dialogue-0"), "o1": ("sys-1", "dialogue-0"),
                      "o2": ("sys-0", "dialogue-1"), "o3": ("sys-1", "dialogue-1")}  # fmt: skip
    from annotation.judging.assignment import claim_next_task, submit_judgement

    while (lease := claim_next_task(project, annotators[0])) is not None:
        submit_judgement(lease.pk, annotators[0], {"scores": {"quality": 4, "coherence": 3}})
    summary = rating_summary(build_snapshot(project.pk))
    assert {(i["document"], i["system"], i["input"]) for i in summary["items"]} == {
        (doc, *ids) for doc, ids in stored.items()
    }


def test_a_bad_system_id_is_named(researcher):
    project = Project.objects.create(
        name="S", owner=researcher, task_type="likert", config={"dimensions": ["q"], "scale": [1, 5]}
    )
    body = {"topics": [{"id": "src", "title": "s"}], "documents": DOCS[:1],
            "items": [{"topic": "src", "document": "o0", "system": "two words"}]}  # fmt: skip
    response = post(researcher, project, body)
    assert response.status_code == 400 and "items[0].system" in response.json()
    assert not project.tasks.exists()
