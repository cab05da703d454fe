"""Bringing annotators in: accounts a researcher creates, invitation links, sign-up with a project
code, password reset and change through Django's own views, and the throttle on the public pages."""

from __future__ import annotations

import html
import re
import socket
import threading
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from annotation.accounts.joining import create_invitation, hash_token, renew_signup_code, use_invitation
from annotation.models import Invitation, Membership, Project
from tests.annotation.factories import make_project
from tests.scoring.test_pages_and_api import api

pytestmark = pytest.mark.django_db

GOOD_PASSWORD = "heron-bicycle-47"


def text_of(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


def logs_in(client, username: str, password: str, address: str = "10.9.9.9") -> bool:
    """Through the real login page (django-axes wants the request)."""
    response = client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )
    return response.status_code == 302


@pytest.fixture
def project(researcher, annotators):
    return make_project(researcher, annotators[:1], k=1)


def new_account(username: str, password: str = GOOD_PASSWORD, **extra) -> dict:
    return {"username": username, "password1": password, "password2": password, **extra}


# -- accounts the researcher creates --------------------------------------------------------------------


def test_created_accounts_join_the_project_and_their_generated_passwords_are_shown_once_and_work(
    client, researcher, project
):
    client.force_login(researcher)
    url = reverse("accounts-new", args=[project.pk])
    response = client.post(url, {"accounts": "maria maria@example.org\njoe", "password": ""})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    page = response.content.decode()
    passwords = dict(re.findall(r'<th scope="row">(\w+)</th><td><code class="secret">([^<]+)</code>', page))
    assert set(passwords) == {"maria", "joe"} and len(set(passwords.values())) == 2
    assert "shown only this once" in page
    users = get_user_model().objects
    maria = users.get(username="maria")
    assert maria.email == "maria@example.org" and passwords["maria"] not in maria.password  # stored hashed
    assert not (maria.is_staff or maria.is_superuser or maria.groups.exists())
    member = Membership.objects.get(project=project, annotator=maria)
    assert member.joined_via == Membership.JoinedVia.ACCOUNT
    client.logout()
    assert logs_in(client, "joe", passwords["joe"])
    assert client.get(reverse("judge", args=[project.pk])).status_code == 200


def test_a_chosen_password_must_pass_the_validators_and_is_for_one_account_only(client, researcher, project):
    client.force_login(researcher)
    url = reverse("accounts-new", args=[project.pk])
    page = text_of(client.post(url, {"accounts": "maria", "password": "12345678"}))
    assert "This password is too common." in page and "This password is entirely numeric." in page
    page = text_of(client.post(url, {"accounts": "maria\njoe", "password": GOOD_PASSWORD}))
    assert "a chosen password is for one account only" in page
    assert not get_user_model().objects.filter(username__in=["maria", "joe"]).exists()
    response = client.post(url, {"accounts": "maria", "password": GOOD_PASSWORD})
    assert GOOD_PASSWORD in response.content.decode() and "the one you chose" in text_of(response)


def test_a_taken_username_or_a_bad_line_is_refused_naming_it_and_nothing_is_created(
    client, researcher, project
):
    client.force_login(researcher)
    url = reverse("accounts-new", args=[project.pk])
    page = text_of(client.post(url, {"accounts": "newcomer\nAnnotator1"}))
    assert "already taken: Annotator1" in page
    page = text_of(client.post(url, {"accounts": "fine\nnot a username at all"}))
    assert "line 2: write a username, optionally followed by an email address" in page
    assert "line 1: “x” is not" not in page
    page = text_of(client.post(url, {"accounts": "ok bad-email"}))
    assert "line 1: “bad-email” is not an email address" in page
    assert not get_user_model().objects.filter(username__in=["newcomer", "fine", "ok"]).exists()


def test_only_the_owner_creates_accounts_or_invitations(client, project, annotators, outsider_researcher):
    for user in (annotators[0], outsider_researcher):
        client.force_login(user)
        assert client.post(reverse("accounts-new", args=[project.pk]), {"accounts": "x"}).status_code == 404
        assert client.post(reverse("invitation-new", args=[project.pk]), {"days": 7}).status_code == 404
        assert client.get(reverse("project-annotators", args=[project.pk])).status_code == 404
    assert not get_user_model().objects.filter(username="x").exists()
    assert not Invitation.objects.exists()


# -- invitation links ---------------------------------------------------------------------------------


def make_link(client, researcher, project, **fields) -> str:
    client.force_login(researcher)
    form = {"max_uses": "1", "days": "7", "note": "for Ana"} | fields
    response = client.post(reverse("invitation-new", args=[project.pk]), form)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    link = re.search(r'id="invitation-link" type="text" readonly value="([^"]+)"', response.content.decode())
    client.logout()
    return link.group(1).removeprefix("http://testserver")


def test_an_invitation_link_is_shown_once_and_only_its_hash_is_stored(client, researcher, project):
    link = make_link(client, researcher, project)
    token = link.strip("/").split("/")[-1]
    invitation = Invitation.objects.get()
    assert invitation.token_hash == hash_token(token) and token not in invitation.token_hash
    client.force_login(researcher)
    page = client.get(reverse("project-annotators", args=[project.pk])).content.decode()
    assert token not in page and "for Ana" in page and "0 of 1" in page


def test_a_newcomer_signs_up_through_an_invitation_and_lands_on_the_judging_page(client, researcher, project):
    link = make_link(client, researcher, project)
    assert "Make my account and join" in text_of(client.get(link))
    response = client.post(link, new_account("ana", email="ana@example.org"))
    assert response.status_code == 302 and response["Location"] == reverse("judge", args=[project.pk])
    ana = get_user_model().objects.get(username="ana")
    member = Membership.objects.get(project=project, annotator=ana)
    assert (member.joined_via, member.invitation.note) == (Membership.JoinedVia.INVITATION, "for Ana")
    assert Invitation.objects.get().uses == 1
    judge = client.get(reverse("judge", args=[project.pk]))  # logged in already
    assert judge.status_code == 200 and "Welcome! You now annotate" in text_of(judge)


def test_a_weak_password_is_refused_at_sign_up_and_uses_nothing_up(client, researcher, project):
    link = make_link(client, researcher, project)
    page = text_of(client.post(link, new_account("ana", "password")))
    assert "This password is too common." in page
    assert not get_user_model().objects.filter(username="ana").exists()
    assert Invitation.objects.get().uses == 0


def test_a_single_use_invitation_lets_one_person_in(client, researcher, project):
    link = make_link(client, researcher, project)
    assert client.post(link, new_account("ana")).status_code == 302
    client.logout()
    response = client.post(link, new_account("bob"))
    assert response.status_code == 410 and "This invitation has already been used." in text_of(response)
    assert not get_user_model().objects.filter(username="bob").exists()


@pytest.mark.django_db(transaction=True)
def test_racing_for_the_last_use_of_a_link_lets_exactly_one_through(
    researcher, annotators, postgres_required
):
    project = make_project(researcher, annotators[:1], k=1)
    invitation, _token = create_invitation(project, researcher, max_uses=1, days=1)
    barrier, results = threading.Barrier(8), []

    def race() -> None:
        barrier.wait()
        results.append(use_invitation(invitation))
        connection.close()

    threads = [threading.Thread(target=race) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [False] * 7 + [True]
    assert Invitation.objects.get().uses == 1


def test_someone_logged_in_joins_through_the_link_as_themselves(client, researcher, project, annotators):
    link = make_link(client, researcher, project, max_uses="")
    client.force_login(annotators[1])
    assert "Join as annotator2?" in text_of(client.get(link))
    response = client.post(link)
    assert response["Location"] == reverse("judge", args=[project.pk])
    assert Membership.objects.filter(project=project, annotator=annotators[1]).exists()
    client.force_login(annotators[0])  # a member already: welcomed back, nothing used up
    assert "You already annotate" in text_of(client.post(link, follow=True))
    assert Invitation.objects.get().uses == 1


def test_expired_withdrawn_and_unknown_links_are_refused_with_the_reason(client, researcher, project):
    link = make_link(client, researcher, project)
    invitation = Invitation.objects.get()
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    response = client.get(link)
    assert response.status_code == 410 and "This invitation has expired." in text_of(response)
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now() + timedelta(days=1))
    client.force_login(researcher)
    client.post(reverse("invitation-revoke", args=[project.pk, invitation.pk]))
    client.logout()
    response = client.post(link, new_account("ana"))
    assert response.status_code == 410 and "withdrawn" in text_of(response)
    assert not get_user_model().objects.filter(username="ana").exists()
    assert client.get("/invite/not-a-real-token/").status_code == 404


def test_another_projects_invitation_cannot_be_withdrawn_through_this_one(
    client, researcher, project, outsider_researcher
):
    other = make_project(outsider_researcher, [], k=1)
    invitation, _token = create_invitation(other, outsider_researcher, max_uses=1, days=1)
    client.force_login(researcher)
    assert client.post(reverse("invitation-revoke", args=[project.pk, invitation.pk])).status_code == 404
    assert not Invitation.objects.get(pk=invitation.pk).revoked


# -- sign-up with a project code ------------------------------------------------------------------------


def test_the_researcher_switches_the_code_on_and_a_newcomer_signs_up_with_it(client, researcher, project):
    client.force_login(researcher)
    client.post(reverse("signup-code", args=[project.pk]), {"action": "enable"})
    project.refresh_from_db()
    assert project.signup_enabled and len(project.signup_code) == 10
    shown = f"{project.signup_code[:5]}-{project.signup_code[5:]}"
    assert shown in client.get(reverse("project-annotators", args=[project.pk])).content.decode()
    client.logout()
    typed = shown.lower().replace("-", " ")  # as someone might type it
    response = client.post(reverse("signup"), {"code": typed, **new_account("carla")})
    assert response["Location"] == reverse("judge", args=[project.pk])
    member = Membership.objects.get(project=project, annotator__username="carla")
    assert member.joined_via == Membership.JoinedVia.SIGNUP_CODE


def test_a_switched_off_or_replaced_code_lets_nobody_in(client, researcher, project):
    old = renew_signup_code(project)
    client.force_login(researcher)
    client.post(reverse("signup-code", args=[project.pk]), {"action": "renew"})
    client.logout()
    page = text_of(client.post(reverse("signup"), {"code": old, **new_account("carla")}))
    assert "No open project takes sign-ups with this code." in page
    new = Project.objects.get(pk=project.pk).signup_code
    assert new != old
    client.force_login(researcher)
    client.post(reverse("signup-code", args=[project.pk]), {"action": "disable"})
    client.logout()
    assert "No open project takes sign-ups" in text_of(
        client.post(reverse("signup"), {"code": new, **new_account("carla")})
    )
    assert not get_user_model().objects.filter(username="carla").exists()


def test_someone_logged_in_joins_with_the_code_as_themselves(client, project, annotators):
    code = renew_signup_code(project)
    client.force_login(annotators[2])
    assert "Join the project" in text_of(client.get(reverse("signup") + f"?code={code}"))
    response = client.post(reverse("signup"), {"code": code})
    assert response["Location"] == reverse("judge", args=[project.pk])
    assert Membership.objects.get(project=project, annotator=annotators[2]).joined_via == "signup_code"


def test_only_the_owner_switches_or_renews_the_code(client, project, annotators, outsider_researcher):
    for user in (annotators[0], outsider_researcher):
        client.force_login(user)
        assert client.post(reverse("signup-code", args=[project.pk]), {"action": "enable"}).status_code == 404
    assert not Project.objects.get(pk=project.pk).signup_enabled


# -- throttling -----------------------------------------------------------------------------------------


def test_wrong_codes_from_one_address_are_throttled_and_others_are_not(client, project, settings):
    settings.SIGNUP_THROTTLE_FAILURES = 3
    renew_signup_code(project)
    wrong = {"code": "AAAAA-AAAAA", **new_account("mallory")}
    answers = [client.post(reverse("signup"), wrong, REMOTE_ADDR="10.0.0.5").status_code for _ in range(5)]
    assert answers == [200, 200, 200, 429, 429]
    refused = client.post(
        reverse("signup"), {"code": project.signup_code, **new_account("mallory")}, REMOTE_ADDR="10.0.0.5"
    )
    assert refused.status_code == 429 and refused["Retry-After"] == str(15 * 60)
    assert "Too many attempts came from your address" in text_of(refused)
    ok = client.post(
        reverse("signup"), {"code": project.signup_code, **new_account("alice")}, REMOTE_ADDR="10.0.0.6"
    )
    assert ok.status_code == 302
    assert client.get("/invite/guess/", REMOTE_ADDR="10.0.0.5").status_code == 429  # the same budget


def test_sign_up_attempts_per_address_are_capped(client, researcher, project, settings):
    settings.SIGNUP_THROTTLE_ATTEMPTS = 2
    link = make_link(client, researcher, project, max_uses="")
    answers = [
        client.post(link, new_account(f"user{i}", "123"), REMOTE_ADDR="10.0.0.7").status_code
        for i in range(3)
    ]
    assert answers == [200, 200, 429]


def unreachable_redis() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"redis://127.0.0.1:{probe.getsockname()[1]}/0"


def test_sign_up_still_works_while_the_cache_is_down(client, project, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "cranfield.cache.ForgivingRedisCache",
            "LOCATION": unreachable_redis(),
            "OPTIONS": {"socket_connect_timeout": 0.1, "socket_timeout": 0.1},
        }
    }
    Project.objects.filter(pk=project.pk).update(signup_code="BCDEFGHJKM", signup_enabled=True)
    response = client.post(reverse("signup"), {"code": "BCDEF-GHJKM", **new_account("dora")})
    assert response.status_code == 302
    assert Membership.objects.filter(project=project, annotator__username="dora").exists()


# -- passwords ------------------------------------------------------------------------------------------


def test_a_forgotten_password_is_reset_through_an_emailed_link(client, annotators):
    annotator = annotators[0]
    annotator.email = "one@example.org"
    annotator.save()
    response = client.post(reverse("password_reset"), {"email": "one@example.org"})
    assert response["Location"] == reverse("password_reset_done")
    [message] = mail.outbox
    assert message.subject == "Your Cranfield password" and annotator.username in message.body
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", message.body).group(1)
    form_page = client.get(link, follow=True)
    assert "Choose a new password" in text_of(form_page)
    set_url = form_page.redirect_chain[-1][0]
    assert "too common" in text_of(
        client.post(set_url, {"new_password1": "password", "new_password2": "password"})
    )
    done = client.post(set_url, {"new_password1": GOOD_PASSWORD, "new_password2": GOOD_PASSWORD})
    assert done["Location"] == reverse("password_reset_complete")
    assert logs_in(client, annotator.username, GOOD_PASSWORD)


def test_an_unknown_address_gets_the_same_answer_and_no_email(client):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert response["Location"] == reverse("password_reset_done") and mail.outbox == []


def test_password_reset_requests_are_throttled_per_address(client, settings):
    settings.SIGNUP_THROTTLE_ATTEMPTS = 2
    answers = [
        client.post(reverse("password_reset"), {"email": "x@example.org"}, REMOTE_ADDR="10.0.0.8").status_code
        for _ in range(3)
    ]
    assert answers == [302, 302, 429]


def test_an_annotator_changes_their_password(client, annotators):
    client.force_login(annotators[0])
    assert "Change your password" in text_of(client.get(reverse("home")))
    form = {
        "old_password": "annotator1-password",
        "new_password1": GOOD_PASSWORD,
        "new_password2": GOOD_PASSWORD,
    }
    assert client.post(reverse("password_change"), form)["Location"] == reverse("password_change_done")
    client.logout()
    assert logs_in(client, "annotator1", GOOD_PASSWORD)


def test_the_login_page_leads_to_reset_and_sign_up(client):
    page = client.get(reverse("login")).content.decode()
    assert reverse("password_reset") in page and reverse("signup") in page


# -- the researcher's own tools, without the admin -------------------------------------------------------


def test_the_annotators_page_says_how_each_annotator_came_in(client, researcher, project, annotators):
    code = renew_signup_code(project)
    client.post(reverse("signup"), {"code": code, **new_account("carla")})
    client.force_login(researcher)
    page = text_of(client.get(reverse("project-annotators", args=[project.pk])))
    assert "annotator1 Added by username" in page and "carla Sign-up code" in page
    assert "2 annotators are eligible (annotator1, carla)" in page


def test_a_researcher_makes_and_replaces_an_api_token_that_the_api_accepts(client, researcher, annotators):
    client.force_login(annotators[0])
    assert client.get(reverse("api-token")).status_code == 403
    client.force_login(researcher)
    response = client.post(reverse("api-token"))
    assert "no-store" in response["Cache-Control"]
    token = re.search(r'id="api-token" type="text" readonly value="(\w+)"', response.content.decode()).group(
        1
    )
    from rest_framework.test import APIClient

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/projects/").status_code == 200
    client.post(reverse("api-token"))
    assert api.get("/api/projects/").status_code == 401  # the old one stopped


def test_the_start_up_banner_offers_no_admin_link_the_demo_users_cannot_use():
    import importlib.util

    from tests.conftest import PROJECT_DIR

    spec = importlib.util.spec_from_file_location("dev_script", PROJECT_DIR / "dev.py")
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    banner = dev.run_banner("127.0.0.1:8000")
    assert "http://127.0.0.1:8000/admin/" not in banner
    assert "Annotators page" in banner and "no demo account is one" in banner and "createsuperuser" in banner


def test_the_demo_researcher_is_no_staff_yet_reaches_every_researcher_page(client):
    from django.core.management import call_command

    from evaluation.demo import DEMO_PASSWORD, DEMO_PROJECT_NAME, DEMO_RESEARCHER

    call_command("load_demo", verbosity=0)
    researcher = get_user_model().objects.get(username=DEMO_RESEARCHER)
    assert not (researcher.is_staff or researcher.is_superuser)
    project = Project.objects.get(name=DEMO_PROJECT_NAME)
    assert logs_in(client, DEMO_RESEARCHER, DEMO_PASSWORD)
    for name in ("project-page", "project-annotators", "accounts-new", "project-settings", "ground-truth"):
        assert client.get(reverse(name, args=[project.pk])).status_code == 200, name
    assert client.get(reverse("api-token")).status_code == 200
    page = text_of(client.get(reverse("project-annotators", args=[project.pk])))
    # The simulated annotators are members on paper only: they cannot log in, so they do not count.
    assert "3 annotators are eligible (annotator1, annotator2, annotator3)" in page
    assert "simulated-1 Added by username" in page and "no: cannot log in" in page


def test_made_up_invitation_links_fetched_by_get_do_not_stop_anyone_signing_up(client, project, settings):
    """Any page can make a browser GET a made-up link (an <img>): such GETs guess nothing and count
    for nothing; a posted made-up link still counts as a wrong guess."""
    settings.SIGNUP_THROTTLE_FAILURES = 3
    renew_signup_code(project)
    for number in range(10):
        assert client.get(f"/invite/made-up-{number}/", REMOTE_ADDR="10.0.0.8").status_code == 404
    ok = client.post(
        reverse("signup"), {"code": project.signup_code, **new_account("bob")}, REMOTE_ADDR="10.0.0.8"
    )
    assert ok.status_code == 302
    for number in range(3):
        client.post(f"/invite/made-up-{number}/", new_account("eve"), REMOTE_ADDR="10.0.0.9")
    assert client.get("/invite/another/", REMOTE_ADDR="10.0.0.9").status_code == 429


def test_sign_up_without_a_right_code_does_not_tell_which_usernames_exist(client, project, annotators):
    """Issue 27: with an empty code, a taken username got "A user with that username already exists"."""
    renew_signup_code(project)
    pages = []
    for username in (annotators[0].username, "nobody-has-this-name"):
        for code in ("", "AAAAA-AAAAA"):
            answer = client.post(
                reverse("signup"), {"code": code, **new_account(username)}, REMOTE_ADDR="10.0.1.1"
            )
            assert answer.status_code == 200
            page = text_of(answer)
            assert "already exists" not in page
            pages.append(page.replace(username, "NAME"))
    assert pages[0] == pages[2] and pages[1] == pages[3]


def test_three_hundred_accounts_are_made_in_one_request_with_the_production_hashers(
    client, researcher, project, settings
):
    """Issue 27: 300 accounts at once ended in the web server's timeout (each generated password
    hashed with 1,000,000 PBKDF2 iterations). Generated passwords (81 random bits) take 10,000; a
    login re-hashes them with the default. Timed here against one hash with the default."""
    import time

    from django.conf import global_settings
    from django.contrib.auth.hashers import check_password, identify_hasher, make_password

    settings.PASSWORD_HASHERS = [
        *global_settings.PASSWORD_HASHERS,
        "annotation.accounts.hashers.GeneratedPasswordHasher",
    ]
    started = time.perf_counter()
    make_password("one person's own password")
    one_default_hash = time.perf_counter() - started
    client.force_login(researcher)
    started = time.perf_counter()
    names = "\n".join(f"annotator-{n:03d}" for n in range(300))
    response = client.post(reverse("accounts-new", args=[project.pk]), {"accounts": names, "password": ""})
    took = time.perf_counter() - started
    assert response.status_code == 200
    assert project.memberships.count() >= 300
    # 300 default hashes would take 300 × one_default_hash; ours take about 3 of them.
    assert took < 30 * one_default_hash, (took, one_default_hash)
    passwords = dict(
        re.findall(
            r'<th scope="row">([\w-]+)</th><td><code class="secret">([^<]+)</code>', response.content.decode()
        )
    )
    user = get_user_model().objects.get(username="annotator-007")
    assert identify_hasher(user.password).algorithm == "pbkdf2_sha256_generated"
    assert check_password(passwords["annotator-007"], user.password)
    client.logout()
    assert logs_in(client, "annotator-007", passwords["annotator-007"])
    user.refresh_from_db()
    assert identify_hasher(user.password).algorithm == "pbkdf2_sha256"  # upgraded at the first login


# -- the same over the API --------------------------------------------------------------------------


def test_accounts_made_over_the_api_join_the_project_and_their_passwords_work(client, researcher, project):
    url = reverse("accounts-api", args=[project.pk])
    response = api(researcher).post(url, {"accounts": ["maria maria@example.org", "joe"]}, format="json")
    assert response.status_code == 201, response.content
    assert "no-store" in response["Cache-Control"]
    created = {row["username"]: row for row in response.json()["created"]}
    assert set(created) == {"maria", "joe"} and created["maria"]["email"] == "maria@example.org"
    assert all(row["generated"] for row in created.values())
    for username, row in created.items():
        user = get_user_model().objects.get(username=username)
        assert row["password"] not in user.password  # stored hashed
        assert Membership.objects.filter(project=project, annotator=user).exists()
        assert not (user.is_staff or user.is_superuser)
        assert logs_in(client, username, row["password"])
        client.logout()


def test_bad_accounts_over_the_api_are_refused_naming_the_item_and_nothing_is_made(researcher, project):
    url = reverse("accounts-api", args=[project.pk])
    before = get_user_model().objects.count()
    for body, field, fragment in [
        ({"accounts": ["ok1", "bad name here"]}, "accounts", "item 2"),
        ({"accounts": ["ok1", "OK1"]}, "accounts", "item 2: “OK1” appears twice"),
        ({"accounts": ["ok1", "ok2"], "password": GOOD_PASSWORD}, "password", "one account only"),
        ({"accounts": ["ok1"], "password": "123"}, "password", ""),
        ({"accounts": [researcher.username]}, "accounts", "already taken"),
        ({"accounts": []}, "accounts", ""),
        ({"accounts": ["ok1"], "admin": True}, "non_field_errors", "admin"),
    ]:
        response = api(researcher).post(url, body, format="json")
        assert response.status_code == 400, body
        assert fragment in " ".join(map(str, response.json().get(field, response.json()))), (
            body,
            response.json(),
        )
    assert get_user_model().objects.count() == before


def test_an_invitation_made_over_the_api_lets_a_newcomer_in(client, researcher, project):
    response = api(researcher).post(
        reverse("invitations-api", args=[project.pk]),
        {"max_uses": 1, "days": 3, "note": "for Ana"},
        format="json",
    )
    assert response.status_code == 201 and "no-store" in response["Cache-Control"]
    link = response.json()["link"]
    token = link.strip("/").split("/")[-1]
    invitation = Invitation.objects.get(pk=response.json()["id"])
    assert invitation.token_hash == hash_token(token) and invitation.note == "for Ana"
    path = reverse("invitation", args=[token])
    assert link.endswith(path)
    assert client.post(path, new_account("ana")).status_code == 302
    assert Membership.objects.filter(project=project, annotator__username="ana").exists()
    bad = api(researcher).post(reverse("invitations-api", args=[project.pk]), {"days": 365}, format="json")
    assert bad.status_code == 400 and "days" in bad.json()


def test_only_the_owner_makes_accounts_or_invitations_over_the_api(project, annotators, outsider_researcher):
    for name, body in (("accounts-api", {"accounts": ["x1"]}), ("invitations-api", {})):
        url = reverse(name, args=[project.pk])
        assert api(outsider_researcher).post(url, body, format="json").status_code == 404
        assert api(annotators[0]).post(url, body, format="json").status_code == 403
    assert not get_user_model().objects.filter(username="x1").exists() and not Invitation.objects.exists()
