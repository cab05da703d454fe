"""Wrong passwords are throttled (django-axes): after the limit, one username from one address is
locked out — even with the right password — while other accounts and addresses log in as usual."""

from __future__ import annotations

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def attempt(client, username: str, password: str, address: str = "10.0.0.1"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def test_fifty_wrong_passwords_lock_that_username_from_that_address(client, annotators, settings):
    settings.AXES_FAILURE_LIMIT = 5
    settings.LOGIN_FAILURES_PER_ADDRESS = 1000  # the address's own budget: the spraying test below
    victim = annotators[0].username
    answers = [attempt(client, victim, "wrong").status_code for _ in range(50)]
    assert answers[:4] == [200] * 4  # the form again, with its error
    assert set(answers[5:]) == {429}  # locked out
    assert attempt(client, victim, "annotator1-password").status_code == 429  # even the right one
    # Someone else, and the same person from another address, are not locked out.
    assert attempt(client, annotators[1].username, "annotator2-password").status_code == 302
    assert attempt(client, victim, "annotator1-password", address="10.0.0.2").status_code == 302


def test_a_successful_login_resets_the_count(client, annotators, settings):
    settings.AXES_FAILURE_LIMIT = 3
    name = annotators[0].username
    for _ in range(2):
        assert attempt(client, name, "wrong").status_code == 200
    assert attempt(client, name, "annotator1-password").status_code == 302
    client.logout()
    for _ in range(2):
        assert attempt(client, name, "wrong").status_code == 200
    assert attempt(client, name, "annotator1-password").status_code == 302


# -- behind a proxy, and password spraying (issue 27) -------------------------------------------------


def through_proxy(client, username: str, password: str, client_address: str, forwarded_by: str = "10.9.9.9"):
    """A login as it arrives behind one proxy: from the proxy, with the client in X-Forwarded-For."""
    return client.post(
        reverse("login"),
        {"username": username, "password": password},
        REMOTE_ADDR=forwarded_by,
        HTTP_X_FORWARDED_FOR=f"6.6.6.6, {client_address}",  # the left entry: whatever the client wrote
    )


def test_behind_a_trusted_proxy_a_stranger_cannot_lock_a_user_out_for_everyone(client, annotators, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.AXES_FAILURE_LIMIT = 5
    victim = annotators[0].username
    answers = [through_proxy(client, victim, "wrong", "203.0.113.5").status_code for _ in range(6)]
    assert answers[-1] == 429  # the stranger's own address is locked
    # The same proxy forwards the victim from home: not locked.
    assert through_proxy(client, victim, "annotator1-password", "198.51.100.7").status_code == 302


def test_without_a_trusted_proxy_x_forwarded_for_is_ignored(client, annotators, settings):
    """A client writes what it likes in the header: with no proxy configured it must not choose the
    address it is counted under."""
    settings.AXES_FAILURE_LIMIT = 3
    victim = annotators[0].username
    for number in range(4):
        through_proxy(client, victim, "wrong", f"203.0.113.{number}", forwarded_by="10.0.0.9")
    assert attempt(client, victim, "annotator1-password", address="10.0.0.9").status_code == 429


def test_password_spraying_from_one_address_is_stopped_whatever_the_usernames(client, annotators, settings):
    """9 wrong passwords for each of 5 accounts from one address all got through (axes counts per
    username and address); past LOGIN_FAILURES_PER_ADDRESS the address's logins are refused."""
    settings.LOGIN_FAILURES_PER_ADDRESS = 20
    names = [annotators[i % len(annotators)].username for i in range(5)]
    answers = [attempt(client, f"{name}-{n}", "wrong").status_code for name in names for n in range(9)]
    assert answers[:20] == [200] * 20 and set(answers[20:]) == {429}
    assert attempt(client, annotators[1].username, "annotator2-password").status_code == 429
    assert (
        attempt(client, annotators[1].username, "annotator2-password", address="10.0.0.2").status_code == 302
    )
