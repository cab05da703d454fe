"""Pages that bring annotators into a project: the researcher's Annotators page (accounts, invitation
links, the sign-up code) and the public pages an annotator comes in through (an invitation link,
sign-up with a project code). The work is ``annotation.accounts.joining``'s; these only read and answer.
State changes only on POST.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.authtoken.models import Token

from annotation.accounts.crowd_views import link_rows
from annotation.accounts.forms import (
    AccountCreationForm,
    AccountsForm,
    InvitationForm,
    JoinWithCodeForm,
    SignupForm,
    StudyLinkForm,
)
from annotation.accounts.joining import (
    AccountError,
    accept_invitation,
    create_accounts,
    create_invitation,
    display_code,
    find_invitation,
    join_project,
    renew_signup_code,
    set_signup_enabled,
    use_invitation,
)
from annotation.crowd.questionnaire import summarise
from annotation.judging.coverage import eligible_memberships, project_coverage
from annotation.judging.platforms import create_link
from annotation.models import DemographicResponse, Invitation, Membership, Project, StudyLink
from annotation.permissions import AuthenticatedHttpRequest, is_researcher, owned_project
from annotation.throttling.throttle import failures, throttled

# Sign-up logs the new account in through Django's own backend (axes' guards passwords typed at login).
LOGIN_BACKEND = "django.contrib.auth.backends.ModelBackend"


def welcome(request: HttpRequest, project: Project, created: bool) -> HttpResponse:
    if created:
        messages.success(request, f"Welcome! You now annotate “{project.name}”.")
    else:
        messages.info(request, f"You already annotate “{project.name}”.")
    return redirect("judge", project_id=project.pk)


# -- the researcher's pages ----------------------------------------------------------------------


def invitation_rows(project: Project) -> list[dict]:
    now = timezone.now()
    return [
        {"invitation": invitation, "refusal": invitation.refusal(now)}
        for invitation in project.invitations.select_related("project")[:100]
    ]


def demographics_summary(project: Project) -> dict | None:
    if not project.demographics:
        return None
    answers = list(DemographicResponse.objects.filter(project=project).values_list("answers", flat=True))
    return {"responses": len(answers), "questions": summarise(project.demographics, answers)}


def render_annotators_page(
    request: AuthenticatedHttpRequest,
    project: Project,
    invitation_form: InvitationForm | None = None,
    study_link_form: StudyLinkForm | None = None,
) -> HttpResponse:
    eligible = set(eligible_memberships(project).values_list("pk", flat=True))
    members = [
        {"membership": member, "eligible": member.pk in eligible}
        for member in Membership.objects.filter(project=project)
        .select_related("annotator", "invitation")
        .order_by("annotator__username")
    ]
    signup_url = request.build_absolute_uri(reverse("signup"))
    return render(
        request,
        "annotation/annotators.html",
        {
            "project": project,
            "coverage": project_coverage(project),
            "members": members,
            "invitations": invitation_rows(project),
            "invitation_form": invitation_form or InvitationForm(),
            "code": display_code(project.signup_code),
            "signup_url": signup_url,
            "study_links": link_rows(request, project),
            "demographics": demographics_summary(project),
            "study_link_form": study_link_form or StudyLinkForm(),
        },
    )


@login_required
@require_http_methods(["GET"])
def annotators_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Who annotates the project and how they came in; the ways to bring more in.

    Security behavior: the project's owner only (anyone else gets 404). Invitation links are not
    shown here (only their hash is stored); the sign-up code is, to its owner.
    """
    project = owned_project(request.user, project_id)
    return render_annotators_page(request, project)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def accounts_new(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Create annotator accounts that join the project; their passwords are shown once, on the answer.

    Security behavior: the project's owner only (anyone else gets 404). The accounts are plain
    accounts (no staff, researcher or admin rights); a given password passes Django's validators;
    the answer is never cached, and the passwords are stored only hashed.
    """
    project = owned_project(request.user, project_id)
    form = AccountsForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            created = create_accounts(project, form.cleaned_data["accounts"], form.cleaned_data["password"])
        except AccountError as error:
            form.add_error(error.field or "accounts", str(error))
        else:
            return render(
                request,
                "annotation/accounts_created.html",
                {
                    "project": project,
                    "created": created,
                    "login_url": request.build_absolute_uri(reverse("login")),
                },
            )
    return render(request, "annotation/accounts_new.html", {"project": project, "form": form})


@never_cache
@login_required
@require_POST
def invitation_new(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Make an invitation link; it is shown once, on the answer.

    Security behavior: the project's owner only (anyone else gets 404); the link holds a random
    token of which only a hash is stored; the answer is never cached.
    """
    project = owned_project(request.user, project_id)
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return render_annotators_page(request, project, invitation_form=form)
    invitation, token = create_invitation(
        project,
        request.user,
        max_uses=form.cleaned_data["max_uses"],
        days=form.cleaned_data["days"],
        note=form.cleaned_data["note"],
    )
    link = request.build_absolute_uri(reverse("invitation", args=[token]))
    return render(
        request,
        "annotation/invitation_created.html",
        {"project": project, "invitation": invitation, "link": link},
    )


@login_required
@require_POST
def invitation_revoke(request: AuthenticatedHttpRequest, project_id: int, invitation_id: int) -> HttpResponse:
    """Withdraw an invitation link: it lets nobody else in (those who came in through it stay).

    Security behavior: the project's owner only; another project's invitation is a 404.
    """
    project = owned_project(request.user, project_id)
    invitation = get_object_or_404(Invitation, pk=invitation_id, project=project)
    Invitation.objects.filter(pk=invitation.pk).update(revoked=True)
    messages.success(
        request, f"The invitation{f' “{invitation.note}”' if invitation.note else ''} is withdrawn."
    )
    return redirect("project-annotators", project_id=project.pk)


@login_required
@require_POST
def signup_code(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Switch sign-up with the project code on or off, or replace the code (the old one stops working).

    Security behavior: the project's owner only (anyone else gets 404).
    """
    project = owned_project(request.user, project_id)
    action = request.POST.get("action")
    if action == "renew":
        renew_signup_code(project)
        messages.success(
            request, f"New code {display_code(project.signup_code)}: the old one no longer works."
        )
    elif action in {"enable", "disable"}:
        set_signup_enabled(project, action == "enable")
        messages.success(request, "Sign-up with the code is " + ("on." if action == "enable" else "off."))
    else:
        messages.error(request, "Choose to switch sign-up on or off, or to make a new code.")
    return redirect("project-annotators", project_id=project.pk)


@login_required
@require_POST
def study_link_new(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Make a study link. Security behavior: the project's owner only (anyone else gets 404)."""
    project = owned_project(request.user, project_id)
    form = StudyLinkForm(request.POST)
    if not form.is_valid():
        return render_annotators_page(request, project, study_link_form=form)
    link = create_link(project, request.user, **form.cleaned_data)
    messages.success(
        request, f"The {link.get_platform_display()} link is ready: give its address to the platform."
    )
    return redirect(f"{reverse('project-annotators', args=[project.pk])}#study-links")


@login_required
@require_POST
def study_link_close(request: AuthenticatedHttpRequest, project_id: int, link_id: int) -> HttpResponse:
    """Close (or open again) a study link: closed, it lets no one start a session; sessions under way
    end at their next task. Security behavior: the project's owner only; another project's link is a 404."""
    project = owned_project(request.user, project_id)
    link = get_object_or_404(StudyLink, pk=link_id, project=project)
    reopen = request.POST.get("action") == "open"
    StudyLink.objects.filter(pk=link.pk).update(active=reopen)
    messages.success(request, f"The {link.get_platform_display()} link is {'open' if reopen else 'closed'}.")
    return redirect(f"{reverse('project-annotators', args=[project.pk])}#study-links")


# -- the public pages an annotator comes in through ------------------------------------------------


@never_cache
@throttled("signup", guesses=True)
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    """Sign up with a project code (or, logged in, join with one): the account becomes an annotator
    of the code's project.

    Security behavior: open to anyone while the code's project is open and its sign-up is switched
    on; throttled per address (attempts, and wrong codes); the new account is a plain account with
    a password Django's validators accept, and is logged in at once.
    """
    logged_in = request.user.is_authenticated
    initial = {"code": request.GET.get("code", "")}
    form_class = JoinWithCodeForm if logged_in else SignupForm
    form = form_class(request.POST or None, initial=initial)
    if request.method == "POST":
        if form.is_valid():
            project = form.cleaned_data["code"]
            if not isinstance(form, SignupForm):  # logged in: joins as the account they have
                _member, created = join_project(project, request.user, Membership.JoinedVia.SIGNUP_CODE)
                return welcome(request, project, created)
            user = save_account(form)
            if user is not None:
                join_project(project, user, Membership.JoinedVia.SIGNUP_CODE)
                login(request, user, backend=LOGIN_BACKEND)
                return welcome(request, project, True)
        if form.wrong_code:
            failures().count(request)
    return render(request, "registration/signup.html", {"form": form, "logged_in": logged_in})


def save_account(form: AccountCreationForm):
    """The form's new account, or None with an error on the form if its name was taken meanwhile."""
    try:
        with transaction.atomic():
            return form.save()
    except IntegrityError:
        form.add_error("username", "That username was taken a moment ago; choose another.")
        return None


@never_cache
@throttled("invitation", guesses=True)
@require_http_methods(["GET", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation link: a new account joins the project (or, logged in, one's own account does).

    Security behavior: open to whoever holds a link that is neither expired, used up nor withdrawn,
    of an open project; a single-use link lets exactly one person in, even when two race for it;
    unknown links posted to are throttled per address as wrong guesses (not GETs, which any page can
    send); the new account is a plain account with a password Django's validators accept, and is
    logged in at once.
    """
    found = find_invitation(token)
    if found is None:
        if request.method == "POST":  # a GET can be sent by any page (an <img>): it guesses nothing
            failures().count(request)
        return invitation_refused(request, "This invitation link is not valid.", None, status=404)
    project = found.project
    refusal = found.refusal()
    if refusal:
        return invitation_refused(request, refusal, project)
    if request.user.is_authenticated:
        if request.method == "POST":
            try:
                return welcome(request, project, accept_invitation(found, request.user)[1])
            except AccountError as error:
                return invitation_refused(request, str(error), project)
        return render(request, "registration/invitation.html", {"project": project, "invitation": found})
    form = AccountCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            # The use first: if the last one went to someone else a moment ago, no account is made.
            if not use_invitation(found):
                return invitation_refused(request, "This invitation has just been used up.", project)
            user = save_account(form)
            if user is None:
                transaction.set_rollback(True)  # the use is given back with the savepoint
            else:
                join_project(project, user, Membership.JoinedVia.INVITATION, found)
                login(request, user, backend=LOGIN_BACKEND)
                return welcome(request, project, True)
    return render(
        request, "registration/invitation.html", {"project": project, "invitation": found, "form": form}
    )


def invitation_refused(
    request: HttpRequest, reason: str, project: Project | None, status: int = 410
) -> HttpResponse:
    return render(
        request, "registration/invitation.html", {"refusal": reason, "project": project}, status=status
    )


# Django's password reset, throttled like sign-up: each request may send an email.
password_reset = throttled("password-reset")(auth_views.PasswordResetView.as_view())


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def api_token(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The researcher's API token for scripts: made or replaced on POST, shown on that answer only.

    Security behavior: researchers only (others get 403); each sees and replaces only their own
    token; replacing it stops the old one at once; the page is never cached.
    """
    if not is_researcher(request.user):
        raise PermissionDenied("Only researchers use the API.")
    token = None
    if request.method == "POST":
        Token.objects.filter(user=request.user).delete()
        token = Token.objects.create(user=request.user).key
    has_token = token is not None or Token.objects.filter(user=request.user).exists()
    return render(request, "registration/api_token.html", {"token": token, "has_token": has_token})
