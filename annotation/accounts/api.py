"""The Annotators page's actions over the API: create annotator accounts that join a project, make
invitation links (each shown once, in the answer), and make, list and close crowd platforms' study links.

Security behavior, for every view here: a researcher's token or session, the project's owner only
(anyone else, researcher or not, gets 404 with no hint that the project exists; an annotator 403).
The accounts made are plain accounts (no staff, researcher or admin rights); a chosen password
passes Django's validators; passwords and tokens are stored only hashed and the answers are never
cached.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.erasure import erase_personal_data
from annotation.accounts.forms import StudyLinkForm
from annotation.accounts.joining import AccountError, create_accounts, create_invitation, parse_account_lines
from annotation.accounts.views import demographics_summary
from annotation.judging.platforms import create_link, external_question_xml, hit_settings, study_url
from annotation.models import Membership, StudyLink, StudySession
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser
from annotation.serializers import StrictSerializer


class AccountsInSerializer(StrictSerializer):
    accounts = serializers.ListField(
        child=serializers.CharField(max_length=300, trim_whitespace=True),
        min_length=1,
        max_length=1000,
        help_text="one per account: a username, optionally followed by an email address "
        '("maria maria@example.org")',
    )
    password = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        trim_whitespace=False,
        help_text="for a single account only",
    )


class InvitationInSerializer(StrictSerializer):
    max_uses = serializers.IntegerField(
        min_value=1, max_value=10_000, required=False, allow_null=True, default=1
    )
    days = serializers.IntegerField(min_value=1, max_value=90, default=7)
    note = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


@method_decorator(never_cache, name="dispatch")
class AccountsView(APIView):
    """Create annotator accounts that join the project (all or nothing): 201 with each account's
    username, email and password (generated unless one was chosen for a single account), shown once."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(
        request=AccountsInSerializer, responses={201: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT}
    )
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        given = AccountsInSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            # Item n of the list is line n of the page's form: the errors name it as "line n".
            requested = parse_account_lines("\n".join(given.validated_data["accounts"]))
            created = create_accounts(project, requested, given.validated_data["password"])
        except AccountError as error:
            message = (
                str(error).replace("line ", "item ", 1) if str(error).startswith("line ") else str(error)
            )
            return Response({error.field or "accounts": [message]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {
                "project": project.pk,
                "login_url": request.build_absolute_uri(reverse("login")),
                "created": [
                    {
                        "username": a.username,
                        "email": a.email,
                        "password": a.password,
                        "generated": a.generated,
                    }
                    for a in created
                ],
            },
            status=status.HTTP_201_CREATED,
        )


@method_decorator(never_cache, name="dispatch")
class InvitationsView(APIView):
    """Make an invitation link to the project: 201 with the link (shown once; only its hash is kept),
    how many may use it (null: anyone until it expires) and when it expires."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(
        request=InvitationInSerializer, responses={201: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT}
    )
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        given = InvitationInSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        invitation, token = create_invitation(
            project,
            request.user,
            max_uses=given.validated_data["max_uses"],
            days=given.validated_data["days"],
            note=given.validated_data["note"],
        )
        return Response(
            {
                "id": invitation.pk,
                "link": request.build_absolute_uri(reverse("invitation", args=[token])),
                "max_uses": invitation.max_uses,
                "expires_at": invitation.expires_at.isoformat(),
                "note": invitation.note,
            },
            status=status.HTTP_201_CREATED,
        )


def link_json(request: Request, link: StudyLink) -> dict:
    base = request.build_absolute_uri(reverse("study", args=[link.slug]))
    answer = {
        "id": link.pk,
        "platform": link.platform,
        "note": link.note,
        "url": study_url(base, link.platform),
        "active": link.active,
        "tasks_per_session": link.tasks_per_session,
        "minutes_per_session": link.minutes_per_session,
        "sessions_per_worker": link.sessions_per_worker,
        "completion_code": link.completion_code,
        "screenout_code": link.screenout_code,
        "return_url": link.return_url,
        "gold_failures_allowed": link.gold_failures_allowed,
        "sessions": {
            outcome: link.sessions.filter(outcome=outcome).count() for outcome in StudySession.Outcome.values
        },
        "created_at": link.created_at.isoformat(),
    }
    if link.platform == StudyLink.Platform.MTURK:
        answer["external_question"] = external_question_xml(base)
        answer["hit_settings"] = hit_settings(link, base)
    return answer


@method_decorator(never_cache, name="dispatch")
class StudyLinksView(APIView):
    """The project's study links for crowd platforms (GET), or a new one (POST: 201 with its address
    to give the platform; for MTurk also the ExternalQuestion XML and the CreateHIT settings).
    Fields as the Annotators page's form; a session needs a number of tasks, minutes, or both."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(operation_id="projects_study_links_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        return Response({"results": [link_json(request, link) for link in project.study_links.all()]})

    @extend_schema(
        request=OpenApiTypes.OBJECT, responses={201: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT}
    )
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        if not isinstance(request.data, dict):
            return Response({"non_field_errors": ["send a JSON object"]}, status=status.HTTP_400_BAD_REQUEST)
        unknown = sorted(set(request.data) - set(StudyLinkForm.Meta.fields))
        if unknown:
            return Response(
                {name: ["not a field of a study link"] for name in unknown},
                status=status.HTTP_400_BAD_REQUEST,
            )
        form = StudyLinkForm({name: "" if value is None else value for name, value in request.data.items()})
        if not form.is_valid():
            errors = {
                name: [e["message"] for e in found] for name, found in form.errors.get_json_data().items()
            }
            return Response(errors, status=status.HTTP_400_BAD_REQUEST)
        link = create_link(project, request.user, **form.cleaned_data)
        return Response(link_json(request, link), status=status.HTTP_201_CREATED)


class StudyLinkStateSerializer(StrictSerializer):
    active = serializers.BooleanField()


@method_decorator(never_cache, name="dispatch")
class StudyLinkView(APIView):
    """One study link (GET), or closed and opened again (PATCH ``{"active": false}``)."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int, link_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        return Response(link_json(request, get_object_or_404(StudyLink, pk=link_pk, project=project)))

    @extend_schema(request=StudyLinkStateSerializer, responses={200: OpenApiTypes.OBJECT})
    def patch(self, request: Request, project_pk: int, link_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        link = get_object_or_404(StudyLink, pk=link_pk, project=project)
        given = StudyLinkStateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        StudyLink.objects.filter(pk=link.pk).update(active=given.validated_data["active"])
        link.refresh_from_db()
        return Response(link_json(request, link))


@method_decorator(never_cache, name="dispatch")
class DemographicsView(APIView):
    """What the annotators said about themselves, in counts per question (no one named): answered,
    "prefer not to say", counts per choice, a number's quartiles (from five answers)."""

    permission_classes = [IsResearcher]

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        return Response(demographics_summary(project) or {"responses": 0, "questions": []})


@method_decorator(never_cache, name="dispatch")
class ErasureView(APIView):
    """Erase an annotator's personal data in the project (POST): their platform id and their answers
    about themselves; their judgements stay under their pseudonym, and the erasure is recorded."""

    permission_classes = [IsResearcher]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT})
    def post(self, request: Request, project_pk: int, user_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        member = get_object_or_404(
            Membership.objects.select_related("annotator"), project=project, annotator_id=user_pk
        )
        erased = erase_personal_data(project, member.annotator, request.user)
        return Response(
            {
                "annotator": erased.pseudonym,
                "platform_id_erased": erased.platform_id_erased,
                "answers_erased": erased.answers_erased,
                "detail": erased.summary,
            }
        )
