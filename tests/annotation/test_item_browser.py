"""The researcher's item browser and item page, and their API twins: each filter returns the right
items, an item shows every judgement with its history, its disagreement, its gold answer and its
ground truth, texts are escaped, the adjudication rule is set with the project's settings, and
nobody but the owner sees any of it — annotators least of all."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.adjudication.rules import settle
from annotation.judging.assignment import claim_next_task, correct_judgement, submit_judgement
from annotation.models import AdjudicatedBy, Membership, Project, Task
from evaluation.collection.flow import import_collection
from evaluation.ground_truth.build import build_snapshot
from tests.annotation.factories import project_form
from tests.groundtruth.builders import gold_items, items, judge, likert_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def four(django_user_model):
    return [django_user_model.objects.create_user(f"assessor{i}", password="x") for i in range(1, 5)]


@pytest.fixture
def project(researcher, four):
    """Binary relevance, k = 3, topics 1 and 2:

    - 1 × d0: 2 against 1 (disagree); 1 × d1: unanimous relevant; 1 × d2: judged by assessor4 only
      (open); 2 × d3: unjudged (open); 2 × g0: a gold item (expected relevant), answered by assessor1.
    - d1's judgement by assessor1 was corrected once (two revisions).
    """
    project = Project.objects.create(name="Browse", owner=researcher)
    project.annotators.set(four)
    import_collection(
        project,
        topics=[{"id": "1", "title": "gas flow"}, {"id": "2", "title": "heat <b>transfer</b>"}],
        documents=[{"id": f"d{i}", "text": f"document {i} about gas"} for i in range(3)]
        + [{"id": "d3", "text": "<script>alert('x')</script> slabs"}, {"id": "g0", "text": "gold text"}],
        items=[{"topic": "1", "document": f"d{i}"} for i in range(3)] + [{"topic": "2", "document": "d3"}],
        gold=[{"topic": "2", "document": "g0", "answer": {"label": 1}, "explanation": "It is about heat."}],
    )
    d0, d1, d2, _ = ordered(project)
    for annotator, label in zip(four[:3], [1, 1, 0], strict=True):
        judge(d0, annotator, label)
        judge(d1, annotator, 1 if annotator != four[0] else 0)
    correct_judgement(d1.judgements.get(annotator=four[0]).pk, four[0], 1)
    judge(d2, four[3], 1)
    judge(gold_items(project)[0], four[0], 0)
    Task.objects.filter(pk__in=[d0.pk, d1.pk]).update(completed=True, slots_taken=3)
    return project


def ordered(project) -> list[Task]:
    return list(project.tasks.filter(kind=Task.Kind.ITEM).order_by("document__external_id"))


def names(rows) -> list[str]:
    return sorted(row["document"] for row in rows)


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def listed(researcher, project, query: str = "") -> list[str]:
    response = api(researcher).get(reverse("items-api", args=[project.pk]) + query)
    assert response.status_code == 200, response.content
    return names(response.json()["results"])


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", ["d0", "d1", "d2", "d3", "g0"]),
        ("?topic=2", ["d3", "g0"]),
        ("?status=open", ["d2", "d3"]),
        ("?status=complete", ["d0", "d1"]),
        ("?disagreement=true", ["d0"]),
        ("?disagreement=false", ["d1", "d2", "d3", "g0"]),
        ("?gold=true", ["g0"]),
        ("?gold=false", ["d0", "d1", "d2", "d3"]),
        ("?annotator=assessor4", ["d2"]),
        ("?annotator=assessor1", ["d0", "d1", "g0"]),
        ("?q=slabs", ["d3"]),
        ("?q=TRANSFER", ["d3", "g0"]),
        ("?disagreement=false&status=complete", ["d1"]),
        ("?adjudicated=true", []),
    ],
)
def test_each_filter_returns_the_right_items(researcher, project, query, expected):
    assert listed(researcher, project, query) == expected


def test_the_adjudication_filter_follows_referrals_and_decisions(researcher, project, four):
    d0, d1, d2, _ = ordered(project)
    Task.objects.filter(pk=d0.pk).update(
        referred_to=AdjudicatedBy.EXTRA_ASSESSOR, required_judgements=4, completed=False
    )
    Task.objects.filter(pk=d2.pk).update(referred_to=AdjudicatedBy.RESEARCHER)
    assert listed(researcher, project, "?adjudicated=pending") == ["d0", "d2"]
    settle(d2, researcher, 0)
    settle(d1, researcher, 1)
    assert listed(researcher, project, "?adjudicated=pending") == ["d0"]
    assert listed(researcher, project, "?adjudicated=researcher") == ["d1", "d2"]
    Task.objects.filter(pk=d0.pk).update(completed=True)
    assert listed(researcher, project, "?adjudicated=extra_assessor") == ["d0"]
    assert listed(researcher, project, "?adjudicated=true") == ["d0", "d1", "d2"]
    assert listed(researcher, project, "?adjudicated=false") == ["d3", "g0"]


def test_ratings_disagree_when_scores_lie_more_than_a_point_apart(researcher, four):
    ratings = likert_project(researcher, four, items=2)
    close, apart = items(ratings)
    judge(close, four[0], {"scores": {"fluency": 3, "coherence": 3}})
    judge(close, four[1], {"scores": {"fluency": 4, "coherence": 3}})  # one point: within tolerance
    judge(apart, four[0], {"scores": {"fluency": 3, "coherence": 1}})
    judge(apart, four[1], {"scores": {"fluency": 3, "coherence": 5}})
    assert listed(researcher, ratings, "?disagreement=true") == ["s1"]
    assert listed(researcher, ratings, "?disagreement=false") == ["s0"]


def test_a_bad_filter_value_is_a_400_naming_it(researcher, project):
    response = api(researcher).get(reverse("items-api", args=[project.pk]) + "?status=maybe")
    assert response.status_code == 400 and "status" in response.json()


def test_the_list_carries_each_items_ground_truth_in_the_newest_snapshot(researcher, project):
    build_snapshot(project.pk)
    settle(ordered(project)[0], researcher, 0, "no")
    build_snapshot(project.pk)
    rows = {
        row["document"]: row
        for row in api(researcher).get(reverse("items-api", args=[project.pk])).json()["results"]
    }
    assert rows["d0"]["ground_truth"]["version"] == 2
    assert rows["d0"]["ground_truth"]["label"] == 0
    assert rows["d0"]["ground_truth"]["adjudicated_by"] == "researcher"
    assert rows["d0"]["ground_truth"]["aggregate_label_name"] == "relevant"
    assert rows["d0"]["decided_label"] == 0 and rows["d0"]["disagreement"] is True
    assert rows["d3"]["ground_truth"] is None  # never judged: not in the snapshot


def test_the_item_api_has_every_judgement_with_its_revisions(researcher, project):
    d1 = ordered(project)[1]
    detail = api(researcher).get(reverse("item-api", args=[project.pk, d1.pk])).json()
    assert detail["item"]["document"] == "d1"
    by_annotator = {j["annotator"]: j for j in detail["judgements"]}
    assert [r["label"] for r in by_annotator["assessor1"]["revisions"]] == [0, 1]
    assert by_annotator["assessor1"]["label"] == 1
    assert detail["tally"] == [{"label": "relevant", "count": 3}]
    assert detail["majority_share"] == 1.0 and detail["gold_answer"] is None


def test_a_gold_items_api_shows_its_expected_answer(researcher, project):
    gold = gold_items(project)[0]
    detail = api(researcher).get(reverse("item-api", args=[project.pk, gold.pk])).json()
    assert detail["gold_answer"] == {"label": 1}
    assert detail["gold_explanation"] == "It is about heat."


def test_an_item_is_settled_and_withdrawn_over_the_api(
    researcher, project, django_capture_on_commit_callbacks
):
    d0 = ordered(project)[0]
    url = reverse("item-adjudication-api", args=[project.pk, d0.pk])
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = api(researcher).post(url, {"label": 0, "note": "read it"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["label"] == 0 and response.json()["researcher"] == "owner"
    assert callbacks, "the decision was not announced"
    assert api(researcher).post(url, {"label": None}, format="json").status_code == 201
    assert [d["label"] for d in api(researcher).get(url).json()] == [None, 0]
    refused = api(researcher).post(url, {"label": 3}, format="json")
    assert refused.status_code == 400 and "0 or 1" in refused.json()["label"][0]
    assert api(researcher).post(url, {"label": 1, "lable": 0}, format="json").status_code == 400
    gold = gold_items(project)[0]
    gold_url = reverse("item-adjudication-api", args=[project.pk, gold.pk])
    assert api(researcher).post(gold_url, {"label": 1}, format="json").status_code == 400


def test_the_item_page_shows_judgements_history_disagreement_and_ground_truth(client, researcher, project):
    d0, d1, *_ = ordered(project)
    build_snapshot(project.pk)
    client.force_login(researcher)
    page = client.get(reverse("item-page", args=[project.pk, d0.pk])).content.decode()
    assert "relevant × 2, not relevant × 1" in page
    assert "the annotators <strong>disagree</strong>" in page
    for name in ("assessor1", "assessor2", "assessor3"):
        assert name in page
    assert "In version 1 (the newest): <strong>relevant</strong>" in page
    assert 'name="label" value="0"' in page  # the settle form
    history = client.get(reverse("item-page", args=[project.pk, d1.pk])).content.decode()
    revisions = re.search(r'<ol class="revisions">(.*?)</ol>', history, re.S).group(1)
    assert revisions.count("<li>") == 2 and "“not relevant”" in revisions


def test_the_item_page_escapes_imported_text(client, researcher, project):
    d3 = ordered(project)[3]
    client.force_login(researcher)
    page = client.get(reverse("item-page", args=[project.pk, d3.pk])).content.decode()
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page
    assert "<b>transfer</b>" not in page and "heat &lt;b&gt;transfer&lt;/b&gt;" in page


def test_the_item_page_shows_a_gold_items_expected_answer_and_no_settle_form(client, researcher, project):
    client.force_login(researcher)
    page = client.get(reverse("item-page", args=[project.pk, gold_items(project)[0].pk])).content.decode()
    assert "Expected: <strong>“relevant”</strong> — It is about heat." in page
    assert "Settle this item" not in page


def test_settling_on_the_item_page_records_the_decision(client, researcher, project):
    d0 = ordered(project)[0]
    client.force_login(researcher)
    response = client.post(
        reverse("item-adjudicate", args=[project.pk, d0.pk]),
        {"label": "0", "note": "off topic", "back": "q=gas"},
    )
    assert response.status_code == 302 and response["Location"].endswith("?back=q%3Dgas")
    decision = d0.adjudications.get()
    assert (decision.label, decision.note, decision.researcher) == (0, "off topic", researcher)
    page = client.get(response["Location"]).content.decode()
    assert "Settled as “not relevant”" in page and "Settled as <strong>not relevant</strong> by owner" in page
    client.post(reverse("item-adjudicate", args=[project.pk, d0.pk]), {"withdraw": "1"})
    assert list(d0.adjudications.order_by("created_at").values_list("label", flat=True)) == [0, None]


def test_the_browser_page_lists_filters_and_pages(client, researcher, project):
    client.force_login(researcher)
    page = client.get(reverse("items-page", args=[project.pk]) + "?disagreement=true").content.decode()
    assert "1 item matches, in judging order" in page
    assert re.findall(r"/items/(\d+)/\?back=", page) == [str(ordered(project)[0].pk)]
    everything = client.get(reverse("items-page", args=[project.pk])).content.decode()
    assert "5 items," in everything and "gold</span>" in everything
    bad = client.get(reverse("items-page", args=[project.pk]) + "?gold=perhaps").content.decode()
    assert 'role="alert"' in bad


def test_a_waiting_item_says_when_no_annotator_can_take_it(client, researcher, project, four):
    project.adjudication_rule = Project.AdjudicationRule.NOT_UNANIMOUS
    project.save()
    Membership.objects.filter(project=project, annotator=four[3]).delete()
    d0 = ordered(project)[0]
    Task.objects.filter(pk=d0.pk).update(completed=False, slots_taken=3)
    from annotation.adjudication.rules import close_or_refer

    close_or_refer(project, [d0.pk])
    client.force_login(researcher)
    page = client.get(reverse("item-page", args=[project.pk, d0.pk])).content.decode()
    assert "Waiting for an extra assessor" in page
    assert "No annotator of the project can take it" in page


def test_the_adjudication_rule_is_a_project_setting_over_the_api(researcher, four):
    project = Project.objects.create(name="Rule", owner=researcher)
    url = reverse("project-detail", args=[project.pk])
    response = api(researcher).patch(
        url, {"adjudication_rule": "majority_below", "adjudication_threshold": 0.8}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["adjudication_rule"] == "majority_below"
    assert api(researcher).patch(url, {"adjudication_threshold": 1.5}, format="json").status_code == 400
    assert api(researcher).patch(url, {"adjudicated_by": "oracle"}, format="json").status_code == 400
    ratings = likert_project(researcher, four, items=1)
    refused = api(researcher).patch(
        reverse("project-detail", args=[ratings.pk]), {"adjudication_rule": "not_unanimous"}, format="json"
    )
    assert refused.status_code == 400 and "label projects" in refused.json()["adjudication_rule"][0]


def test_a_rule_set_over_the_api_refers_the_items_already_judged(researcher, project, four):
    response = api(researcher).patch(
        reverse("project-detail", args=[project.pk]), {"adjudication_rule": "not_unanimous"}, format="json"
    )
    assert response.status_code == 200
    d0 = ordered(project)[0]
    d0.refresh_from_db()
    assert d0.referred_to == AdjudicatedBy.EXTRA_ASSESSOR and d0.required_judgements == 4
    assert claim_next_task(project, four[3]).task_id == d0.pk


def test_the_settings_page_sets_the_rule_and_applies_it(client, researcher, project):
    client.force_login(researcher)
    form = client.get(reverse("project-settings", args=[project.pk])).context["form"]
    data = {k: v for k, v in form.initial.items() if v is not None and not isinstance(v, list | dict)}
    data |= {"adjudication_rule": "not_unanimous", "adjudicated_by": "researcher", "annotator_usernames": ""}
    data |= {"adjudication_threshold": "0.75", "active": "on"}
    response = client.post(reverse("project-settings", args=[project.pk]), data, follow=True)
    assert response.status_code == 200
    assert "1 disputed or tied item referred" in response.content.decode()
    assert ordered(project)[0].referred_to == AdjudicatedBy.RESEARCHER


@pytest.mark.parametrize("name", ["items-page", "items-api"])
def test_nobody_but_the_owner_sees_the_items(client, name, project, four, outsider_researcher):
    url = reverse(name, args=[project.pk])
    for user in (four[0], outsider_researcher):
        if name == "items-api":
            assert api(user).get(url).status_code in {403, 404}
        else:
            client.force_login(user)
            assert client.get(url).status_code == 404
    detail = reverse("item-page", args=[project.pk, ordered(project)[0].pk])
    client.force_login(outsider_researcher)
    assert client.get(detail).status_code == 404
    assert (
        client.post(
            reverse("item-adjudicate", args=[project.pk, ordered(project)[0].pk]), {"label": "0"}
        ).status_code
        == 404
    )
    assert not ordered(project)[0].adjudications.exists()


def test_the_extra_assessor_sees_the_item_like_any_other_and_nothing_of_the_others(client, researcher, four):
    project = Project.objects.create(name="Blind", owner=researcher, adjudication_rule="not_unanimous")
    project.annotators.set(four)
    import_collection(
        project,
        topics=[{"id": "1", "title": "gas flow"}],
        documents=[{"id": "d0", "text": "a text"}, {"id": "g0", "text": "gold text"}],
        items=[{"topic": "1", "document": "d0"}],
        gold=[{"topic": "1", "document": "g0", "answer": {"label": 1}}],
    )
    for annotator, label in zip(four[:3], [1, 0, 1], strict=True):
        lease = claim_next_task(project, annotator)
        submit_judgement(lease.pk, annotator, label)
    settle(items(project)[0], researcher, 1, "a note only researchers read")
    Task.objects.filter(project=project, kind=Task.Kind.ITEM).update(
        referred_to=AdjudicatedBy.EXTRA_ASSESSOR, required_judgements=4, completed=False
    )
    lease = claim_next_task(project, four[3])
    assert lease.task.kind == Task.Kind.ITEM
    client.force_login(four[3])
    page = client.get(reverse("judge", args=[project.pk])).content.decode().lower()
    for secret in (
        "assessor1",
        "assessor2",
        "assessor3",
        "adjudicat",
        "extra assessor",
        "disagree",
        "a note only",
    ):
        assert secret not in page
    assert not re.search(r"<input[^>]*checked", page)
    assert client.get(reverse("items-page", args=[project.pk])).status_code == 404
    assert client.get(reverse("item-page", args=[project.pk, lease.task_id])).status_code == 404


def test_a_settings_form_that_omits_the_rule_keeps_the_projects_rule(client, researcher, project):
    Project.objects.filter(pk=project.pk).update(
        adjudication_rule="majority_below", adjudication_threshold=0.6
    )
    client.force_login(researcher)
    response = client.post(
        reverse("project-settings", args=[project.pk]),
        project_form(name="Renamed"),
    )
    assert response.status_code == 302
    project.refresh_from_db()
    assert project.name == "Renamed"
    assert (project.adjudication_rule, project.adjudication_threshold) == ("majority_below", 0.6)


def text_project(owner, annotators, task_type: str, config: dict) -> Project:
    project = Project.objects.create(name=task_type, owner=owner, task_type=task_type, config=config)
    project.annotators.set(annotators)
    import_collection(
        project,
        documents=[{"id": "a", "text": "output <i>A</i>"}, {"id": "b", "text": "output B"}],
        items=[{"document": "a", "document_b": "b" if task_type == "pairwise" else None}],
    )
    return project


def test_a_pairwise_item_is_settled_by_hand_like_a_relevance_item(client, researcher, four):
    project = text_project(researcher, four, "pairwise", {})
    task = items(project)[0]
    for annotator, label in zip(four[:3], [0, 1, 1], strict=True):
        judge(task, annotator, label)
    client.force_login(researcher)
    page = client.get(reverse("item-page", args=[project.pk, task.pk])).content.decode()
    assert "Output A" in page and "Output B" in page and "output &lt;i&gt;A&lt;/i&gt;" in page
    assert "The first output is better" in page  # a choice of the settle form
    client.post(reverse("item-adjudicate", args=[project.pk, task.pk]), {"label": "0"})
    assert build_snapshot(project.pk).labels.get(task=task).label == 0


@pytest.mark.parametrize(
    ("task_type", "config", "answers"),
    [
        (
            "likert",
            {"dimensions": ["fluency"], "scale": [1, 5]},
            [{"scores": {"fluency": 1}}, {"scores": {"fluency": 5}}],
        ),
        ("free_text", {"max_words": 10}, [{"text": "a reference"}, {"text": "another one"}]),
    ],
)
def test_ratings_and_texts_are_browsed_but_not_settled(client, researcher, four, task_type, config, answers):
    project = text_project(researcher, four, task_type, config)
    task = items(project)[0]
    for annotator, answer in zip(four, answers, strict=False):
        judge(task, annotator, answer)
    build_snapshot(project.pk)
    client.force_login(researcher)
    listing = client.get(reverse("items-page", args=[project.pk])).content.decode()
    page = client.get(reverse("item-page", args=[project.pk, task.pk])).content.decode()
    assert "assessor1" in page and "Settle this item" not in page
    if task_type == "likert":
        assert "fluency 4" in listing and "<strong>disagree</strong> by more than one point" in page
        assert "fluency 3 (medians)" in page
    else:
        assert "Texts are kept as written" in page and "“a reference”" in page
    response = api(researcher).post(
        reverse("item-adjudication-api", args=[project.pk, task.pk]), {"label": 1}, format="json"
    )
    assert response.status_code == 400 and "Only label projects" in response.json()["label"][0]


def test_the_search_finds_the_items_whose_topic_or_either_document_holds_the_words(researcher, four):
    """Each searched field (topic id and title, document id, title and text, the second document's id
    and text) against the search written out in Python, on a pairwise project beside a project whose
    documents hold the same words (they must bring nothing)."""
    words = ["gas", "GAS", "t1", "o3", "heat", "Flow", "alpha", "zz", "output 1", "beta", "absent"]
    documents = [
        {"id": "o1", "title": "alpha", "text": "output 1 heat"},
        {"id": "o2", "title": "", "text": "gas flow"},
        {"id": "o3", "title": "zz", "text": "output 3"},
        {"id": "o4", "title": "beta", "text": "nothing here"},
    ]
    topics = [
        {"id": "t1", "title": "gas"},
        {"id": "t2", "title": "heat transfer"},
        {"id": "t3", "title": "x"},
    ]
    pairs = [("t1", "o1", "o4"), ("t2", "o4", "o3"), ("t3", "o4", "o1"), ("t3", "o2", "o4")]
    pairs.append(("t2", "o3", "o1"))
    pairwise = Project.objects.create(name="Pairs", owner=researcher, task_type="pairwise")
    import_collection(
        pairwise,
        topics=topics,
        documents=documents,
        items=[{"topic": t, "document": a, "document_b": b} for t, a, b in pairs],
    )
    other = Project.objects.create(name="Elsewhere", owner=researcher)
    import_collection(
        other,
        topics=[{"id": "t9", "title": "nothing"}],
        documents=[{"id": "p1", "text": " ".join(words)}],
        items=[{"topic": "t9", "document": "p1"}],
    )
    by_id = {document["id"]: document for document in documents}
    titles = {topic["id"]: topic["title"] for topic in topics}

    def expected(word: str) -> list[str]:
        word = word.lower()
        found = []
        for topic, first, second in pairs:
            fields = [topic, titles[topic], first, by_id[first]["title"], by_id[first]["text"], second]
            if any(word in field.lower() for field in [*fields, by_id[second]["text"]]):
                found.append(f"{topic}:{first}:{second}")
        return sorted(found)

    def searched(word: str) -> list[str]:
        response = api(researcher).get(reverse("items-api", args=[pairwise.pk]), {"q": word})
        assert response.status_code == 200, response.content
        rows = [Task.objects.get(pk=row["id"]) for row in response.json()["results"]]
        return sorted(
            f"{task.topic.external_id}:{task.document.external_id}:{task.document_b.external_id}"
            for task in rows
        )

    for word in words:
        assert searched(word) == expected(word), word
    assert any(expected(word) for word in words) and any(not expected(word) for word in words)
