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
