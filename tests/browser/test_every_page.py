"""Every page of the site in real Chromium, at 1280×800 and at 390×844 (a phone).

The pages are found from the URLconf (as ``tests/foundation/test_access_matrix.py`` finds its URLs),
each opened by the role it is for with real ids: the demo's two campaigns, and a small project of
each other task type with a task in hand. Then the pages a form answers with (errors beside their
fields, a failed import with the pasted JSON kept, accounts created, an invitation link) and the
error pages (403, 404, 500, 503, 429). API, JSON and download addresses are not pages, and are
left out by what they answer (a non-HTML type, or 405 to a GET).

On every page, at both sizes: nothing scrolls sideways (``scrollWidth`` of the document within its
``clientWidth``); axe-core finds no serious or critical violation (the axe.min.js inside the
axe-playwright-python package, run through the debugging protocol: nothing is fetched from anywhere,
and the site's Content-Security-Policy stays as strict as ever); every text meets AA contrast as the
browser paints it and every focusable element shows a focus ring (the checks of
``test_accessibility_in_browser.py``, applied to every page). A screenshot of each page at each size
goes to ``test-artifacts/pages/``, and axe's findings of every impact to ``axe-report.json`` there.

One walk serves all the checks (a module fixture): one browser, one logged-in page per role, the
demo loaded once.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.test.utils import override_settings
from django.utils import timezone

from annotation.accounts.joining import create_invitation
from annotation.judging.assignment import claim_next_task, submit_judgement
from annotation.judging.platforms import MTURK_PREVIEW, Arrival, arrive, create_link
from annotation.models import Membership, PaymentExport, Project, Task
from evaluation.collection.flow import import_collection
from evaluation.demo import DEMO_ANNOTATORS, DEMO_PASSWORD, DEMO_PROJECT_NAME, DEMO_RESEARCHER
from evaluation.demo.pyramid_campaign import DEMO_PYRAMID_PROJECT_NAME
from evaluation.demo.text_campaign import DEMO_TEXT_PROJECT_NAME
from evaluation.jobs import embedded
from evaluation.models import Evaluation, GroundTruthJob, GroundTruthSnapshot
from tests.browser.conftest import log_in
from tests.browser.test_accessibility_in_browser import CONTRAST_FAILURES
from tests.foundation.test_access_matrix import ACCOUNT_PAGES, ANNOTATOR_PAGES, PUBLIC, routes, url_for

pytestmark = [pytest.mark.browser]

SIZES = {"1280": {"width": 1280, "height": 800}, "390": {"width": 390, "height": 844}}
# axe-core's impacts that fail the walk; the others are reported in axe-report.json.
FAILING_IMPACTS = {"serious", "critical"}
ANNOTATOR = DEMO_ANNOTATORS[0]
# A Prolific participant of the walk: their session (one judgement) is over, so their page is its end.
WORKER_PID, STUDY_ID = "5f1a2b3c4d5e6f7a8b9c0d1e", "6123456789abcdef01234567"


def prolific_query(session: str) -> str:
    return f"?PROLIFIC_PID={WORKER_PID}&STUDY_ID={STUDY_ID}&SESSION_ID={session}"


# Text as old collections store it: wrapped at 64 columns, paragraphs between blank lines.
WRAPPED = """Experiments on the noise of cold subsonic jets show that the sound
power rises with the eighth power of the jet velocity, as Lighthill
predicted, over the whole range of speeds measured.

Mixing nozzles with several lobes lower the noise by up to 10 dB at
the cost of a small loss of thrust."""

# Every focusable element, focused in turn by script after one real Tab (so that Chromium shows
# focus as it does to keyboard users): does it show a ring of at least 2 px?
MISSING_RINGS = """() => {
  const failures = [];
  const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]';
  for (const el of document.querySelectorAll(selector)) {
    if (el.disabled || el.tabIndex < 0 || !el.getClientRects().length) continue;
    if (getComputedStyle(el).visibility === 'hidden') continue;
    el.focus({preventScroll: true});
    if (document.activeElement !== el) continue;
    const style = getComputedStyle(el);
    const ring = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    if (!el.matches(':focus-visible') || !ring) {
      failures.push(el.tagName + ' ' + (el.textContent || el.name || '').trim().slice(0, 30));
    }
  }
  if (document.activeElement) document.activeElement.blur();
  window.scrollTo(0, 0);
  return failures;
}"""
WIDTHS = "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
# What is wider than the screen, to say which element a failure comes from.
# What sticks out past the screen's right edge (not counting what a scrolling box clips), to say
# where a failure comes from.
WIDEST = """() => [...document.querySelectorAll('body *')]
  .filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .filter((el) => !(el.parentElement && el.parentElement.closest('.scroll')))
  .slice(-3).map((el) => el.tagName + (el.id ? '#' + el.id : '') + (el.className ? '.' + el.className : ''))
"""


@dataclass
class Seen:
    """What the walk found on one page."""

    name: str
    url: str
    role: str
    status: int
    landed: str  # the path the browser ended on (a redirect would show here)
    sideways: dict[str, str] = field(default_factory=dict)  # size → what is too wide
    axe: dict[str, list[dict]] = field(default_factory=dict)  # size → axe's violations
    contrast: list[str] = field(default_factory=list)
    rings: list[str] = field(default_factory=list)
    # Requests to anywhere but this server, and what the Content-Security-Policy blocked.
    elsewhere: list[str] = field(default_factory=list)


@dataclass
class World:
    projects: dict[str, Project]
    values: dict[str, object]
    invitation_token: str
    study_url: str  # the walk's worker's own link, by which their browser logs in


def build_world() -> World:
    """The demo, plus a small project of each other task type (owned by the demo researcher, judged
    by the first demo annotator), and a task in hand in every project."""
    call_command("load_demo", verbosity=0)
    users = get_user_model().objects
    researcher, annotator = users.get(username=DEMO_RESEARCHER), users.get(username=ANNOTATOR)
    relevance = Project.objects.get(name=DEMO_PROJECT_NAME)
    text = Project.objects.get(name=DEMO_TEXT_PROJECT_NAME)
    graded = small_project(
        researcher,
        annotator,
        "graded_relevance",
        {
            "levels": [
                {"value": 0, "label": "Not relevant"},
                {"value": 1, "label": "Partly"},
                {"value": 2, "label": "Relevant"},
            ]
        },
    )
    free_text = small_project(researcher, annotator, "free_text", {"max_words": 60})
    pairwise = small_project(researcher, annotator, "pairwise", {})
    pyramid = Project.objects.get(name=DEMO_PYRAMID_PROJECT_NAME)
    writing = small_project(researcher, annotator, "scu_writing", {"references": ["A", "B"]})
    # A project that asks for consent and questions first (the annotator has consented already).
    consenting = small_project(researcher, annotator, "binary_relevance", {})
    Project.objects.filter(pk=consenting.pk).update(
        consent_text="You will judge texts. **You may stop at any time.**",
        demographics=[
            {"name": "age", "question": "How old are you?", "kind": "number", "min": 18},
            {
                "name": "english",
                "question": "Is English your first language?",
                "kind": "choice",
                "choices": ["yes", "no"],
            },
        ],
    )
    Membership.objects.filter(project=consenting, annotator=annotator).update(consented_at=timezone.now())
    # A judgement to correct and a history to read, then a task in hand everywhere.
    first = claim_next_task(relevance, annotator)
    submit_judgement(first.pk, annotator, {"label": 1})
    judgement = annotator.judgements.get(project=relevance)
    leases = [
        claim_next_task(project, annotator)
        for project in (relevance, text, graded, free_text, pairwise, pyramid, writing)
    ]
    invitation, token = create_invitation(relevance, researcher, max_uses=None, days=7, note="walk")
    link = create_link(
        relevance, researcher, platform="prolific", tasks_per_session=1, completion_code="WALKED"
    )
    mturk = create_link(relevance, researcher, platform="mturk", tasks_per_session=1)
    worker = arrive(link, Arrival(WORKER_PID, "walk", STUDY_ID)).worker.annotator
    submit_judgement(claim_next_task(relevance, worker).pk, worker, {"label": 0})
    snapshot = GroundTruthSnapshot.objects.filter(project=relevance).order_by("-version").first()
    evaluation = Evaluation.objects.filter(project=relevance, status="done").order_by("-id").first()
    run = relevance.runs.order_by("id").first()
    job = GroundTruthJob.objects.create(project=relevance, status="done", snapshot=snapshot)
    item = relevance.tasks.filter(kind=Task.Kind.ITEM, judgements__isnull=False).order_by("pool_rank").first()
    values = {
        "project_id": relevance.pk,
        "run_id": run.pk,
        "evaluation_id": evaluation.pk,
        "job_id": job.pk,
        "version": snapshot.version,
        "judgement_id": judgement.pk,
        "task_id": item.pk,
        "user_id": annotator.pk,
        "assignment_id": leases[0].pk,
        "invitation_id": invitation.pk,
        "token": token,
        "uidb64": "MQ",
        "kind": "pr",
        "slug": link.slug,
        "link_id": mturk.pk,
        "mturk_slug": mturk.slug,
        "platform": "prolific",
        "consent_project_id": consenting.pk,
        "export_id": PaymentExport.objects.create(
            project=relevance, kind="prolific", currency="GBP", total=0, text=""
        ).pk,
    }
    projects = {
        "relevance": relevance,
        "text": text,
        "graded": graded,
        "free-text": free_text,
        "pairwise": pairwise,
        "pyramid": pyramid,
        "scu-writing": writing,
    }
    return World(projects, values, token, f"/study/{link.slug}/" + prolific_query("walk"))


def small_project(owner, annotator, task_type: str, config: dict) -> Project:
    project = Project.objects.create(
        name=f"Walk: {task_type.replace('_', ' ')}",
        owner=owner,
        task_type=task_type,
        config=config,
        assignments_per_task=1,
        instructions="Read the text, then answer. **Take your time.**",
    )
    project.annotators.set([annotator])
    documents = [
        {
            "id": f"t{i}",
            "title": f"Text {i}",
            "text": f"Output {i} of a summariser. {WRAPPED}",
        }
        for i in range(4)
    ]
    items = [{"topic": "s", "document": "t0", "system": "a", "input": "s"}]
    if task_type == "pairwise":
        items = [{"topic": "s", "document": "t0", "document_b": "t1", "system": "a", "system_b": "b"}]
    qualification = []
    if task_type == "graded_relevance":  # a qualification test to see, already passed
        qualification = [{"topic": "s", "document": "t3", "answer": {"label": 2}}]
    import_collection(
        project,
        topics=[
            {"id": "s", "title": "jet noise reduction", "description": "What reduces the noise of jets?"}
        ],
        documents=documents,
        items=items,
        qualification=qualification,
    )
    if qualification:
        Membership.objects.filter(project=project, annotator=annotator).update(qualified_at=timezone.now())
    return project


def role_of(route: str) -> str | None:
    """Who a page is for; None for what is not a page of the site (the API, Django's admin)."""
    if route.startswith(("api/", "admin/", "static/", "test-errors/")) or (route and not route.endswith("/")):
        return None  # the API, Django's admin, the walk's own error addresses, files (a.csv, …/run)
    if route in {"", "projects/new/", "accounts/token/"}:
        return "researcher"
    if route == "study/<slug>/done/":
        return "worker"
    if route in PUBLIC:
        return "anonymous"
    if route in ACCOUNT_PAGES or ANNOTATOR_PAGES.match(route):
        return "annotator"
    return "researcher"


def url_of(route: str, values: dict) -> str:
    """The access matrix's address for ``route`` (formats and query strings included)."""
    url = url_for(route, values, {})
    if route.endswith("ground-truth/diff/"):
        url = url.split("?")[0] + "?from=1&to=1"
    if route.endswith(("/consent/", "/about-you/")):  # a project that asks for them
        url = url.replace(f"/projects/{values['project_id']}/", f"/projects/{values['consent_project_id']}/")
    if route == "study/<slug>/":  # a new participant's welcome page
        url += prolific_query("another")
    return url


def visits(world: World) -> list[tuple[str, str, str]]:
    """(name, role, url) of every page: each route of the URLconf once, then what only other
    projects show (their judging pages, a rating project's own pages) and the error pages."""
    found = []
    for route, name in routes():
        role = role_of(route)
        if role is not None:
            found.append((name or route, role, url_of(route, world.values)))
    found.append(("home (annotator)", "annotator", "/"))
    found.append(
        (
            "study preview (mturk)",
            "anonymous",
            f"/study/{world.values['mturk_slug']}/?assignmentId={MTURK_PREVIEW}&hitId=HIT1",
        )
    )
    text = world.projects["text"].pk
    for label, project in world.projects.items():
        if label != "relevance":
            found.append((f"judge ({label})", "annotator", f"/projects/{project.pk}/judge/"))
    found.append(
        ("qualification (graded)", "annotator", f"/projects/{world.projects['graded'].pk}/qualification/")
    )
    rating_item = world.projects["text"].tasks.filter(judgements__isnull=False).order_by("id").first()
    pair_item = world.projects["pairwise"].tasks.order_by("id").first()
    found += [
        ("project page (ratings)", "researcher", f"/projects/{text}/"),
        ("systems (ratings)", "researcher", f"/projects/{text}/systems/"),
        ("meta-evaluation (ratings)", "researcher", f"/projects/{text}/meta-evaluation/"),
        ("agreement (ratings)", "researcher", f"/projects/{text}/agreement/"),
        ("ground truth (ratings)", "researcher", f"/projects/{text}/ground-truth/"),
        ("items (ratings)", "researcher", f"/projects/{text}/items/"),
        ("item (ratings)", "researcher", f"/projects/{text}/items/{rating_item.pk}/"),
        ("item (pairwise)", "researcher", f"/projects/{world.projects['pairwise'].pk}/items/{pair_item.pk}/"),
        ("settings (ratings)", "researcher", f"/projects/{text}/settings/"),
        ("pyramid (LitePyramid)", "researcher", f"/projects/{world.projects['pyramid'].pk}/pyramid/"),
        (
            "written units (scu writing)",
            "researcher",
            f"/projects/{world.projects['scu-writing'].pk}/pyramid/written/",
        ),
        ("import (ratings)", "researcher", f"/projects/{text}/import/"),
        ("403", "annotator", "/projects/new/"),
        (
            "404 (under a project of yours)",
            "researcher",
            f"/projects/{world.values['project_id']}/runs/999999/",
        ),
        ("404 (anonymous)", "anonymous", "/no-such-page/"),
        ("500", "anonymous", "/test-errors/500/"),
        ("503", "anonymous", "/test-errors/503/"),
        ("429 (sign-up)", "anonymous", "/test-errors/429/"),
        ("429 (locked out)", "anonymous", "/test-errors/locked-out/"),
    ]
    return found


def forms_answered(pages: dict, world: World):
    """The pages a form answers with: (name, role, how to get there) for the walk to check."""
    project = world.values["project_id"]

    def settings_with_errors(page):
        page.goto(f"/projects/{project}/settings/")
        page.get_by_label("Name", exact=True).fill("")
        page.get_by_label("Assignments per task", exact=True).fill("0")
        page.get_by_role("button", name="Save settings").click()

    def new_project_with_errors(page):
        page.goto("/projects/new/")
        page.get_by_role("button", name="Create project").click()

    def failed_import(page):
        page.goto(f"/projects/{project}/import/")
        page.get_by_label("…or paste the JSON").fill('{"documents": [\n{"id": "a", "text": "x"},\n]}')
        page.get_by_role("button", name="Import").click()
        assert "line 3" in page.locator("#import-errors").inner_text()
        assert page.get_by_label("…or paste the JSON").input_value().startswith('{"documents"')

    def accounts_created(page):
        page.goto(f"/projects/{project}/annotators/accounts/")
        page.get_by_label("Accounts").fill("walker-one walker@example.org\nwalker-two")
        page.get_by_role("button", name="Create accounts").click()

    def invitation_created(page):
        page.goto(f"/projects/{project}/annotators/")
        page.get_by_role("button", name="Make an invitation link").click()

    return [
        ("settings with errors", "researcher", settings_with_errors),
        ("new project with errors", "researcher", new_project_with_errors),
        ("import with errors", "researcher", failed_import),
        ("accounts created", "researcher", accounts_created),
        ("invitation link made", "researcher", invitation_created),
    ]


def run_axe(page) -> dict:
    """axe-core's violations on the page as it is, its script injected once per page load."""
    from axe_playwright_python.base import AXE_SCRIPT

    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    return page.evaluate("axe.run(document, {resultTypes: ['violations']})")


def inspect(page, seen: Seen, shots) -> None:
    """Every check on the page as it is, at 1280 then at 390 wide (laid out again, not reloaded)."""
    slug = re.sub(r"[^a-z0-9]+", "-", seen.name.lower()).strip("-")
    for size, viewport in SIZES.items():
        page.set_viewport_size(viewport)
        scroll, client = page.evaluate(WIDTHS)
        if scroll > client:
            seen.sideways[size] = f"{scroll} px wide in {client}: {page.evaluate(WIDEST)}"
        page.screenshot(path=str(shots / f"{slug}-{size}.png"), full_page=True)
        results = run_axe(page)
        seen.axe[size] = [
            {
                "id": v["id"],
                "impact": v["impact"],
                "help": v["help"],
                "nodes": [" ".join(map(str, node["target"])) for node in v["nodes"][:5]],
            }
            for v in results["violations"]
        ]
        if size == "1280":
            seen.contrast = page.evaluate(CONTRAST_FAILURES)
            page.keyboard.press("Tab")
            seen.rings = page.evaluate(MISSING_RINGS)
    page.set_viewport_size(SIZES["1280"])


@pytest.fixture(scope="module")
def walk(django_db_setup, django_db_blocker, live_server, browser, artifacts) -> list[Seen]:
    shots = artifacts / "pages"
    shots.mkdir(exist_ok=True)
    seen: list[Seen] = []
    started = time.monotonic()
    quick = override_settings(
        PASSWORD_HASHERS=[
            "django.contrib.auth.hashers.MD5PasswordHasher",
            "annotation.accounts.hashers.GeneratedPasswordHasher",
        ],
        GROUND_TRUTH_EMBEDDED_RUNNER="manual",
        ROOT_URLCONF="tests.error_urls",
        ALLOWED_HOSTS=["localhost", "127.0.0.1"],
        # The crowd worker's page rests on their done page: its countdown must not leave for Prolific.
        STUDY_RETURN_SECONDS=3600,
    )
    with django_db_blocker.unblock(), quick:
        cache.clear()
        world = build_world()
        noticed: list[str] = []  # of the page being inspected: see Seen.elsewhere

        def outside(request) -> None:
            if not request.url.startswith((live_server.url, "data:")):
                noticed.append(request.url)

        def blocked(message) -> None:
            if "Content Security Policy" in message.text:
                noticed.append(message.text)

        pages = {}
        for role, username in (
            ("anonymous", None),
            ("annotator", ANNOTATOR),
            ("researcher", DEMO_RESEARCHER),
        ):
            context = browser.new_context(viewport=SIZES["1280"], base_url=live_server.url)
            page = context.new_page()
            page.set_default_timeout(15_000)
            context.on("request", outside)
            page.on("console", blocked)
            if username:
                log_in(page, live_server.url, username, DEMO_PASSWORD)
            pages[role] = page
        # A crowd worker has no password: their browser comes in by their study link.
        worker = pages["anonymous"].context.browser.new_context(
            viewport=SIZES["1280"], base_url=live_server.url
        )
        pages["worker"] = worker.new_page()
        pages["worker"].set_default_timeout(15_000)
        worker.on("request", outside)
        pages["worker"].on("console", blocked)
        pages["worker"].goto(world.study_url)
        pages["worker"].get_by_role("button", name="Start").click()
        pages["worker"].wait_for_url("**/done/")
        try:
            for name, role, url in visits(world):
                page = pages[role]
                head = page.request.get(url, max_redirects=0)
                kind = head.headers.get("content-type", "")
                if head.status == 405 or (head.ok and not kind.startswith("text/html")):
                    continue  # POST only, or a download: not a page
                noticed.clear()
                response = page.goto(url)
                landed = re.sub(r"^https?://[^/]+", "", page.url)
                record = Seen(name, url, role, response.status if response else 0, landed)
                inspect(page, record, shots)
                record.elsewhere = list(noticed)
                seen.append(record)
            for name, role, answer in forms_answered(pages, world):
                page = pages[role]
                noticed.clear()
                answer(page)
                page.wait_for_load_state()
                landed = re.sub(r"^https?://[^/]+", "", page.url)
                record = Seen(name, landed, role, 200, landed)
                inspect(page, record, shots)
                record.elsewhere = list(noticed)
                seen.append(record)
        finally:
            for page in pages.values():
                page.context.close()
            embedded.discard_queued()
            cache.clear()
            call_command("flush", verbosity=0, interactive=False)  # nothing of the walk outlives it
    report = {"seconds": round(time.monotonic() - started, 1), "pages": [vars(s) for s in seen]}
    (shots / "axe-report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    return seen


@pytest.mark.django_db(transaction=True)
def test_every_page_of_the_urlconf_answers_its_role(walk):
    assert {s.name: s.landed for s in walk if s.landed != s.url} == {}  # nobody sent elsewhere
    statuses = {s.name: s.status for s in walk}
    errors = {
        "403": 403,
        "404 (under a project of yours)": 404,
        "404 (anonymous)": 404,
        "500": 500,
        "503": 503,
    }
    errors |= {"429 (sign-up)": 429, "429 (locked out)": 429}
    wrong = {name: status for name, status in statuses.items() if status != errors.get(name, 200)}
    assert wrong == {}
    assert len(walk) >= 50, f"only {len(walk)} pages: did the URLconf walk find them?"  # 61 today


@pytest.mark.django_db(transaction=True)
def test_no_page_scrolls_sideways_at_1280_or_390(walk):
    assert {s.name: s.sideways for s in walk if s.sideways} == {}


@pytest.mark.django_db(transaction=True)
def test_axe_finds_nothing_serious_or_critical_on_any_page(walk):
    found = {
        f"{s.name} at {size}": [
            f"{v['id']} ({v['impact']}): {v['help']} — {v['nodes']}"
            for v in violations
            if v["impact"] in FAILING_IMPACTS
        ]
        for s in walk
        for size, violations in s.axe.items()
    }
    assert {page: problems for page, problems in found.items() if problems} == {}


@pytest.mark.django_db(transaction=True)
def test_every_text_on_every_page_meets_aa_contrast(walk):
    assert {s.name: s.contrast for s in walk if s.contrast} == {}


@pytest.mark.django_db(transaction=True)
def test_every_focusable_element_on_every_page_shows_a_focus_ring(walk):
    assert {s.name: s.rings for s in walk if s.rings} == {}


@pytest.mark.django_db(transaction=True)
def test_no_page_loads_anything_from_elsewhere_nor_meets_the_csp(walk):
    """axe-core included: its script comes from the installed package, through the debugging
    protocol, so the pages' own Content-Security-Policy needs no exception for it."""
    assert {s.name: s.elsewhere for s in walk if s.elsewhere} == {}


def test_the_axe_scan_finds_what_it_must(page):
    """The scan is live: on a page with a nameless button and an image without words it reports
    both, as critical."""
    page.set_content('<html><body><main><button></button><img src="data:,"></main></body></html>')
    found = {v["id"]: v["impact"] for v in run_axe(page)["violations"]}
    assert found["button-name"] == found["image-alt"] == "critical"
