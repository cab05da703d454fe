"""Who may reach what: every URL of the URLconf × six roles, generated from the URLconf itself, so a
new endpoint is checked the moment it exists (or fails here until a rule below covers it).

Roles: anonymous, an annotator of another project, an annotator of the project, a researcher of
another project, the project's owner, and a superuser (who owns nothing here). The rules:

- a **researcher URL** (any URL naming the project, except the annotator's pages) answers its owner
  (never 401, 403 or 404) and nobody else: anonymous is sent to log in (pages) or refused (API),
  everyone else gets 401, 403, 404 or 405 — never a 2xx, and never a 400 (which would mean the request
  was read before it was refused);
- an **annotator page** answers the project's annotators and refuses (or sends to log in) everyone
  who is not one;
- **public** URLs (log in, the home page, the schema, sign-up with a project code, an invitation
  link, a crowd platform's study link, password reset) answer everyone, and never with a 5xx;
- the end of a study session answers only the link's own workers: anonymous is sent to log in,
  everyone else gets 404;
- **account pages** (changing one's password) answer every account and send anonymous to log in.

Every URL is tried with GET by every role, and with POST by every role but the owner (so nothing
the owner has is changed by the test itself).
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.accounts.joining import create_invitation
from annotation.judging.assignment import claim_next_task
from annotation.judging.platforms import create_link
from annotation.models import PaymentExport
from annotation.permissions import RESEARCHERS_GROUP
from evaluation.ground_truth.build import build_snapshot
from evaluation.jobs import embedded
from evaluation.models import GroundTruthJob, ImportJob, SamplingSimulation, TextEvaluation
from evaluation.scoring.jobs import request_evaluation
from tests.annotation.factories import make_project
from tests.scoring.conftest import judge_everything

# Django's admin checks staff itself; static files are not views of ours.
OUTSIDE = ("admin/", "static/")
PUBLIC = {"", "accounts/login/", "accounts/logout/", "api/schema/", "api/docs/", "api/", "api/projects/",
          "projects/new/", "signup/", "invite/<token>/", "accounts/password_reset/",
          "accounts/password_reset/done/", "accounts/reset/<uidb64>/<token>/",
          "accounts/reset/done/", "favicon.ico", "study/<slug>/"}  # fmt: skip
# The end of a crowd worker's session: their own only (no role here came in by a study link).
LINK_WORKER_PAGES = {"study/<slug>/done/"}
ACCOUNT_PAGES = {"accounts/password_change/", "accounts/password_change/done/"}
ANNOTATOR_PAGES = re.compile(
    r"^projects/<project_id>/(judge/|next/|history/|qualification/|consent/|about-you/"
    r"|assignments/<assignment_id>/\w+/"
    r"|judgements/<judgement_id>/edit/)$"
)
# A researcher's own objects outside any project: their import jobs answer only whoever sent them.
OWN_OBJECT_URL = re.compile(r"^api/import-jobs/<pk>/(cancel/)?$")
# Any researcher may send a bundle (it becomes a project of theirs) or make their API token; no one else.
RESEARCHER_URLS = {"api/bundles/", "accounts/token/"}
PROJECT_URL = re.compile(r"^(api/)?projects/<(project_id|project_pk|pk)>")
FORMATS = {"ground-truth/v<version>/": "qrels", "plots/": "png", "judgements.": "csv"}
# Owner URLs that may rightly answer 404 in this relevance project: what they ask for is not in it.
NOT_HERE = {
    "/ratings/": "a relevance project has no rating summaries",
    "/sample-qrels/": "a depth-k pool has no sample qrels",
    "/inferred/": "a depth-k pool has no inferred measures",
    "/pyramid/scores/": "a relevance project has no content units",
    "api/projects/<project_pk>/pyramid/written/": "a relevance project writes no content units",
}
# Query strings some URLs need to answer their owner at all.
QUERIES = {"/diff/": "?against=1", "scatter": "?metric=rouge1&dimension=quality"}
ROLES = ("anonymous", "other annotator", "annotator", "other researcher", "owner", "admin")


def routes() -> list[tuple[str, str]]:
    """Every URL pattern as (its route with parameters written ``<name>``, the pattern's name)."""
    found: list[tuple[str, str]] = []

    def walk(patterns, prefix: str) -> None:
        for entry in patterns:
            text = route_text(entry.pattern)
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, prefix + text)
            elif isinstance(entry, URLPattern):
                found.append((prefix + text, entry.name or ""))

    walk(get_resolver().url_patterns, "")
    return [(route, name) for route, name in found if not route.startswith(OUTSIDE)]


def route_text(pattern) -> str:
    """A pattern's route with ``<converter:name>`` and ``(?P<name>…)`` both written ``<name>``."""
    text = str(pattern)
    text = re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", text)
    text = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", text)
    return text.replace("^", "").replace("$", "").replace("\\.", ".").replace("/?", "/")


@pytest.fixture
def world(django_user_model, researcher, annotators, django_capture_on_commit_callbacks):
    researchers = Group.objects.get_or_create(name=RESEARCHERS_GROUP)[0]
    other_researcher = django_user_model.objects.create_user("other-researcher", password="x")
    other_researcher.groups.add(researchers)
    admin = django_user_model.objects.create_superuser("admin", password="x")
    outsider = django_user_model.objects.create_user("other-annotator", password="x")
    project = make_project(researcher, annotators, k=3, pool_depth=2)
    outsiders_project = make_project(
        other_researcher, [outsider]
    )  # the outsiders have a project of their own
    # A live invitation of the outsiders' project: roles that POST to it join that project, which
    # changes nothing the matrix checks in the main one.
    _invitation, token = create_invitation(outsiders_project, other_researcher, max_uses=None, days=1)
    invitation, _token = create_invitation(project, researcher, max_uses=1, days=1)
    judge_everything(project, annotators)
    snapshot = build_snapshot(project.pk)
    done_job = GroundTruthJob.objects.create(project=project, status="done", snapshot=snapshot)
    with django_capture_on_commit_callbacks(execute=True):
        evaluation = request_evaluation(project, snapshot=snapshot)
    embedded.run_queued()
    member = annotators[0]
    judgement = member.judgements.filter(project=project).first()
    assignment = claim_next_task(project, member) or judgement.assignment  # every item is judged: its last
    values = {
        "project_id": project.pk,
        "project_pk": project.pk,
        "run_id": project.runs.first().pk,
        "run_pk": project.runs.first().pk,
        "evaluation_id": evaluation.pk,
        "job_id": done_job.pk,
        "version": snapshot.version,
        "assignment_id": assignment.pk,
        "judgement_id": judgement.pk,
        "task_id": judgement.task_id,  # an item the owner may open and settle (judged by everyone)
        "user_id": member.pk,
        "invitation_id": invitation.pk,
        "token": token,
        "uidb64": "MQ",
        "fmt": "csv",
        "format": "json",
        "kind": "pr",
        "simulation_id": (simulation := done_simulation(project, researcher, snapshot)).pk,
        "simulation_pk": simulation.pk,
        "slug": (link := create_link(project, researcher, platform="mturk", tasks_per_session=5)).slug,
        "link_id": link.pk,
        "link_pk": link.pk,
        "export_id": PaymentExport.objects.create(
            project=project, kind="prolific", currency="GBP", total=0, text=""
        ).pk,
        "platform": "prolific",
        "user_pk": member.pk,
    }
    pks = {  # the ``pk`` of each kind of detail URL
        "projects/<pk>": project.pk,
        "runs/<pk>": project.runs.first().pk,
        "evaluations/<pk>": evaluation.pk,
        "jobs/<pk>": GroundTruthJob.objects.filter(project=project).first().pk,
        "items/<pk>": judgement.task_id,
        "leases/<pk>": assignment.pk,  # an annotator's lease, which the owner may release
        "text-evaluations/<pk>": TextEvaluation.objects.create(project=project, status="done").pk,
        "import-jobs/<pk>": ImportJob.objects.create(
            kind="collection",
            requested_by=researcher,
            project=project,
            body=b"",
            body_bytes=2,
            body_sha256="",
        ).pk,
    }
    users = {
        "anonymous": None,
        "other annotator": outsider,
        "annotator": member,
        "other researcher": other_researcher,
        "owner": researcher,
        "admin": admin,
    }
    return values, pks, users


def done_simulation(project, researcher, snapshot) -> SamplingSimulation:
    figures = {
        name: [0.5] for name in ("judged", "bias", "mae", "rmse", "tau", "stat_bias", "stat_mae", "stat_tau")
    }
    return SamplingSimulation.objects.create(
        project=project,
        requested_by=researcher,
        snapshot=snapshot,
        truth_name="snapshot",
        shares=[0.5],
        samples=1,
        status="done",
        result={"shares": [{"share": 0.5, "design": "1-10:0.5", "summary": {}, "figures": figures}]},
    )


def url_for(route: str, values: dict, pks: dict) -> str:
    def value(match: re.Match) -> str:
        name = match.group(1)
        if name == "pk":
            before = route[: match.start()]
            kind = next(
                (k for k in sorted(pks, key=len, reverse=True) if before.endswith(k.split("<")[0])), None
            )
            assert kind is not None, f"{route}: which object's pk is <pk>? add it to the access matrix"
            return str(pks[kind])
        if name == "fmt":  # the one per URL family that knows its formats
            formats = {
                "ground-truth/v<version>/": "qrels",
                "plots/": "png",
                "judgements.": "csv",
                "scatter.": "svg",
                "plot.": "svg",
            }
            return formats.get(next((key for key in formats if key in route), ""), "csv")
        if name == "kind" and "ground-truth" in route:
            return "qrels"
        assert name in values, f"{route}: no value for <{name}>; add it to the access matrix"
        return str(values[name])

    query = next((q for part, q in QUERIES.items() if part in route), "")
    return "/" + re.sub(r"<(\w+)>", value, route) + query


def client_for(user, api: bool):
    client = APIClient()
    if user is not None:
        if api:
            client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
        else:
            client.force_login(user)
    return client


def problems_with(route: str, role: str, method: str, status: int, location: str) -> str | None:
    """Why this answer breaks the rules, or None."""
    if status >= 500:
        return "server error"
    if re.sub(r"\.?<format>", "", route) in PUBLIC:  # DRF's format-suffixed twins of the same views
        return None
    login = status == 302 and "/accounts/login/" in location
    if route in LINK_WORKER_PAGES or ANNOTATOR_PAGES.match(route):
        return judging_pages(route, role, method, status, login)
    if route in ACCOUNT_PAGES or route in RESEARCHER_URLS:
        return outside_projects(route, role, status, login)
    if not PROJECT_URL.match(route) and not OWN_OBJECT_URL.match(route):
        return "no rule covers this URL: add it to the access matrix"
    if role == "owner":
        if status == 404 and any(part in route for part in NOT_HERE):
            return None
        return "the owner is refused" if status in {401, 403, 404} else None
    if role == "anonymous":
        return None if login or status in {401, 403, 405} else "anonymous let in"
    return None if status in {401, 403, 404, 405} else f"{role} got {status}"


def judging_pages(route: str, role: str, method: str, status: int, login: bool) -> str | None:
    """The rules of the pages annotators work on, and of the end of a crowd worker's session."""
    if role == "anonymous":
        return None if login else "anonymous not sent to log in"
    if route in LINK_WORKER_PAGES:  # no role here came in by a study link
        return None if status in {404, 405} else f"{role} let in"
    if role == "annotator":
        return None if status not in {401, 403, 404} or method == "POST" else "the annotator is refused"
    # Not one of the project's annotators: refused, or sent elsewhere with a message.
    return None if status in {302, 403, 404, 405} else f"{role} let in"


def outside_projects(route: str, role: str, status: int, login: bool) -> str | None:
    """The rules of URLs that name no project: account pages (every account) and researcher URLs."""
    if route in ACCOUNT_PAGES:
        if role == "anonymous":
            return None if login else "anonymous not sent to log in"
        return "an account is refused" if status in {401, 403, 404} else None
    if role in {"owner", "other researcher", "admin"}:
        return "a researcher is refused" if status in {401, 403, 404} else None
    return None if status in {401, 403} or login else f"{role} let in"


def test_every_url_answers_only_whom_it_should(world):
    values, pks, users = world
    checked, failures = 0, []
    for route, name in routes():
        url = url_for(route, values, pks)
        api = route.startswith("api/")
        for role, user in users.items():
            client = client_for(user, api)
            for method in ("GET", "POST") if role != "owner" else ("GET",):
                response = getattr(client, method.lower())(url)
                checked += 1
                problem = problems_with(
                    route, role, method, response.status_code, response.get("Location", "")
                )
                if problem:
                    failures.append(f"{method} {url} ({name}) as {role}: {response.status_code}: {problem}")
    assert not failures, f"{len(failures)} of {checked} checks failed:\n" + "\n".join(failures)
    assert checked > 500  # every URL × role × method, not a handful


def test_the_rules_catch_what_they_must():
    route = "projects/<project_id>/leaderboard/"
    assert problems_with(route, "other researcher", "GET", 200, "") == "other researcher got 200"
    assert problems_with(route, "annotator", "POST", 400, "") == "annotator got 400"
    assert problems_with(route, "anonymous", "GET", 200, "") == "anonymous let in"
    assert problems_with(route, "owner", "GET", 404, "") == "the owner is refused"
    assert problems_with(route, "owner", "GET", 500, "") == "server error"
    assert (
        problems_with("projects/<project_id>/judge/", "other annotator", "GET", 200, "")
        == "other annotator let in"
    )
    assert "no rule covers" in problems_with("reports/<id>/", "owner", "GET", 200, "")
    assert problems_with(route, "anonymous", "GET", 302, "/accounts/login/?next=/") is None


def test_every_operation_of_the_schema_is_in_the_matrix():
    """The matrix is generated from the URLconf; this holds the OpenAPI schema to it too, so an
    operation documented but served from somewhere the walk above does not reach is caught."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    # drf-spectacular writes a primary key ``{id}`` where the URLconf says ``<pk>``.
    walked = {re.sub(r"\.?<format>", "", route).replace("<id>", "<pk>") for route, _ in routes()}
    documented = {
        re.sub(r"\{(\w+)\}", r"<\1>", path).lstrip("/").replace("<id>", "<pk>") for path in schema["paths"]
    }
    assert len(documented) > 30
    assert documented <= walked, sorted(documented - walked)
