"""Consent before any task, the questions about who the workers are (answers apart from judgements,
summarised in counts), and the erasure of a worker's personal data that keeps their judgements."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.crowd.questionnaire import (
    PREFER_NOT,
    AnswerProblem,
    QuestionnaireError,
    read_answers,
    summarise,
    validate_questionnaire,
)
from annotation.judging.platforms import create_link
from annotation.models import (
    Assignment,
    DemographicResponse,
    Judgement,
    Membership,
    PlatformWorker,
    Project,
    ProjectEvent,
    StudySession,
)
from tests.annotation.factories import make_project
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
QUESTIONS = [
    {"name": "age", "question": "How old are you?", "kind": "number", "min": 18, "max": 99},
    {
        "name": "english",
        "question": "Is English your first language?",
        "kind": "choice",
        "choices": ["yes", "no"],
    },
    {"name": "field", "question": "What do you work in?", "kind": "text", "required": False},
]


@pytest.fixture
def project(researcher):
    project = make_project(researcher, [], k=1)
    Project.objects.filter(pk=project.pk).update(
        consent_text="You will judge documents. **You may stop at any time.** <script>alert(1)</script>",
        demographics=QUESTIONS,
    )
    project.refresh_from_db()
    return project


def arrive(client, project) -> str:
    link = create_link(project, None, platform="prolific", tasks_per_session=2)
    client.post(f"{reverse('study', args=[link.slug])}?PROLIFIC_PID={PID}&STUDY_ID=s&SESSION_ID=a")
    return link.slug


def test_consent_then_the_questions_come_before_any_task(client, project):
    arrive(client, project)
    judge_page = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert (
        "Read the consent form, and accept it" in judge_page
        and reverse("consent", args=[project.pk]) in judge_page
    )
    client.post(reverse("claim", args=[project.pk]))
    assert not Assignment.objects.exists()  # no task before consent
    # The questions wait for the consent, and so does the qualification page.
    assert client.get(reverse("about-you", args=[project.pk]))["Location"] == reverse(
        "consent", args=[project.pk]
    )
    assert client.get(reverse("qualification", args=[project.pk]))["Location"] == reverse(
        "consent", args=[project.pk]
    )
    form = client.get(reverse("consent", args=[project.pk])).content.decode()
    assert "<strong>You may stop at any time.</strong>" in form and "<script>" not in form  # sanitised
    declined = client.post(reverse("consent", args=[project.pk]), {"answer": "decline"})
    assert b"You chose not to take part" in declined.content
    assert Membership.objects.get(joined_via="study_link").consented_at is None
    accepted = client.post(reverse("consent", args=[project.pk]), {"answer": "accept"})
    assert accepted["Location"] == reverse("about-you", args=[project.pk])
    client.post(reverse("claim", args=[project.pk]))
    assert not Assignment.objects.exists()  # the questions are not answered yet
    refused = client.post(reverse("about-you", args=[project.pk]), {"q-age": "12", "q-english": "yes"})
    assert refused.status_code == 400 and "write a number from 18 to 99" in refused.content.decode()
    assert not DemographicResponse.objects.exists()
    answered = client.post(
        reverse("about-you", args=[project.pk]), {"q-age-prefer-not": "1", "q-english": "no"}
    )
    assert answered["Location"] == reverse("judge", args=[project.pk])
    assert DemographicResponse.objects.get().answers == {"age": PREFER_NOT, "english": "no", "field": None}
    client.post(reverse("claim", args=[project.pk]))
    assert Assignment.objects.filter(status="active").count() == 1  # now the tasks open
    # Answers are apart from judgements: nothing of them in a judgement.
    lease = Assignment.objects.get()
    client.post(reverse("submit", args=[project.pk, lease.pk]), {"label": "1"})
    assert "english" not in str(Judgement.objects.get().answer)


def test_the_researcher_sees_counts_and_a_file_apart_and_nothing_names_a_worker(client, researcher, project):
    responses = [{"age": 20 + i, "english": "yes" if i % 3 else "no", "field": "law"} for i in range(6)]
    responses.append({"age": PREFER_NOT, "english": PREFER_NOT, "field": None})
    summary = {row["name"]: row for row in summarise(QUESTIONS, responses)}
    assert summary["age"]["answered"] == 6 and summary["age"]["prefer_not"] == 1
    assert summary["age"]["quartiles"] == [20.75, 22.5, 24.25]  # statistics.quantiles of 20..25
    assert summary["english"]["counts"] == [{"choice": "yes", "count": 4}, {"choice": "no", "count": 2}]
    assert summary["field"] == {
        "name": "field",
        "question": "What do you work in?",
        "kind": "text",
        "answered": 6,
        "prefer_not": 0,
    }  # free text: only how many answered
    assert (
        "quartiles" not in summarise(QUESTIONS, responses[:4])[0]
    )  # too few to show without pointing at people
    arrive(client, project)
    client.post(reverse("consent", args=[project.pk]), {"answer": "accept"})
    client.post(
        reverse("about-you", args=[project.pk]),
        {"q-age": "31", "q-english": "yes", "q-field": "=HYPERLINK(1)"},
    )
    name = PlatformWorker.objects.get().annotator.username
    client.force_login(researcher)
    body = api(researcher).get(reverse("demographics-api", args=[project.pk])).json()
    assert body["responses"] == 1 and name not in str(body) and PID not in str(body)
    page = client.get(reverse("project-annotators", args=[project.pk])).content.decode()
    assert "Who the workers are" in page and "yes: 1" in page
    rows = client.get(reverse("demographics-file", args=[project.pk])).content.decode().splitlines()
    assert rows == ["annotator,age,english,field", f"{name},31,yes,'=HYPERLINK(1)"]  # no formula runs


def test_erasure_removes_the_platform_id_and_answers_keeps_the_judgements_and_is_recorded(
    client, researcher, project
):
    slug = arrive(client, project)
    client.post(reverse("consent", args=[project.pk]), {"answer": "accept"})
    client.post(reverse("about-you", args=[project.pk]), {"q-age": "40", "q-english": "yes"})
    client.post(reverse("claim", args=[project.pk]))
    client.post(reverse("submit", args=[project.pk, Assignment.objects.get().pk]), {"label": "1"})
    worker = PlatformWorker.objects.get()
    client.force_login(researcher)
    answer = client.post(reverse("erase-personal-data", args=[project.pk, worker.annotator_id]))
    assert answer.status_code == 302
    worker.refresh_from_db()
    assert worker.platform_id == "" and worker.erased_at is not None
    assert not DemographicResponse.objects.exists()
    assert Judgement.objects.get().annotator == worker.annotator  # kept, under the pseudonym
    session = StudySession.objects.get()
    assert PID not in str(session.__dict__) and session.platform_session.startswith("erased-")
    event = ProjectEvent.objects.get(action=ProjectEvent.Action.PERSONAL_DATA_ERASED)
    assert worker.annotator.username in event.summary and PID not in event.summary + str(event.details)
    # The same PID arriving again is a new pseudonym: nothing links it to the erased one.
    client.logout()
    client.post(f"{reverse('study', args=[slug])}?PROLIFIC_PID={PID}&STUDY_ID=s&SESSION_ID=b")
    assert PlatformWorker.objects.count() == 2
    again = api(researcher).post(
        reverse("erasure-api", args=[project.pk, worker.annotator_id]), format="json"
    )
    assert again.status_code == 200 and again.json()["platform_id_erased"] is False


@pytest.mark.parametrize(
    ("questions", "message"),
    [
        ({"name": "age"}, "write a list of questions"),
        ([{"name": "Age", "question": "?", "kind": "number"}], "question 1: name must be lower-case"),
        (
            [{"name": "a", "question": "?", "kind": "choice", "choices": ["x"]}],
            "question 1 (a): give at least two",
        ),
        (
            [{"name": "a", "question": "?", "kind": "text"}, {"name": "a", "question": "?", "kind": "text"}],
            "question 2 (a): the name is used twice",
        ),
        ([{"name": "a", "question": "?", "kind": "number", "min": 5, "max": 1}], "min is above max"),
        ([{"name": "a", "question": "?", "kind": "slider"}], "kind must be one of"),
        ([{"name": "a", "question": "?", "kind": "text", "colour": 1}], "unknown key 'colour'"),
        (
            [{"name": "a", "question": "?", "kind": "choice", "choices": ["x", PREFER_NOT]}],
            "is always offered",
        ),
    ],
)
def test_a_questionnaire_that_cannot_be_asked_is_refused_naming_the_question(questions, message):
    with pytest.raises(QuestionnaireError, match=re.escape(message)):
        validate_questionnaire(questions)


def test_the_settings_api_refuses_a_bad_questionnaire_naming_the_field(researcher, project):
    url = reverse("project-detail", args=[project.pk])
    bad = api(researcher).patch(url, {"demographics": [{"name": "x", "kind": "text"}]}, format="json")
    assert bad.status_code == 400 and "question 1 (x): write the question's text" in str(
        bad.json()["demographics"]
    )
    good = api(researcher).patch(url, {"consent_text": ""}, format="json")
    assert good.status_code == 200 and good.json()["demographics"] == QUESTIONS  # what was not sent is kept


def test_a_required_answer_left_out_is_named():
    with pytest.raises(AnswerProblem) as refused:
        read_answers(QUESTIONS, {"q-age": "30"})
    assert refused.value.name == "english"
