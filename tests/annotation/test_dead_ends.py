"""No silent dead ends: a k the annotators cannot give is refused or warned about with the reason, an
item that can never reach its k is flagged with the way out, pages with nothing to show say what to
do next, and answers, counts and items are shown in words."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.judging.assignment import block_annotator, claim_next_task, skip_task, submit_judgement
from annotation.judging.coverage import apply_k_to_items, project_coverage
from annotation.models import Judgement, Membership, Project, QualificationAttempt, Task
from annotation.permissions import RESEARCHERS_GROUP
from evaluation.ground_truth.build import build_snapshot
from tests.annotation import factories
from tests.annotation.factories import make_project

pytestmark = pytest.mark.django_db

FIRST_ITEM = "heat conduction in composite slabs — Document 1"


def judge_all_left(project, annotator, label: int = 1) -> int:
    """Claim and judge until nothing is left for this annotator; how many were judged."""
    judged = 0
    while (lease := claim_next_task(project, annotator)) is not None:
        submit_judgement(lease.pk, annotator, label)
        judged += 1
    return judged


def text_of(response) -> str:
    """A page's words, without tags, on one line."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


@pytest.fixture
def skipped_once(researcher, annotators):
    """The demo's shape (k = 3, three annotators) after one skip and everyone judging what is left."""
    project = make_project(researcher, annotators, k=3)
    lease = claim_next_task(project, annotators[0])
    skip_task(lease.pk, annotators[0])
    for annotator in annotators:
        judge_all_left(project, annotator)
    return project, Task.objects.get(pk=lease.task_id)


# -- an item no one may take -------------------------------------------------------------------------


def test_a_skip_with_k_equal_to_the_annotators_leaves_an_item_no_one_may_take(skipped_once, annotators):
    project, item = skipped_once
    assert item.judgements.count() == 2 and not item.completed
    # The one who skipped never gets it back; the other two judged it.
    assert all(claim_next_task(project, annotator) is None for annotator in annotators)
    others = Task.objects.filter(project=project, kind=Task.Kind.ITEM).exclude(pk=item.pk)
    assert others.exists() and all(task.completed for task in others)


def test_the_stranded_item_is_named_by_its_titles_with_what_it_can_still_reach(skipped_once):
    project, item = skipped_once
    coverage = project_coverage(project)
    assert coverage.k_problem is None
    assert coverage.eligible == ["annotator1", "annotator2", "annotator3"]
    assert (coverage.stranded_count, coverage.untouchable_count, coverage.lowerable_count) == (1, 1, 1)
    [stranded] = coverage.stranded
    assert (stranded.task_id, stranded.title) == (item.pk, FIRST_ITEM)
    assert (stranded.judged, stranded.required, stranded.reachable) == (2, 3, 2)


def test_an_item_is_stranded_as_soon_as_a_skip_makes_k_unreachable(researcher, annotators):
    project = make_project(researcher, annotators, k=3)
    lease = claim_next_task(project, annotators[0])
    assert project_coverage(project).stranded_count == 0  # a live lease may still be submitted
    skip_task(lease.pk, annotators[0])
    coverage = project_coverage(project)
    # Two annotators may still take it, so it is stranded but not (yet) untouchable.
    assert (coverage.stranded_count, coverage.untouchable_count) == (1, 0)
    assert coverage.stranded[0].reachable == 2


def test_the_project_page_flags_the_stranded_item_with_the_ways_out(client, researcher, skipped_once):
    project, _item = skipped_once
    client.force_login(researcher)
    page = text_of(client.get(reverse("project-page", args=[project.pk])))
    assert "1 item needs more annotators than can take it" in page
    assert FIRST_ITEM in page and "2 of 3" in page
    assert "1 of them no one may take at all now" in page
    assert "Lower k for 1 item to what it can reach" in page
    assert "bring in more annotators" in page
    assert (
        reverse("project-annotators", args=[project.pk])
        in client.get(reverse("project-page", args=[project.pk])).content.decode()
    )


def test_lowering_k_of_stranded_items_completes_them(client, researcher, skipped_once):
    project, item = skipped_once
    client.force_login(researcher)
    response = client.post(reverse("lower-k", args=[project.pk]), follow=True)
    assert "k lowered for 1 item to what each can still reach." in text_of(response)
    item.refresh_from_db()
    assert (item.required_judgements, item.completed) == (2, True)
    assert project_coverage(project).stranded_count == 0
    assert "more annotators than can take" not in text_of(
        client.get(reverse("project-page", args=[project.pk]))
    )


def test_an_item_nobody_judged_nor_may_take_keeps_its_k_and_asks_for_annotators(
    client, researcher, annotators
):
    project = make_project(researcher, annotators, k=3)
    first = claim_next_task(project, annotators[0])
    for annotator in annotators:  # all three skip the same item
        lease = claim_next_task(project, annotator)
        assert lease.task_id == first.task_id
        skip_task(lease.pk, annotator)
    coverage = project_coverage(project)
    assert (coverage.stranded_count, coverage.untouchable_count, coverage.lowerable_count) == (1, 1, 0)
    client.force_login(researcher)
    page = text_of(client.get(reverse("project-page", args=[project.pk])))
    assert "Lower k for" not in page  # k = 0 would mean "never judged": not a way out
    response = client.post(reverse("lower-k", args=[project.pk]), follow=True)
    assert "No item's k could be lowered: bring in more annotators instead." in text_of(response)
    assert Task.objects.get(pk=first.task_id).required_judgements == 3


def test_a_new_annotator_unstrands_the_item(django_user_model, skipped_once):
    project, item = skipped_once
    newcomer = django_user_model.objects.create_user("newcomer", password="newcomer-password")
    Membership.objects.create(project=project, annotator=newcomer)
    assert project_coverage(project).stranded_count == 0
    assert claim_next_task(project, newcomer).task_id == item.pk


# -- k against the eligible annotators ---------------------------------------------------------------


def test_who_is_eligible_leaves_out_the_blocked_the_passwordless_and_those_out_of_attempts(
    django_user_model, researcher, annotators
):
    simulated = django_user_model.objects.create_user("simulated-1")  # no usable password, as the demo's
    project = make_project(researcher, [*annotators, simulated], k=1, qualification_attempts_allowed=1)
    assert project_coverage(project).eligible == ["annotator1", "annotator2", "annotator3"]
    block_annotator(project, annotators[0])
    assert project_coverage(project).eligible == ["annotator2", "annotator3"]
    # With a qualification test, members who used every attempt without passing are out too.
    question = Task.objects.create(
        project=project, kind=Task.Kind.QUALIFICATION, document=project.documents.first(), pool_rank=1,
        required_judgements=0, gold_answer={"label": 1},
    )  # fmt: skip
    cache.clear()  # the cached "has no qualification test" (an import forgets it on commit)
    QualificationAttempt.objects.create(
        project=project, annotator=annotators[1], correct=0, total=1, passed=False
    )
    assert question.pk and project_coverage(project).eligible == ["annotator3"]


def project_form(name: str, k: int, annotators: str) -> dict:
    return factories.project_form(name=name, assignments_per_task=str(k), annotator_usernames=annotators)


def test_the_new_project_form_refuses_k_above_the_named_annotators_with_the_reason(
    client, researcher, annotators
):
    client.force_login(researcher)
    response = client.post(reverse("project-new"), project_form("Two people", 3, "annotator1, annotator2"))
    assert response.status_code == 200 and not Project.objects.filter(name="Two people").exists()
    page = text_of(response)
    assert "k = 3: every item needs 3 different annotators, but only 2 are eligible" in page
    assert "Lower k to 2, or bring in 1 more annotator first" in page
    assert (
        "Annotators come in on the project's Annotators page: create accounts, send invitation links" in page
    )


def test_a_new_project_without_annotators_is_accepted_and_told_what_to_do_next(client, researcher):
    client.force_login(researcher)
    response = client.post(reverse("project-new"), project_form("Nobody yet", 3, ""), follow=True)
    project = Project.objects.get(name="Nobody yet")
    page = text_of(response)
    assert "this project has no eligible annotator yet. Bring in at least 3" in page
    page = text_of(client.get(reverse("project-page", args=[project.pk])))
    assert "Nothing to judge yet." in page and "Import" in page
    assert "No annotators yet: create accounts, send invitation links or share a sign-up code" in page
    assert "no eligible annotator yet" in page


def test_with_too_few_annotators_the_page_says_so_once_not_item_by_item(client, researcher):
    project = make_project(researcher, [], k=2)
    client.force_login(researcher)
    page = text_of(client.get(reverse("project-page", args=[project.pk])))
    assert (
        "k = 2: every item needs 2 different annotators, and this project has no eligible annotator yet"
        in page
    )
    assert "more annotators than can take" not in page
    assert (
        project_coverage(project).stranded_count == Task.objects.filter(project=project, kind="item").count()
    )


def test_the_settings_form_refuses_a_k_the_annotators_cannot_give(client, researcher, annotators):
    project = make_project(researcher, annotators, k=2)
    client.force_login(researcher)
    url = reverse("project-settings", args=[project.pk])
    names = "annotator1, annotator2, annotator3"
    response = client.post(url, project_form("Test project", 4, names))
    assert "but only 3 are eligible" in text_of(response)
    project.refresh_from_db()
    assert project.assignments_per_task == 2
    # Removing annotators below k is refused the same way.
    assert "but only 1 is eligible" in text_of(
        client.post(url, project_form("Test project", 2, "annotator1"))
    )
    assert client.post(url, project_form("Test project", 3, names)).status_code == 302


def test_a_save_that_changes_neither_k_nor_annotators_goes_through_with_a_warning(
    client, researcher, annotators
):
    project = make_project(researcher, annotators, k=3)
    block_annotator(project, annotators[2])
    client.force_login(researcher)
    form = project_form("Renamed", 3, "annotator1, annotator2, annotator3")
    response = client.post(reverse("project-settings", args=[project.pk]), form, follow=True)
    page = text_of(response)
    assert "Settings saved." in page and "but only 2 are eligible" in page
    assert Project.objects.get(pk=project.pk).name == "Renamed"
    assert "but only 2 are eligible" in text_of(client.get(reverse("project-annotators", args=[project.pk])))


def api_client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_api_refuses_a_k_the_annotators_cannot_give_naming_the_field(researcher, annotators):
    project = make_project(researcher, annotators[:2], k=2)
    client = api_client(researcher)
    url = f"/api/projects/{project.pk}/"
    response = client.patch(url, {"assignments_per_task": 3}, format="json")
    assert response.status_code == 400
    assert "but only 2 are eligible" in response.json()["assignments_per_task"][0]
    response = client.patch(url, {"annotators": ["annotator1"]}, format="json")
    assert response.status_code == 400 and "assignments_per_task" in response.json()
    assert client.patch(url, {"name": "Renamed"}, format="json").status_code == 200
    both = {"assignments_per_task": 3, "annotators": ["annotator1", "annotator2", "annotator3"]}
    assert client.patch(url, both, format="json").status_code == 200
    create = {"name": "New", "assignments_per_task": 3, "annotators": ["annotator1"]}
    assert client.post("/api/projects/", create, format="json").status_code == 400
    assert (
        client.post("/api/projects/", {"name": "Empty", "assignments_per_task": 3}, format="json").status_code
        == 201
    )


def test_blocking_below_k_is_warned_about(client, researcher, annotators):
    project = make_project(researcher, annotators, k=3)
    client.force_login(researcher)
    url = reverse("member-block", args=[project.pk, annotators[0].pk])
    page = text_of(client.post(url, follow=True))
    assert "annotator1 is blocked (no lease held)." in page
    assert "but only 2 are eligible, so no item could ever be complete" in page


# -- changing k reaches the items ----------------------------------------------------------------------


def test_lowering_k_in_the_settings_completes_the_items_that_have_enough_judgements(
    client, researcher, annotators
):
    project = make_project(researcher, annotators, k=3)
    for annotator in annotators[:2]:
        judge_all_left(project, annotator)
    client.force_login(researcher)
    form = project_form("Test project", 2, "annotator1, annotator2, annotator3")
    page = text_of(client.post(reverse("project-settings", args=[project.pk]), form, follow=True))
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM)
    assert f"k is now 2 for {items.count()} items that had k = 3" in page
    assert all(item.required_judgements == 2 and item.completed for item in items)


def test_raising_k_reopens_items_and_leaves_an_item_with_its_own_k_alone(researcher, annotators):
    project = make_project(researcher, annotators, k=1)
    judge_all_left(project, annotators[0])
    own = Task.objects.filter(project=project, kind=Task.Kind.ITEM).first()
    Task.objects.filter(pk=own.pk).update(required_judgements=2, completed=False)
    project.assignments_per_task = 3
    project.save()
    assert (
        apply_k_to_items(project, old_k=1)
        == Task.objects.filter(project=project, kind=Task.Kind.ITEM).count() - 1
    )
    items = {task.pk: task for task in Task.objects.filter(project=project, kind=Task.Kind.ITEM)}
    assert items.pop(own.pk).required_judgements == 2
    assert all(task.required_judgements == 3 and not task.completed for task in items.values())
    assert claim_next_task(project, annotators[1]) is not None


# -- the judging page with nothing to get --------------------------------------------------------------


def test_nothing_left_shows_no_get_the_next_task_button(client, researcher, annotators):
    project = make_project(researcher, annotators[:1], k=1)
    judge_all_left(project, annotators[0])
    client.force_login(annotators[0])
    html = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert "There is nothing left for you to judge in this project. Thank you!" in html
    assert "Get the next task" not in html and "autofocus" not in html
    assert reverse("history", args=[project.pk]) in html


def test_items_held_by_others_offer_to_check_again_without_autofocus(client, researcher, annotators):
    project = make_project(researcher, annotators[:2], k=1)
    held = claim_next_task(project, annotators[0])
    judge_all_left(project, annotators[1])
    assert not Task.objects.get(pk=held.task_id).completed
    client.force_login(annotators[1])
    html = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert "Every item left for you is being judged by someone else right now." in html
    assert "Check again" in html and "Get the next task" not in html and "autofocus" not in html


def test_a_project_without_items_says_so_on_the_judging_page(client, researcher, annotators):
    project = Project.objects.create(name="Empty", owner=researcher, assignments_per_task=1)
    project.annotators.set(annotators[:1])
    client.force_login(annotators[0])
    html = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert "This project has nothing to judge yet" in html and "Get the next task" not in html


def test_an_annotator_with_work_still_gets_the_focused_button(client, researcher, annotators):
    project = make_project(researcher, annotators[:1], k=1)
    client.force_login(annotators[0])
    html = client.get(reverse("judge", args=[project.pk])).content.decode()
    assert '<button type="submit" autofocus>Get the next task</button>' in html


# -- words, not codes ----------------------------------------------------------------------------------


def test_the_annotators_answers_are_shown_by_their_labels_names(client, researcher, annotators):
    project = make_project(researcher, annotators[:1], k=1)
    first = claim_next_task(project, annotators[0])
    judgement = submit_judgement(first.pk, annotators[0], 1).judgement
    second = claim_next_task(project, annotators[0])
    submit_judgement(second.pk, annotators[0], 0)
    client.force_login(annotators[0])
    history = client.get(reverse("history", args=[project.pk])).content.decode()
    assert "<td>Relevant</td>" in history and "<td>Not relevant</td>" in history
    assert "<td>1</td>" not in re.sub(r"<td>\d+</td>\s*<td><a", "", history)  # the versions column aside
    from annotation.judging.assignment import correct_judgement

    correct_judgement(judgement.pk, annotators[0], 0)
    page = client.get(reverse("edit-judgement", args=[project.pk, judgement.pk])).content.decode()
    versions = re.search(r'<ol class="revisions">(.*?)</ol>', page, re.S).group(1)
    assert ": relevant</li>" in versions and ": not relevant</li>" in versions and "label" not in versions


def test_graded_answers_are_shown_by_the_levels_names(client, researcher, annotators):
    project = Project.objects.create(
        name="Graded", owner=researcher, assignments_per_task=1, task_type="graded_relevance",
        config={"levels": [{"value": 0, "label": "Off topic"}, {"value": 2, "label": "Spot on"}]},
    )  # fmt: skip
    project.annotators.set(annotators[:1])
    from evaluation.collection.flow import import_collection

    import_collection(
        project,
        topics=[{"id": "1", "title": "wings"}],
        documents=[{"id": "d1", "text": "about wings"}],
        items=[{"topic": "1", "document": "d1"}],
    )
    lease = claim_next_task(project, annotators[0])
    submit_judgement(lease.pk, annotators[0], 2)
    client.force_login(annotators[0])
    assert "<td>Spot on</td>" in client.get(reverse("history", args=[project.pk])).content.decode()


def test_the_agreement_report_on_one_judgement_speaks_plainly(client, researcher, annotators):
    project = make_project(researcher, annotators, k=3)
    lease = claim_next_task(project, annotators[0])
    submit_judgement(lease.pk, annotators[0], 1)
    build_snapshot(project.pk)
    client.force_login(researcher)
    page = text_of(client.get(reverse("agreement-report", args=[project.pk])))
    assert "(None)" not in page and "1 judgements" not in page and "1 labels" not in page
    assert "from 1 judgement (" in page
    assert "No agreement to measure yet: it needs items judged by at least two annotators." in page
    assert "needs items rated at least twice; none is yet (1 item rated once)" in page
    assert "no two annotators share 10 items yet" in page
    project_page = text_of(client.get(reverse("project-page", args=[project.pk])))
    assert "majority, 1 judgement," in project_page


def test_a_project_with_judgements_but_no_snapshot_says_one_is_coming(client, researcher, annotators):
    project = make_project(researcher, annotators, k=3)
    lease = claim_next_task(project, annotators[0])
    submit_judgement(lease.pk, annotators[0], 1)
    assert Judgement.objects.filter(project=project).count() == 1
    client.force_login(researcher)
    page = text_of(client.get(reverse("project-page", args=[project.pk])))
    assert "No ground truth yet: it is computed shortly after judgements arrive (1 so far)." in page


def test_a_researcher_without_projects_is_told_how_to_start(client, django_user_model):
    user = django_user_model.objects.create_user("newcomer", password="newcomer-password")
    user.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    client.force_login(user)
    page = text_of(client.get(reverse("home")))
    assert "No projects yet: make one, import what is to be judged, then bring annotators in" in page
    assert "Got a project code from a researcher? Join with it" in page
