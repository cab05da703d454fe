"""Issue 21's newcomer campaign, replayed in real Chromium through the pages alone: a researcher makes a
project (3 topics, 20 documents, 2 runs, k = 2) for three annotators, one perfect and two careless, who
judge by keyboard. Asserted: the form warns about an even k under majority vote; every 1–1 split goes
to the third annotator and is listed as waiting, then as settled; on 3 topics the leaderboard shows no
interval and no significance verdict, only the reasons (and the demo's 25 topics get intervals inside
[0, 1]); the agreement page explains its kappa; a run withdrawn from its page leaves the leaderboard
once the runs are scored again. Screenshots at 1280×800 and 390×844 of the leaderboard, the agreement
page, the metrics-vs-humans heat map and the rating page are kept in test-artifacts/newcomer-*.png."""

from __future__ import annotations

import json
import random
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from annotation.models import Project, Task
from annotation.permissions import RESEARCHERS_GROUP
from evaluation.jobs import embedded
from tests.browser.conftest import keyboard_ready, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "heron-quartz-4417"
WIDTHS = {"wide": (1280, 800), "phone": (390, 844)}
TOPICS = [{"id": str(t), "title": f"wing flutter case {t}"} for t in (1, 2, 3)]
DOCUMENTS = [
    {"id": f"d{i:02d}", "title": f"Report {i:02d}", "text": f"An abstract, number {i}."} for i in range(20)
]
# The truth the perfect annotator answers: a third of the documents are relevant to each topic.
RELEVANT = {(str(i % 3 + 1), f"d{i:02d}") for i in range(20) if i % 2 == 0}


def run_file(tag: str, seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for topic in ("1", "2", "3"):
        ranked = rng.sample([d["id"] for d in DOCUMENTS], 8)
        lines += [f"{topic} Q0 {doc} {rank} {10 - rank} {tag}" for rank, doc in enumerate(ranked, 1)]
    return "\n".join(lines) + "\n"


def shoot(page, artifacts, name: str) -> None:
    """Screenshots of the page now open at both widths, the page as a phone shows it included."""
    for width_name, (width, height) in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), (name, width)
        page.screenshot(path=str(artifacts / f"newcomer-{name}-{width_name}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


def judge_everything(page, base: str, project: Project, username: str, answer) -> int:
    """Log in as ``username`` and judge by keyboard until nothing is left; returns how many."""
    log_in(page, base, username, PASSWORD)
    page.goto(f"{base}/projects/{project.pk}/judge/")
    page.get_by_role("button", name="Get the next task").click()
    judged = 0
    while True:
        page.locator("#judgement-form, p.notice").first.wait_for()
        if not page.locator("#judgement-form").count():
            break
        keyboard_ready(page)
        title = page.locator("article.document h3").inner_text().strip()
        document = f"d{title.removeprefix('Report ')}"
        topic = next(t["id"] for t in TOPICS if t["title"] in page.locator("main").inner_text())
        page.keyboard.press("r" if answer(topic, document) else "n")
        page.keyboard.press("Enter")
        judged += 1
        page.get_by_text(f"You have judged {judged} item").wait_for()
    page.get_by_role("button", name="Log out").click()
    return judged


def newest_board_runs(page) -> list[str]:
    return [name.strip() for name in page.locator("#leaderboard tbody th a").all_inner_texts()]


def test_the_newcomers_first_campaign(live_server, page, artifacts):
    base = live_server.url
    users = get_user_model().objects
    researcher = users.create_user("newcomer", password=PASSWORD)
    researcher.groups.add(Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0])
    for name in ("perfect", "careless1", "careless2"):
        users.create_user(name, password=PASSWORD)

    # The project, as a newcomer makes it: k = 2 under majority vote, which the form warns about.
    log_in(page, base, "newcomer", PASSWORD)
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Name").fill("Flutter reports")
    page.get_by_label("Assignments per task").fill("2")
    page.get_by_label("Annotators").fill("perfect, careless1, careless2")
    page.get_by_role("button", name="Create project").click()
    page.get_by_text("k = 2 is even: under majority vote a 1–1 split is a tie").wait_for()
    project = Project.objects.get(name="Flutter reports")
    assert project.tie_rule == "extra_annotator"
    page.goto(f"{base}/projects/{project.pk}/import/")
    body = {"topics": TOPICS, "documents": DOCUMENTS, "runs": [run_file("good", 1), run_file("weak", 2)]}
    page.get_by_label("…or paste the JSON").fill(json.dumps({**body, "pool_depth": 4}))
    page.get_by_role("button", name="Import").click()
    page.get_by_role("status").wait_for()
    items = Task.objects.filter(project=project, kind=Task.Kind.ITEM).count()
    assert items >= 15
    page.get_by_role("button", name="Log out").click()

    # Two annotators judge every item, the careless one at random: their 1–1 splits are ties.
    rng = random.Random(21)
    assert judge_everything(page, base, project, "perfect", lambda t, d: (t, d) in RELEVANT) == items
    assert judge_everything(page, base, project, "careless1", lambda t, d: rng.random() < 0.5) == items
    ties = list(Task.objects.filter(project=project, referral_reason="tie"))
    assert ties and all(task.required_judgements == 3 and not task.completed for task in ties)
    embedded.run_queued()  # the debounced ground-truth job (and the evaluation it asks for)

    log_in(page, base, "newcomer", PASSWORD)
    page.goto(f"{base}/projects/{project.pk}/agreement/")
    listed = page.locator("#ties")
    assert f"{len(ties)} waiting for one more annotator" in listed.inner_text()
    for task in ties:
        assert listed.locator(f'a[href="/projects/{project.pk}/items/{task.pk}/"]').count() == 1
    page.get_by_role("button", name="Log out").click()

    # The third annotator is sent exactly the ties, and settles each.
    assert judge_everything(page, base, project, "careless2", lambda t, d: rng.random() < 0.5) == len(ties)
    embedded.run_queued()
    log_in(page, base, "newcomer", PASSWORD)
    page.goto(f"{base}/projects/{project.pk}/agreement/")
    text = page.locator("main").inner_text()
    assert f"{len(ties)} settled by one more annotator" in text and "waiting for one more" not in text
    assert page.locator("#kappa-explanation").inner_text().strip()  # a low kappa, explained
    shoot(page, artifacts, "agreement")

    # Three topics: no interval and no verdict, only why.
    page.goto(f"{base}/projects/{project.pk}/leaderboard/")
    assert set(newest_board_runs(page)) == {"good", "weak"}
    assert (
        "too few topics for an interval (3; needs at least 10)"
        in page.locator("#interval-reason").inner_text()
    )
    assert "too few topics" in page.locator("#significance-reason").inner_text()
    assert page.locator(".interval").count() == 0
    pairs = page.locator("#pairs")
    assert pairs.locator("thead th").all_inner_texts() == [
        "Better",
        "Worse",
        "Difference",
    ]  # no p, no verdict
    for value in page.locator("#leaderboard tbody td").all_inner_texts():
        number = re.match(r"\s*(\d+\.\d+)", value)
        assert number is None or 0.0 <= float(number[1]) <= 1.0
    shoot(page, artifacts, "leaderboard")

    # The weak run withdrawn from its page; the runs scored again without it.
    page.goto(f"{base}/projects/{project.pk}/runs/")
    page.get_by_role("link", name="weak").click()
    page.get_by_role("link", name="Withdraw it").click()
    page.get_by_role("button", name="Withdraw it").click()
    embedded.run_queued()
    page.goto(f"{base}/projects/{project.pk}/leaderboard/")
    assert newest_board_runs(page) == ["good"]
    page.goto(f"{base}/projects/{project.pk}/events/")
    assert "Run withdrawn" in page.locator("main").inner_text()
    page.get_by_role("button", name="Log out").click()


def test_the_demo_shows_bounded_intervals_the_heat_map_and_the_rating_page(live_server, page, artifacts):
    """With the demo's 25 topics the leaderboard has intervals, each inside [0, 1]; the text demo's
    heat map and its rating page, at both widths."""
    from django.core.management import call_command

    from evaluation.demo import DEMO_ANNOTATORS, DEMO_PASSWORD, DEMO_PROJECT_NAME, DEMO_RESEARCHER
    from evaluation.demo.pyramid_campaign import DEMO_PYRAMID_PROJECT_NAME
    from evaluation.demo.text_campaign import DEMO_TEXT_PROJECT_NAME

    call_command("load_demo", verbosity=0)
    base = live_server.url
    relevance = Project.objects.get(name=DEMO_PROJECT_NAME)
    text = Project.objects.get(name=DEMO_TEXT_PROJECT_NAME)

    log_in(page, base, DEMO_RESEARCHER, DEMO_PASSWORD)
    page.goto(f"{base}/projects/{relevance.pk}/leaderboard/")
    intervals = page.locator("#leaderboard .interval").all_inner_texts()
    assert intervals
    for shown in intervals:
        low, high = (float(x) for x in re.findall(r"\d+\.\d+", shown)[:2])
        assert 0.0 <= low <= high <= 1.0, shown
    shoot(page, artifacts, "demo-leaderboard")

    page.goto(f"{base}/projects/{text.pk}/meta-evaluation/?level=summary&method=kendall")
    assert "(negated)" in page.locator("#correlations").inner_text()
    shoot(page, artifacts, "heat-map")
    pyramid = Project.objects.get(name=DEMO_PYRAMID_PROJECT_NAME)
    page.goto(f"{base}/projects/{pyramid.pk}/pyramid/")
    assert page.locator("#pyramid-systems tbody tr").count() == 4
    shoot(page, artifacts, "demo-pyramid")
    page.get_by_role("button", name="Log out").click()

    log_in(page, base, DEMO_ANNOTATORS[0], DEMO_PASSWORD)
    page.goto(f"{base}/projects/{text.pk}/judge/")
    page.get_by_role("button", name="Get the next task").click()
    page.locator("#judgement-form").wait_for()
    output = page.get_by_text("The output to rate")
    source = page.get_by_text("Source", exact=False).first
    assert output.bounding_box()["y"] < source.bounding_box()["y"]  # the output first
    shoot(page, artifacts, "rating-page")
