"""Every page, for every persona: the owner researcher, an outsider researcher, an annotator of the
project, a logged-in stranger and an anonymous visitor. Plus what the pages do with their input."""

from __future__ import annotations

import csv
import io
import json
import random
import re

import pytest
from django.urls import reverse

from annotation.judging.assignment import claim_next_task, correct_judgement, submit_judgement
from annotation.models import Assignment, Judgement, Membership, Project, Task
from tests.annotation.factories import make_gold_project, make_likert_project, make_project, project_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(researcher, annotators):
    return make_project(researcher, annotators, k=2)


@pytest.fixture
def stranger(django_user_model):
    return django_user_model.objects.create_user("stranger", password="stranger-password")


def as_user(client, user):
    client.force_login(user)
    return client


ANNOTATOR_PAGES = ["judge", "history", "qualification"]
RESEARCHER_PAGES = ["project-page", "project-settings", "project-import", "project-progress"]


@pytest.mark.parametrize("name", ANNOTATOR_PAGES)
def test_annotator_pages_answer_members_only(client, project, annotators, stranger, researcher, name):
    url = reverse(name, args=[project.pk])
    assert as_user(client, annotators[0]).get(url).status_code == 200
    assert as_user(client, stranger).get(url).status_code == 404
    assert as_user(client, researcher).get(url).status_code == 404  # owning is not annotating
    client.logout()
    assert client.get(url).status_code == 302


@pytest.mark.parametrize("name", RESEARCHER_PAGES)
def test_researcher_pages_answer_the_owner_only(
    client, project, annotators, outsider_researcher, researcher, name
):
    url = reverse(name, args=[project.pk])
    assert as_user(client, researcher).get(url).status_code == 200
    assert as_user(client, outsider_researcher).get(url).status_code == 404
    assert as_user(client, annotators[0]).get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_judgement_downloads_answer_the_owner_only(
    client, project, annotators, outsider_researcher, researcher, fmt
):
    url = reverse("judgements-download", args=[project.pk, fmt])
    assert as_user(client, researcher).get(url).status_code == 200
    assert as_user(client, outsider_researcher).get(url).status_code == 404
    assert as_user(client, annotators[0]).get(url).status_code == 404


def test_only_researchers_may_create_projects(client, annotators, researcher):
    assert as_user(client, annotators[0]).get(reverse("project-new")).status_code == 403
    assert as_user(client, researcher).get(reverse("project-new")).status_code == 200


@pytest.mark.parametrize(
    "name, args",
    [("claim", []), ("member-add", []), ("member-block", ["user"]), ("member-unblock", ["user"])],
)
def test_state_changes_refuse_get(client, project, annotators, researcher, name, args):
    user = researcher if name.startswith("member") else annotators[0]
    extra = [annotators[1].pk] if args else []
    assert as_user(client, user).get(reverse(name, args=[project.pk, *extra])).status_code == 405


def test_skip_refuses_get_and_only_skips_ones_own_lease(client, project, annotators):
    assignment = claim_next_task(project, annotators[0])
    url = reverse("skip", args=[project.pk, assignment.pk])
    assert as_user(client, annotators[0]).get(url).status_code == 405
    as_user(client, annotators[1]).post(url)
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.ACTIVE
    as_user(client, annotators[0]).post(url)
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.SKIPPED


def test_imported_text_is_escaped_and_instructions_are_sanitised(client, researcher, annotators):
    project = Project.objects.create(
        name="XSS",
        owner=researcher,
        assignments_per_task=1,
        instructions="**Bold** <script>alert('i')</script><img src=x onerror=alert(1)>",
    )
    project.annotators.set(annotators)
    from evaluation.collection.flow import import_collection

    import_collection(
        project,
        topics=[{"id": "1", "title": "<b>topic</b>"}],
        documents=[{"id": "d", "text": "<script>alert('d')</script> flow"}],
        items=[{"topic": "1", "document": "d"}],
    )
    claim_next_task(project, annotators[0])
    page = as_user(client, annotators[0]).get(reverse("judge", args=[project.pk])).content.decode()
    assert "<strong>Bold</strong>" in page
    assert "<script>alert" not in page and "onerror" not in page
    assert "&lt;script&gt;alert(&#x27;d&#x27;)&lt;/script&gt;" in page
    assert "&lt;b&gt;topic&lt;/b&gt;" in page


def test_a_gold_item_looks_like_any_other_item_on_the_page(client, researcher, annotators):
    project = make_gold_project(researcher, annotators[:1], items=2, gold=2, k=1, gold_rate=1.0)
    assignment = claim_next_task(project, annotators[0], rng=random.Random(0))
    assert assignment.task.kind == Task.Kind.GOLD
    page = as_user(client, annotators[0]).get(reverse("judge", args=[project.pk])).content.decode().lower()
    assert "gold" not in page and "check" not in page and "because" not in page
    # Byte for byte the page of an ordinary item, once the document's own text and ids are masked.
    ordinary = make_gold_project(researcher, annotators[1:2], items=2, gold=2, k=1, gold_rate=0.0)
    lease = claim_next_task(ordinary, annotators[1], rng=random.Random(0))
    assert lease.task.kind == Task.Kind.ITEM
    other = as_user(client, annotators[1]).get(reverse("judge", args=[ordinary.pk])).content.decode().lower()

    def masked(html: str, project: Project, lease: Assignment) -> str:
        html = html.replace(lease.task.document.text.lower(), "TEXT")
        html = re.sub(rf"/projects/{project.pk}/", "/projects/P/", html)
        html = re.sub(rf"/{lease.pk}/", "/L/", html)
        html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "CSRF", html)
        html = re.sub(r">annotator\d</span>", ">USER</span>", html)
        return re.sub(r'data-seconds="\d+" aria-live="off">[\d:]+<', "SECONDS", html)

    assert masked(page, project, assignment) == masked(other, ordinary, lease)


def test_gold_feedback_reaches_the_annotator_when_enabled(client, researcher, annotators):
    project = make_gold_project(
        researcher, annotators[:1], items=2, gold=2, k=1, gold_rate=1.0, gold_feedback=True
    )
    assignment = claim_next_task(project, annotators[0], rng=random.Random(0))
    expected = assignment.task.gold_answer["label"]
    response = as_user(client, annotators[0]).post(
        reverse("submit", args=[project.pk, assignment.pk]), {"label": str(1 - expected)}, follow=True
    )
    assert "Not quite: that was a check item" in response.content.decode()


def test_a_likert_rating_is_submitted_through_the_page(client, researcher, annotators):
    project = make_likert_project(researcher, annotators, items=2)
    client = as_user(client, annotators[0])
    client.post(reverse("claim", args=[project.pk]))
    assignment = Assignment.objects.get()
    page = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert 'name="scores.quality"' in page and 'name="scores.coherence"' in page
    response = client.post(
        reverse("submit", args=[project.pk, assignment.pk]), {"scores.quality": "5", "scores.coherence": "2"}
    )
    assert response.status_code == 302
    assert Judgement.objects.get().answer == {"scores": {"quality": 5, "coherence": 2}}


def test_a_bad_answer_is_refused_with_the_field_named_and_nothing_stored(client, researcher, annotators):
    project = make_likert_project(researcher, annotators, items=2)
    client = as_user(client, annotators[0])
    client.post(reverse("claim", args=[project.pk]))
    assignment = Assignment.objects.get()
    response = client.post(
        reverse("submit", args=[project.pk, assignment.pk]), {"scores.quality": "5"}, follow=True
    )
    assert "scores.coherence" in response.content.decode()
    assert Judgement.objects.count() == 0


def test_undo_opens_the_last_judgement_and_a_correction_keeps_the_history(client, project, annotators):
    client = as_user(client, annotators[0])
    client.post(reverse("claim", args=[project.pk]))
    first = Assignment.objects.get()
    client.post(reverse("submit", args=[project.pk, first.pk]), {"label": "1"})
    judgement = Judgement.objects.get()
    page = client.get(reverse("judge", args=[project.pk])).content.decode()
    edit_url = reverse("edit-judgement", args=[project.pk, judgement.pk])
    assert f'id="undo-link" href="{edit_url}' in page
    response = client.post(edit_url, {"label": "0", "next": reverse("judge", args=[project.pk])})
    assert response.status_code == 302 and response.url == reverse("judge", args=[project.pk])
    judgement.refresh_from_db()
    assert (judgement.label, judgement.revision) == (0, 2)
    history = client.get(reverse("history", args=[project.pk])).content.decode()
    assert edit_url in history


def test_an_annotator_cannot_open_someone_elses_judgement(client, project, annotators):
    assignment = claim_next_task(project, annotators[0])
    judgement = submit_judgement(assignment.pk, annotators[0], 1).judgement
    url = reverse("edit-judgement", args=[project.pk, judgement.pk])
    assert as_user(client, annotators[1]).get(url).status_code == 404
    assert as_user(client, annotators[1]).post(url, {"label": "0"}).status_code == 404
    assert Judgement.objects.get().label == 1


def test_the_correction_page_never_redirects_off_site(client, project, annotators):
    assignment = claim_next_task(project, annotators[0])
    judgement = submit_judgement(assignment.pk, annotators[0], 1).judgement
    url = reverse("edit-judgement", args=[project.pk, judgement.pk])
    response = as_user(client, annotators[0]).post(url, {"label": "0", "next": "https://evil.example/"})
    assert response.url == reverse("judge", args=[project.pk])


def test_the_history_lists_only_ones_own_judgements(client, project, annotators):
    for annotator in annotators[:2]:
        assignment = claim_next_task(project, annotator)
        submit_judgement(assignment.pk, annotator, 1)
    page = as_user(client, annotators[0]).get(reverse("history", args=[project.pk]))
    assert len(page.context["page"].object_list) == 1
    assert page.context["page"].object_list[0].annotator == annotators[0]


def test_the_researcher_creates_a_likert_project_through_the_form(client, researcher, annotators):
    response = as_user(client, researcher).post(
        reverse("project-new"),
        project_form(
            name="Summaries",
            task_type="likert",
            likert_dimensions="quality, coherence",
            likert_low="1",
            likert_high="5",
            assignments_per_task="2",
            serve_order="random",
            attention_rate="0.1",
            rating_normalisation="zscore",
            annotator_usernames="annotator1, annotator2",
        ),
    )
    project = Project.objects.get(name="Summaries")
    assert response.url == reverse("project-import", args=[project.pk])
    assert project.owner == researcher
    assert project.config == {"dimensions": ["quality", "coherence"], "scale": [1, 5]}
    assert project.rating_normalisation == "zscore"
    assert sorted(project.annotators.values_list("username", flat=True)) == ["annotator1", "annotator2"]


def test_a_bad_configuration_is_refused_naming_the_field(client, researcher):
    response = as_user(client, researcher).post(
        reverse("project-new"),
        {
            "name": "Bad",
            "task_type": "graded_relevance",
            "graded_levels": "0: no\nlots: yes",
            "assignments_per_task": "3",
            "assignment_minutes": "30",
            "serve_order": "pool",
            "gold_rate": "2",
            "attention_rate": "0",
            "qualification_pass_rate": "0.8",
            "qualification_attempts_allowed": "2",
            "quality_threshold": "0.7",
            "ground_truth_method": "majority",
            "annotator_usernames": "nobody",
        },
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert "line 2" in errors["graded_levels"][0]
    assert "less than or equal to 1" in errors["gold_rate"][0]
    assert "no such user: nobody" in errors["annotator_usernames"][0]
    assert not Project.objects.filter(name="Bad").exists()


def test_the_import_page_imports_a_file_and_reports_errors_by_field_and_line(client, researcher):
    project = Project.objects.create(
        name="I", owner=researcher, task_type="likert", config={"dimensions": ["quality"], "scale": [1, 5]}
    )
    client = as_user(client, researcher)
    url = reverse("project-import", args=[project.pk])
    broken = client.post(url, {"body": '{"documents": [\n{"id": "a", "text": "x"},\n]}'})
    assert "line 3" in broken.content.decode()
    bad = {"documents": [{"id": "a", "text": "x"}], "items": [{"document": "a"}, {"document": "zz"}]}
    response = client.post(url, {"body": json.dumps(bad)})
    assert "items[1].document: document &#x27;zz&#x27; is not among" in response.content.decode()
    assert project.documents.count() == 0
    upload = io.BytesIO(json.dumps({**bad, "items": [{"document": "a"}]}).encode())
    upload.name = "import.json"
    response = client.post(url, {"file": upload})
    assert response.status_code == 302
    assert project.tasks.filter(kind=Task.Kind.ITEM).count() == 1


def test_the_progress_figures_follow_the_judgements(client, project, annotators, researcher):
    url = reverse("project-progress", args=[project.pk])
    before = as_user(client, researcher).get(url).json()
    assert (before["items_total"], before["judgements_done"], before["judgements_remaining"]) == (7, 0, 14)
    for annotator in annotators[:2]:
        assignment = claim_next_task(project, annotator, shown=True)
        submit_judgement(assignment.pk, annotator, 1)
    after = client.get(url).json()
    assert (after["items_complete"], after["judgements_done"], after["judgements_in_window"]) == (1, 2, 2)
    assert after["judgements_remaining"] == 12
    assert after["median_seconds_on_task"] is not None


def test_judgement_downloads_say_who_judged_what_and_when(client, project, annotators, researcher):
    assignment = claim_next_task(project, annotators[0])
    submit_judgement(assignment.pk, annotators[0], {"label": 1})
    client = as_user(client, researcher)
    body = b"".join(client.get(reverse("judgements-download", args=[project.pk, "csv"])).streaming_content)
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert len(rows) == 1
    row = rows[0]
    assert (row["annotator"], row["topic"], row["document"], row["label"], row["kind"]) == (
        "annotator1",
        assignment.task.topic.external_id,
        assignment.task.document.external_id,
        "1",
        "item",
    )
    assert json.loads(row["answer"]) == {"label": 1} and row["created_at"]
    body = b"".join(client.get(reverse("judgements-download", args=[project.pk, "jsonl"])).streaming_content)
    records = [json.loads(line) for line in body.decode().splitlines()]
    assert records[0]["answer"] == {"label": 1} and records[0]["annotator"] == "annotator1"


def test_the_download_of_every_version_has_a_row_per_correction(client, project, annotators, researcher):
    assignment = claim_next_task(project, annotators[0])
    judgement = submit_judgement(assignment.pk, annotators[0], {"label": 1}).judgement
    correct_judgement(judgement.pk, annotators[0], {"label": 0})
    client = as_user(client, researcher)
    url = reverse("judgements-download", args=[project.pk, "jsonl"])
    latest = [json.loads(line) for line in b"".join(client.get(url).streaming_content).decode().splitlines()]
    assert [(r["label"], r["revision"]) for r in latest] == [(0, 2)]
    body = b"".join(client.get(url + "?versions=all").streaming_content).decode()
    versions = [json.loads(line) for line in body.splitlines()]
    assert [(r["judgement_id"], r["label"], r["answer"], r["revision"]) for r in versions] == [
        (judgement.pk, 1, {"label": 1}, 1),
        (judgement.pk, 0, {"label": 0}, 2),
    ]
    assert {r["annotator"] for r in versions} == {"annotator1"}
    assert versions[0]["updated_at"] <= versions[1]["updated_at"]
    csv_url = reverse("judgements-download", args=[project.pk, "csv"]) + "?versions=all"
    rows = list(csv.DictReader(io.StringIO(b"".join(client.get(csv_url).streaming_content).decode())))
    assert [row["revision"] for row in rows] == ["1", "2"]


def test_blocking_from_the_dashboard_stops_the_annotator(client, project, annotators, researcher):
    claim_next_task(project, annotators[0])
    as_user(client, researcher).post(reverse("member-block", args=[project.pk, annotators[0].pk]))
    assert Membership.objects.get(project=project, annotator=annotators[0]).blocked
    page = as_user(client, annotators[0]).get(reverse("judge", args=[project.pk])).content.decode()
    assert "You can no longer take tasks in this project." in page
    as_user(client, researcher).post(reverse("member-unblock", args=[project.pk, annotators[0].pk]))
    assert not Membership.objects.get(project=project, annotator=annotators[0]).blocked
