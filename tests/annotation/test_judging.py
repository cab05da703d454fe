"""The annotator's path: claim a task (POST), judge it (POST), never see anyone else's answer."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.judging.assignment import AssignmentError, claim_next_task, submit_judgement
from annotation.models import Assignment, Judgement, Task
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(researcher, annotators):
    return make_project(researcher, annotators, k=2, pool_depth=2)


def logged_in(client, user):
    client.force_login(user)
    return client


def test_tasks_are_served_in_pool_order(project, annotators):
    first = claim_next_task(project, annotators[0])
    assert first.task.pool_rank == 1


def test_the_judging_page_never_changes_state_on_get(client, project, annotators):
    response = logged_in(client, annotators[0]).get(reverse("judge", args=[project.pk]))
    assert response.status_code == 200
    assert b"Get the next task" in response.content
    assert Assignment.objects.count() == 0


def test_an_annotator_claims_and_submits_then_gets_the_next_task(client, project, annotators):
    client = logged_in(client, annotators[0])
    client.post(reverse("claim", args=[project.pk]))
    assignment = Assignment.objects.get()
    page = client.get(reverse("judge", args=[project.pk]))
    assert assignment.task.document.text.encode() in page.content

    response = client.post(reverse("submit", args=[project.pk, assignment.pk]), {"label": "1"})
    assert response.status_code == 302
    judgement = Judgement.objects.get()
    assert (judgement.annotator, judgement.task, judgement.label) == (annotators[0], assignment.task, 1)
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    # The next task was leased right away, and it is a different one.
    assert Assignment.objects.filter(status=Assignment.Status.ACTIVE).get().task != assignment.task


def test_each_task_gets_exactly_k_judgements_from_k_different_annotators(project, annotators):
    for annotator in annotators:
        while (assignment := claim_next_task(project, annotator)) is not None:
            submit_judgement(assignment.pk, annotator, 1)
    counts = {t.pk: t.judgements.count() for t in Task.objects.all()}
    assert set(counts.values()) == {2}
    assert Task.objects.filter(completed=False).count() == 0
    pairs = list(Judgement.objects.values_list("task_id", "annotator_id"))
    assert len(pairs) == len(set(pairs))


def test_a_submission_against_an_expired_lease_is_refused(project, annotators):
    assignment = claim_next_task(project, annotators[0])
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(AssignmentError, match="ran out"):
        submit_judgement(assignment.pk, annotators[0], 1)
    assert Judgement.objects.count() == 0


def test_an_expired_lease_returns_its_slot_to_the_pool(researcher, annotators):
    project = make_project(researcher, annotators, k=1, pool_depth=1)
    tasks = Task.objects.count()
    held = [claim_next_task(project, annotators[0])]
    # annotator 0 holds one; annotator 1 takes the rest.
    while (a := claim_next_task(project, annotators[1])) is not None:
        submit_judgement(a.pk, annotators[1], 0)
    assert Judgement.objects.count() == tasks - 1
    Assignment.objects.filter(pk=held[0].pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    reclaimed = claim_next_task(project, annotators[2])
    assert reclaimed.task == held[0].task
    assert Task.objects.get(pk=reclaimed.task.pk).slots_taken == 1


def test_an_annotator_cannot_submit_someone_elses_lease(project, annotators):
    assignment = claim_next_task(project, annotators[0])
    with pytest.raises(AssignmentError, match="not assigned to you"):
        submit_judgement(assignment.pk, annotators[1], 1)


def test_a_second_submission_of_the_same_lease_is_refused(project, annotators):
    assignment = claim_next_task(project, annotators[0])
    submit_judgement(assignment.pk, annotators[0], 1)
    with pytest.raises(AssignmentError, match="already judged"):
        submit_judgement(assignment.pk, annotators[0], 0)
    assert Judgement.objects.count() == 1


def test_a_label_outside_binary_relevance_is_refused(project, annotators):
    assignment = claim_next_task(project, annotators[0])
    with pytest.raises(AssignmentError, match="0 or 1"):
        submit_judgement(assignment.pk, annotators[0], 7)


def test_submitting_requires_post(client, project, annotators):
    assignment = claim_next_task(project, annotators[0])
    response = logged_in(client, annotators[0]).get(reverse("submit", args=[project.pk, assignment.pk]))
    assert response.status_code == 405


def test_a_non_member_gets_404_for_the_project(client, project, django_user_model):
    stranger = django_user_model.objects.create_user("stranger", password="x-password")
    response = logged_in(client, stranger).get(reverse("judge", args=[project.pk]))
    assert response.status_code == 404


def test_anonymous_users_are_sent_to_log_in(client, project):
    response = client.get(reverse("judge", args=[project.pk]))
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_imported_text_is_escaped_on_the_judging_page(client, project, annotators):
    assignment = claim_next_task(project, annotators[0])
    document = assignment.task.document
    document.text = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    document.save()
    page = logged_in(client, annotators[0]).get(reverse("judge", args=[project.pk])).content.decode()
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert" in page
    assert "<img src=x" not in page


def test_instructions_markdown_is_sanitised(client, project, annotators):
    project.instructions = "**Bold** <script>steal()</script> [x](javascript:alert(1))"
    project.save()
    page = logged_in(client, annotators[0]).get(reverse("judge", args=[project.pk])).content.decode()
    assert "<strong>Bold</strong>" in page
    assert "<script>steal" not in page
    assert "javascript:" not in page


def test_the_page_shows_no_other_annotators_judgements(client, project, annotators):
    # Annotator 0 judges the first task; annotator 1 is then served that same task.
    first = claim_next_task(project, annotators[0])
    submit_judgement(first.pk, annotators[0], 1)
    second = claim_next_task(project, annotators[1])
    assert second.task == first.task
    page = logged_in(client, annotators[1]).get(reverse("judge", args=[project.pk])).content.decode()
    assert "annotator1" not in page
    assert not re.search(r"<input[^>]*checked", page)


# -- one round trip per judgement: the judging page's script asks for the next task in the answer --

INLINE = {"HTTP_X_JUDGING": "inline"}


def test_a_submission_from_the_page_script_is_answered_with_the_next_task(client, project, annotators):
    client = logged_in(client, annotators[0])
    client.post(reverse("claim", args=[project.pk]), **INLINE)
    first = Assignment.objects.get()
    response = client.post(reverse("submit", args=[project.pk, first.pk]), {"label": "1"}, **INLINE)
    assert response.status_code == 200 and response["X-Judging-Page"] == "1"
    # Committed before the answer, and the next task leased, shown, and on the page.
    assert Judgement.objects.get().assignment == first
    second = Assignment.objects.get(status=Assignment.Status.ACTIVE)
    assert second.task != first.task and second.shown_at is not None
    page = response.content.decode()
    assert f"/assignments/{second.pk}/submit/" in page
    assert second.task.document.text in page
    assert "Saved." in page and "You have judged 1 item" in page


def test_without_the_script_a_submission_still_redirects_to_the_judging_page(client, project, annotators):
    client = logged_in(client, annotators[0])
    assignment = claim_next_task(project, annotators[0])
    response = client.post(reverse("submit", args=[project.pk, assignment.pk]), {"label": "0"})
    assert response.status_code == 302 and response["Location"] == reverse("judge", args=[project.pk])
    assert "X-Judging-Page" not in response


def test_a_double_submission_from_the_script_is_stored_once_and_says_so(client, project, annotators):
    client = logged_in(client, annotators[0])
    assignment = claim_next_task(project, annotators[0])
    url = reverse("submit", args=[project.pk, assignment.pk])
    client.post(url, {"label": "1"}, **INLINE)
    again = client.post(url, {"label": "0"}, **INLINE)
    assert again.status_code == 200
    assert "You have already judged this task." in again.content.decode()
    assert list(Judgement.objects.values_list("label", flat=True)) == [1]


def test_the_lease_is_checked_when_the_script_submits(client, project, annotators):
    assignment = claim_next_task(project, annotators[0])
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    url = reverse("submit", args=[project.pk, assignment.pk])
    response = logged_in(client, annotators[0]).post(url, {"label": "1"}, **INLINE)
    assert "ran out" in response.content.decode()
    assert Judgement.objects.count() == 0
    # Someone else's lease, sent by the script, stores nothing either.
    theirs = claim_next_task(project, annotators[1])
    url = reverse("submit", args=[project.pk, theirs.pk])
    assert "not assigned to you" in client.post(url, {"label": "1"}, **INLINE).content.decode()
    assert Judgement.objects.count() == 0


def test_a_submission_from_the_script_needs_the_csrf_token(project, annotators):
    from django.test import Client

    client = logged_in(Client(enforce_csrf_checks=True), annotators[0])
    assignment = claim_next_task(project, annotators[0])
    response = client.post(reverse("submit", args=[project.pk, assignment.pk]), {"label": "1"}, **INLINE)
    assert response.status_code == 403
    assert Judgement.objects.count() == 0


def test_skipping_and_asking_for_a_task_from_the_script_answer_with_the_page(client, project, annotators):
    client = logged_in(client, annotators[0])
    first = client.post(reverse("claim", args=[project.pk]), **INLINE)
    held = Assignment.objects.get()
    assert first.status_code == 200 and f"/assignments/{held.pk}/skip/" in first.content.decode()
    skipped = client.post(reverse("skip", args=[project.pk, held.pk]), **INLINE)
    held.refresh_from_db()
    assert held.status == Assignment.Status.SKIPPED
    now_held = Assignment.objects.get(status=Assignment.Status.ACTIVE)
    assert "Skipped." in skipped.content.decode()
    assert f"/assignments/{now_held.pk}/submit/" in skipped.content.decode()


def test_the_answer_after_a_gold_item_reads_as_after_any_other_item(client, researcher, annotators):
    import random

    from tests.annotation.factories import make_gold_project

    project = make_gold_project(researcher, annotators[:1], items=3, gold=3, k=1, gold_rate=1.0)
    client = logged_in(client, annotators[0])
    answers = []
    for _ in range(2):  # a gold item first (gold_rate 1), then, with no gold wanted, an item
        assignment = claim_next_task(project, annotators[0], rng=random.Random(0))
        response = client.post(reverse("submit", args=[project.pk, assignment.pk]), {"label": "1"}, **INLINE)
        answers.append((assignment.task.kind, response))
        project.gold_rate = 0.0
        project.save()
        Assignment.objects.filter(status=Assignment.Status.ACTIVE).update(
            expires_at=timezone.now() - timedelta(seconds=1)
        )
    assert [kind for kind, _ in answers] == [Task.Kind.GOLD, Task.Kind.ITEM]
    for _, response in answers:
        page = response.content.decode().lower()
        assert response.status_code == 200 and "saved." in page
        assert "gold" not in page and "check" not in page


def test_one_key_answering_is_offered_where_the_project_sets_it_and_one_key_can_answer(
    client, researcher, annotators
):
    from tests.annotation.factories import make_likert_project

    def form_tag(project) -> str:
        page = logged_in(client, annotators[0]).post(reverse("claim", args=[project.pk]), **INLINE)
        return re.search(r'<form [^>]*id="judgement-form"[^>]*>', page.content.decode()).group(0)

    assert "data-one-key" not in form_tag(make_project(researcher, annotators, k=2))
    assert "data-one-key" in form_tag(make_project(researcher, annotators, k=2, one_key_answers=True))
    assert "data-one-key" in form_tag(make_likert_project(researcher, annotators, one_key_answers=True))
    free_text = make_project(researcher, annotators, k=1, one_key_answers=True)
    free_text.task_type, free_text.config = "free_text", {"max_words": 20}
    free_text.save()
    assert "data-one-key" not in form_tag(free_text)


def test_a_judgement_and_the_next_task_take_eleven_statements_of_the_engine_and_page(
    client, project, annotators
):
    """The load benchmark's capacity rests on this count (28 statements over two requests before the
    one round trip): a new query per judgement should be a choice, not an accident."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = logged_in(client, annotators[0])
    client.post(reverse("claim", args=[project.pk]), **INLINE)
    assignment = Assignment.objects.get()
    with CaptureQueriesContext(connection) as queries:
        client.post(reverse("submit", args=[project.pk, assignment.pk]), {"label": "1"}, **INLINE)
    ours = [query["sql"] for query in queries.captured_queries if "annotation_" in query["sql"]]
    # Membership (locked), lease (locked), judgement, revision, lease status, task lock, the task's
    # count, expired leases, the claim (one statement on PostgreSQL, two elsewhere), the new lease,
    # the annotator's count.
    assert len(ours) == (11 if connection.vendor == "postgresql" else 12), "\n".join(ours)
