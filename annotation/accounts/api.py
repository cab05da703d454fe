"""The Annotators page's actions over the API: create annotator accounts that join a project, and make
invitation links (each shown once, in the answer).

Security behavior, for every view here: a researcher's token or session, the project's owner only
(anyone else, researcher or not, gets 404 with no hint that the project exists; an annotator 403).
The accounts made are plain accounts (no staff, researcher or admin rights); a chosen password
passes Django's validators; passwords and tokens are stored only hashed and the answers are never
cached.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.accounts.joining import AccountError, create_accounts, create_invitation, parse_account_lines
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
