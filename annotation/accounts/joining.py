"""Bringing annotators into a project: accounts a researcher creates, invitation links, and sign-up
with a project code. Every way ends in ``join_project``.

Secrets: a generated password is shown once and stored only hashed (Django's hasher); an invitation
link carries a random token of which only a SHA-256 is stored; a sign-up code is stored as is (the
researcher shares it and may read it again), and can be switched off or replaced at any time.
Guessing a code or a link is throttled per address (``annotation.throttling.throttle``).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from annotation.accounts.hashers import GeneratedPasswordHasher
from annotation.models import Invitation, Membership, Project

# Letters and digits that cannot be mistaken for one another when read aloud or copied by hand.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 10  # 31^10 ≈ 8 × 10^14 codes: beyond guessing at the throttled rate
PASSWORD_ALPHABET = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
PASSWORD_LENGTH = 14
USERNAME = re.compile(r"^[\w.@+-]{1,150}$")  # Django's own username rule


class AccountError(ValueError):
    """A request that cannot be done; the message says why, for the person who made it, and
    ``field`` which of their inputs it is about."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


# -- passwords, codes and tokens ------------------------------------------------------------------


def generate_password() -> str:
    """A random password that Django's validators accept (14 characters, ~80 bits)."""
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))


def generate_signup_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text: str) -> str:
    """What the annotator typed, as stored: capitals, without spaces or dashes."""
    return re.sub(r"[\s-]", "", text).upper()


def display_code(code: str) -> str:
    """A code in two halves, easier to read out: ``ABCDE-FGHJK``."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}" if code else ""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# -- joining -------------------------------------------------------------------------------------


def join_project(
    project: Project, user, via: str, invitation: Invitation | None = None
) -> tuple[Membership, bool]:
    """Make ``user`` an annotator of ``project``; ``(membership, created)``. An existing membership is
    left as it is (a blocked annotator stays blocked)."""
    return Membership.objects.get_or_create(
        project=project, annotator=user, defaults={"joined_via": via, "invitation": invitation}
    )


# -- accounts a researcher creates ---------------------------------------------------------------


@dataclass(frozen=True)
class AccountRequest:
    username: str
    email: str = ""


@dataclass(frozen=True)
class CreatedAccount:
    username: str
    email: str
    password: str  # shown once, never stored in clear
    generated: bool


def parse_account_lines(text: str) -> list[AccountRequest]:
    """One account per line: a username, optionally followed by an email address (for password
    reset). Errors name the line."""
    requests: list[AccountRequest] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.replace(",", " ").split()
        if not words:
            continue
        if len(words) > 2:
            raise AccountError(f"line {number}: write a username, optionally followed by an email address")
        username, email = words[0], (words[1] if len(words) == 2 else "")
        if not USERNAME.match(username):
            raise AccountError(
                f"line {number}: “{username}” is not a username (letters, digits and @ . + - _ only)"
            )
        if email:
            try:
                validate_email(email)
            except ValidationError as error:
                raise AccountError(f"line {number}: “{email}” is not an email address") from error
        if username.lower() in seen:
            raise AccountError(f"line {number}: “{username}” appears twice")
        seen.add(username.lower())
        requests.append(AccountRequest(username, email))
    if not requests:
        raise AccountError("write at least one username")
    return requests


def create_accounts(
    project: Project, requests: list[AccountRequest], password: str = ""
) -> list[CreatedAccount]:
    """Create an account per request and make each an annotator of ``project``; all or nothing.

    ``password``: the one password to give, allowed for a single account only (one per person);
    otherwise each account gets a generated one. Django's password validators apply to a given
    password; a username already taken (in any letter case) is refused, naming it.
    """
    users = get_user_model()
    if password and len(requests) > 1:
        raise AccountError(
            "a chosen password is for one account only: leave it empty to generate one each", "password"
        )
    taken = [
        r.username
        for r in requests
        if users.objects.filter(username__iexact=r.username).exists()  # as UserCreationForm checks
    ]
    if taken:
        raise AccountError(
            f"already taken: {', '.join(taken)} (add an existing user by name on the Annotators page instead)"
        )
    if password:
        try:
            validate_password(password, users(username=requests[0].username, email=requests[0].email))
        except ValidationError as error:
            raise AccountError(" ".join(error.messages), "password") from error
    created: list[CreatedAccount] = []
    try:
        with transaction.atomic():
            for request in requests:
                secret = password or generate_password()
                if password:
                    user = users.objects.create_user(request.username, email=request.email, password=secret)
                else:  # random, so hashed with few iterations (annotation.accounts.hashers)
                    user = users.objects.create_user(request.username, email=request.email, password=None)
                    user.password = make_password(secret, hasher=GeneratedPasswordHasher.algorithm)
                    user.save(update_fields=["password"])
                join_project(project, user, Membership.JoinedVia.ACCOUNT)
                created.append(CreatedAccount(request.username, request.email, secret, not password))
    except IntegrityError as error:  # someone took a name between the check and the insert
        raise AccountError("a username was taken a moment ago; try again") from error
    return created


# -- invitation links ----------------------------------------------------------------------------


def create_invitation(
    project: Project, by, *, max_uses: int | None, days: int, note: str = ""
) -> tuple[Invitation, str]:
    """A new invitation and its token (for the link; only its hash is stored)."""
    token = secrets.token_urlsafe(24)
    invitation = Invitation.objects.create(
        project=project,
        created_by=by,
        token_hash=hash_token(token),
        note=note,
        max_uses=max_uses,
        expires_at=timezone.now() + timedelta(days=days),
    )
    return invitation, token


def find_invitation(token: str) -> Invitation | None:
    if not token or len(token) > 100:
        return None
    return Invitation.objects.select_related("project").filter(token_hash=hash_token(token)).first()


def use_invitation(invitation: Invitation) -> bool:
    """Count one use if the link still allows one; False if it does not (used up a moment ago by
    someone else, expired, withdrawn). A conditional UPDATE: two people racing for the last use of
    a single-use link cannot both have it."""
    # One table only: PostgreSQL checks a plain UPDATE's conditions again on the row a concurrent one
    # just changed, but a condition on a joined table (the project's) would turn it into a subquery
    # read once, and two racers could both pass (the test that races eight found it). The project's
    # being open is checked by ``Invitation.refusal`` before.
    usable = Q(max_uses__isnull=True) | Q(uses__lt=F("max_uses"))
    counted = Invitation.objects.filter(
        usable, pk=invitation.pk, revoked=False, expires_at__gt=timezone.now()
    ).update(uses=F("uses") + 1)
    return counted == 1


def accept_invitation(invitation: Invitation, user) -> tuple[Membership, bool]:
    """Make ``user`` an annotator through the link; AccountError if the link cannot be used. Someone
    who is already a member uses nothing up."""
    refusal = invitation.refusal()
    if refusal:
        raise AccountError(refusal)
    member = Membership.objects.filter(project=invitation.project, annotator=user).first()
    if member is not None:
        return member, False
    if not use_invitation(invitation):
        raise AccountError(
            Invitation.objects.get(pk=invitation.pk).refusal() or "This invitation cannot be used."
        )
    return join_project(invitation.project, user, Membership.JoinedVia.INVITATION, invitation)


# -- sign-up codes -------------------------------------------------------------------------------


def project_for_code(code: str) -> Project | None:
    """The open project whose sign-up is enabled with this code, or None."""
    code = normalise_code(code)
    if not code:
        return None
    return Project.objects.filter(signup_code=code, signup_enabled=True, active=True).first()


def renew_signup_code(project: Project) -> str:
    """Give the project a new code (the old one stops working at once) and enable sign-up."""
    for _ in range(5):  # a clash with another project's code is ~10^-14; retried all the same
        code = generate_signup_code()
        try:
            with transaction.atomic():
                Project.objects.filter(pk=project.pk).update(signup_code=code, signup_enabled=True)
        except IntegrityError:
            continue
        project.signup_code, project.signup_enabled = code, True
        return code
    raise AccountError("could not make a new code; try again")


def set_signup_enabled(project: Project, enabled: bool) -> None:
    """Switch sign-up with the code on or off; switching on a project without a code makes one."""
    if enabled and not project.signup_code:
        renew_signup_code(project)
        return
    Project.objects.filter(pk=project.pk).update(signup_enabled=enabled)
    project.signup_enabled = enabled
