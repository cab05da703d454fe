"""A worker who came by a study link costs the server what an account user costs per judgement: the
claim's check of their session (its size, their count, the budget) is one statement, and the judging
page shows the count that statement read instead of counting again."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Assignment
from tests.annotation.factories import make_gold_project
from tests.platforms.test_study_links import prolific, prolific_url

pytestmark = pytest.mark.django_db

INLINE = {"HTTP_X_JUDGING": "inline"}


def submit_one(client, project, annotator) -> tuple[list[str], str]:
    """The statements of one submission answered with the next task (as the judging page's script
    asks), and the page."""
    client.post(reverse("claim", args=[project.pk]), **INLINE)
    lease = Assignment.objects.get(annotator=annotator, status=Assignment.Status.ACTIVE)
    with CaptureQueriesContext(connection) as queries:
        answered = client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "1"}, **INLINE)
    assert answered.status_code == 200
    return [query["sql"] for query in queries.captured_queries], answered.content.decode()


def test_a_link_workers_submission_takes_as_many_statements_as_an_account_users(
    client, researcher, annotators
):
    project = make_gold_project(researcher, annotators[:1], items=20, gold=0, k=3)
    client.force_login(annotators[0])
    account, _ = submit_one(client, project, annotators[0])
    client.logout()
    link = prolific(project, tasks_per_session=10)
    client.post(prolific_url(link))
    worker = link.sessions.get().worker.annotator
    submit_one(client, project, worker)
    by_link, page = submit_one(client, project, worker)
    assert any("annotation_studysession" in sql for sql in by_link)  # the session is checked …
    assert len(by_link) == len(account), "\n".join(by_link)  # … in place of the page's own count
    assert "You have judged 2 items." in page
