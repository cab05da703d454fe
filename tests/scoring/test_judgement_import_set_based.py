"""The judgement import's set-based path on PostgreSQL (``annotation.judging.assignment.record_staged``:
the lines by COPY into a temporary table, one INSERT per kind of row, one UPDATE per task) stores what
the ORM's path stores (``take_slots``, ``insert_judgements``, ``close_or_refer``: still SQLite's), row
for row, on generated imports into projects that refer disputed items and ties (to one more
annotator or to the researcher), hold leases, earlier judgements, earlier referrals and decisions
in force; and refuses what it refuses, with the same words, storing nothing."""

from __future__ import annotations

import random
import re

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.adjudication.rules import settle
from annotation.judging.assignment import RecordedJudgement, record_judgements
from annotation.models import (
    Adjudication,
    Assignment,
    Judgement,
    JudgementRevision,
    Membership,
    Project,
    Task,
)
from evaluation.collection import judgement_import
from evaluation.collection.flow import import_collection

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the set-based path is PostgreSQL's"),
]

ITEMS = 40
LIKERT = {"dimensions": ["quality", "coherence"], "scale": [1, 5]}
GRADED = {
    "levels": [{"value": 0, "label": "no"}, {"value": 1, "label": "some"}, {"value": 2, "label": "yes"}]
}
# (task type, config, k, project settings): every way an item can be completed or referred.
KINDS = {
    "unanimous, to one more": ("binary_relevance", {}, 3, {"adjudication_rule": "not_unanimous"}),
    "majority below, to the researcher": (
        "graded_relevance",
        GRADED,
        3,
        {
            "adjudication_rule": "majority_below",
            "adjudication_threshold": 0.75,
            "adjudicated_by": "researcher",
        },
    ),
    "ties, to one more": ("binary_relevance", {}, 2, {"tie_rule": "extra_annotator"}),
    "ties, to the researcher": ("binary_relevance", {}, 2, {"tie_rule": "researcher"}),
    "ties broken, rule off": ("binary_relevance", {}, 3, {}),
    "ratings": ("likert", LIKERT, 2, {}),
}


def project_of(owner, kind: str, people) -> Project:
    task_type, config, k, settings = KINDS[kind]
    project = Project.objects.create(
        name=kind, owner=owner, task_type=task_type, config=config, assignments_per_task=k, **settings
    )
    project.annotators.set(people)
    import_collection(
        project,
        topics=[{"id": "1", "title": "gas flow"}, {"id": "2", "title": "heat"}],
        documents=[{"id": f"d{i}", "text": f"doc {i}"} for i in range(ITEMS)],
        items=[{"topic": str(1 + i % 2), "document": f"d{i}"} for i in range(ITEMS)],
    )
    return project


def answer_of(project: Project, rng: random.Random) -> dict:
    if project.task_type == "likert":
        answer: dict = {"scores": {d: rng.randint(1, 5) for d in LIKERT["dimensions"]}}
    elif project.task_type == "graded_relevance":
        answer = {"label": rng.choice([0, 1, 2])}
    else:
        answer = {"label": rng.choice([0, 1])}
    if rng.random() < 0.1:
        answer["rationale"] = rng.choice(["  because \\ so ", 'said "yes"\ttab', "ünïcode"])
    return answer


def items_of(project: Project) -> list[Task]:
    return list(Task.objects.filter(project=project, kind=Task.Kind.ITEM).order_by("document__external_id"))


def earlier_state(project: Project, owner, people, rng: random.Random) -> None:
    """Judgements by the engine (taking slots, completing and referring), a live lease, a decision in
    force: drawn from ``rng`` so two projects given the same seed get the same state."""
    recorded = []
    for task in items_of(project)[: ITEMS // 2]:
        for person in rng.sample(people[:4], rng.randint(0, task.required_judgements)):
            recorded.append(
                RecordedJudgement(task, person, answer_of(project, rng), rng.choice([None, 3.25]))
            )
    record_judgements(project, recorded)
    open_items = [t for t in items_of(project) if t.slots_taken < t.required_judgements]
    leased = rng.choice(open_items)
    Assignment.objects.create(
        task=leased, annotator=people[5], expires_at=timezone.now() + project.assignment_lease
    )
    Task.objects.filter(pk=leased.pk).update(slots_taken=leased.slots_taken + 1)
    if project.has_labels:
        judged = [t for t in items_of(project) if t.judgements.exists()]
        settle(rng.choice(judged), owner, 0, "decided")


def lines_for(project: Project, people, rng: random.Random) -> list[dict]:
    """Judgements for the free slots of some items, in a shuffled order: by task id or by topic and
    document, by known annotators and new ones, with and without seconds."""
    names = [p.username for p in people] + [f"new{i}" for i in range(4)]
    lines = []
    for task in items_of(project):
        taken = set(Assignment.objects.filter(task=task).values_list("annotator__username", flat=True))
        free = task.required_judgements - task.slots_taken
        count = rng.randint(0, free) if rng.random() < 0.3 else free
        for name in rng.sample([n for n in names if n not in taken], count):
            line: dict = {"annotator": name}
            if rng.random() < 0.5:
                line["task"] = task.pk
            else:
                line.update(topic=task.topic.external_id, document=task.document.external_id)
            answer = answer_of(project, rng)
            if list(answer) == ["label"] and rng.random() < 0.5:
                line["label"] = answer["label"]
            else:
                line["answer"] = answer
            if rng.random() < 0.5:
                line["seconds_spent"] = rng.choice([0, 1.5, 12, 0.1 + rng.random()])
            lines.append(line)
    rng.shuffle(lines)
    return lines


def with_ids_of(project: Project, lines: list[dict], other: Project) -> list[dict]:
    """``lines`` written for ``other``, naming ``project``'s items by id where they name other's."""
    ids = {t.pk: t.document.external_id for t in items_of(other)}
    mine = {t.document.external_id: t.pk for t in items_of(project)}
    return [{**line, "task": mine[ids[line["task"]]]} if "task" in line else line for line in lines]


def stored(project: Project) -> dict:
    """Everything an import writes for the project, keys replaced by what they name; the order of
    the keys (the lines' order) kept as ranks."""
    judgements = list(
        Judgement.objects.filter(project=project).select_related("task__document", "annotator", "assignment")
    )
    by_key = sorted(judgements, key=lambda j: j.pk)
    by_lease = sorted(judgements, key=lambda j: j.assignment_id)
    revisions = JudgementRevision.objects.filter(judgement__project=project)
    by_revision = [r.judgement_id for r in revisions.order_by("pk")]
    first_revision = {r.judgement_id: r.pk for r in revisions.filter(number=1)}
    return {
        "judgements": sorted(
            (
                j.task.document.external_id,
                j.annotator.username,
                j.label,
                j.answer,
                j.seconds_spent,
                j.seconds_on_task,
                j.revision,
                j.created_at == j.updated_at,
                j.assignment.status,
                j.assignment.task_id == j.task_id,
                j.assignment.annotator_id == j.annotator_id,
                j.assignment.shown_at,
                j.assignment.expires_at == j.assignment.created_at,
                j.assignment.created_at == j.created_at,
                [
                    (r.number, r.label, r.answer, r.created_at == j.created_at)
                    for r in j.revisions.order_by("number")
                ],
            )
            for j in judgements
        ),
        # Keys in the lines' order in each table: the judgements', the leases' and the revisions'.
        "order": [(j.task.document.external_id, j.annotator.username) for j in by_key],
        "leases in order": [j.pk for j in by_lease] == [j.pk for j in by_key],
        "revisions in order": [j for j in by_revision if j in first_revision]
        == sorted(first_revision, key=first_revision.get),
        "leases": sorted(
            (a.task.document.external_id, a.annotator.username, a.status, a.shown_at is None)
            for a in Assignment.objects.filter(task__project=project).select_related(
                "task__document", "annotator"
            )
        ),
        "tasks": [
            (
                t.document.external_id,
                t.slots_taken,
                t.completed,
                t.required_judgements,
                t.referred_to,
                t.referral_reason,
                t.referred_at is None,
            )
            for t in items_of(project)
        ],
        "members": sorted(
            Membership.objects.filter(project=project).values_list("annotator__username", "status")
        ),
        "decisions": Adjudication.objects.filter(project=project).count(),
    }


def post(owner, project: Project, lines: list[dict], create: bool = True):
    client = APIClient()
    client.force_authenticate(owner)
    return client.post(
        reverse("judgement-import-api", args=[project.pk]),
        {"judgements": lines, "create_annotators": create},
        format="json",
    )


@pytest.fixture
def people(django_user_model):
    return [django_user_model.objects.create_user(f"assessor{i}", password="x") for i in range(8)]


def twins(researcher, people, kind: str, seed: int) -> tuple[Project, Project]:
    projects = []
    for _ in range(2):
        project = project_of(researcher, kind, people[:6])
        earlier_state(project, researcher, people, random.Random(seed))
        projects.append(project)
    return projects[0], projects[1]


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_set_based_import_stores_what_the_orms_stores(researcher, people, kind, seed, monkeypatch):
    set_based, by_orm = twins(researcher, people, kind, seed)
    assert stored(set_based) == stored(by_orm)
    lines = lines_for(by_orm, people, random.Random(seed))
    assert lines, "nothing generated"
    monkeypatch.setattr(judgement_import, "SET_BASED", False)
    response = post(researcher, by_orm, lines)
    assert response.status_code == 201, response.content
    monkeypatch.setattr(judgement_import, "SET_BASED", True)
    again = post(researcher, set_based, with_ids_of(set_based, lines, by_orm))
    assert again.status_code == 201, again.content
    assert again.json() == response.json()
    mine, theirs = stored(set_based), stored(by_orm)
    for part in theirs:
        assert mine[part] == theirs[part], f"{kind}, seed {seed}: {part} differ"
    assert mine["leases in order"] and mine["revisions in order"]
    referred = [t for t in mine["tasks"] if t[4]]
    completed = [t for t in mine["tasks"] if t[2]]
    assert completed, f"{kind}, seed {seed}: no item completed: the test tests little"
    if kind != "ratings" and not kind.endswith("rule off"):
        assert referred, f"{kind}, seed {seed}: no item referred: the test tests little"
    created = get_user_model().objects.filter(username__startswith="new")
    assert all(not u.is_active and not u.has_usable_password() for u in created)


def test_each_refusal_is_the_same_and_stores_nothing(researcher, people, monkeypatch):
    set_based, by_orm = twins(researcher, people, "unanimous, to one more", 5)
    lines = lines_for(by_orm, people, random.Random(5))
    full = next(line for line in lines if "task" in line)
    faults = {
        "past k": [*lines, {**full, "annotator": "someone-else"}],
        "twice": [*lines, dict(full)],
        "unknown annotator": [*lines[:3], {**full, "annotator": "nobody"}],
        "bad label": [*lines[:3], {"task": full["task"], "annotator": "new9", "label": 7}],
    }
    for fault, bad in faults.items():
        answers = []
        for project, flag in ((by_orm, False), (set_based, True)):
            monkeypatch.setattr(judgement_import, "SET_BASED", flag)
            before = stored(project)
            response = post(
                researcher, project, with_ids_of(project, bad, by_orm), create=fault != "unknown annotator"
            )
            assert response.status_code == 400, (fault, response.content)
            assert stored(project) == before, fault
            answers.append(response.json())
        assert answers[0] == answers[1], fault


@pytest.mark.parametrize("change", ["slot taken", "judged meanwhile"])
def test_items_changed_while_importing_are_refused_alike(researcher, people, monkeypatch, change):
    """A slot taken, or a judgement stored, between the lines' check and the locks: the same 400 on
    both paths (naming the task, or the database's words on the unique judgement), nothing stored."""
    set_based, by_orm = twins(researcher, people, "unanimous, to one more", 7)
    lines = lines_for(by_orm, people, random.Random(7))
    line = next(line for line in lines if "task" in line)
    refusals = []
    add_members = judgement_import.add_members
    for project, flag in ((by_orm, False), (set_based, True)):
        monkeypatch.setattr(judgement_import, "SET_BASED", flag)
        ours = with_ids_of(project, lines, by_orm)
        task = Task.objects.get(pk=next(o["task"] for o, t in zip(ours, lines, strict=True) if t is line))

        def meanwhile(*args, task=task, annotator=line["annotator"]):
            add_members(*args)
            if change == "slot taken":
                Task.objects.filter(pk=task.pk).update(slots_taken=task.required_judgements)
            else:
                person = get_user_model().objects.get(username=annotator)
                lease = Assignment.objects.create(
                    task=task, annotator=person, status="submitted", expires_at=timezone.now()
                )
                Judgement.objects.create(
                    project_id=task.project_id,
                    task=task,
                    annotator=person,
                    assignment=lease,
                    answer={"label": 1},
                    label=1,
                )

        monkeypatch.setattr(judgement_import, "add_members", meanwhile)
        before = stored(project)
        response = post(researcher, project, ours)
        assert response.status_code == 400, response.content
        assert stored(project) == before
        (message,) = response.json()["judgements"]
        assert message.startswith("the items changed while importing (someone is judging them): "), message
        if change == "slot taken":
            assert f"Tasks [{task.pk}] do not have that many free slots." in message, message
        refusals.append(re.sub(r"\d+", "N", message.split("\n")[0]))
    assert refusals[0] == refusals[1]
