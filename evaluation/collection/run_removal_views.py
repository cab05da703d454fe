"""Pages and API of undoing a run (``evaluation.collection.run_removal``): withdraw (off the leaderboard,
kept), reinstate, delete. Each has a confirmation page — GET shows what will go, with the choice of what
becomes of the unjudged items only this run pooled; POST does it — and an API endpoint whose dry run
answers the same plan. The runs are scored again afterwards, so the leaderboard follows.

Security behavior, for every view here: the project's owner only (``owned_project``: anyone else gets
404; the API refuses non-researchers, 403); state changes only on POST or DELETE.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.permissions import AuthenticatedHttpRequest, IsResearcher, owned_project
from annotation.projects.history import Refused
from annotation.projects.removal_views import (
    CHANGE_RESPONSES,
    DryRunSerializer,
    change_response,
    confirmation,
    done_or_refused,
)
from evaluation.collection.run_removal import (
    UNJUDGED_ITEMS,
    delete_run,
    plan_deletion,
    plan_reinstatement,
    plan_withdrawal,
    reinstate,
    unjudged_choice,
    withdraw,
)
from evaluation.collection.runs_api import RunDetailView
from evaluation.models import Run

UNJUDGED_CHOICES = {
    "name": "unjudged_items",
    "legend": "Unjudged items only this run pooled (judged items always stay)",
    "options": [("keep", "Keep them, to be judged"), ("remove", "Remove them from the pool")],
}


def _run_page(request, project_id: int, run_id: int, action: str) -> HttpResponse:
    project = owned_project(request.user, project_id)
    run = get_object_or_404(Run, pk=run_id, project=project)
    runs = reverse("runs-page", args=[project.pk])
    source = request.POST if request.method == "POST" else request.GET
    try:
        unjudged = unjudged_choice(source.get("unjudged_items"))
    except Refused:
        unjudged = "keep"
    if request.method == "POST":
        work = {
            "withdraw": lambda: withdraw(run, request.user, unjudged),
            "reinstate": lambda: reinstate(run, request.user),
            "delete": lambda: delete_run(run, request.user, unjudged),
        }[action]
        return done_or_refused(request, work, runs, reverse("run-page", args=[project.pk, run.pk]))
    change = {
        "withdraw": lambda: plan_withdrawal(run, unjudged),
        "reinstate": lambda: plan_reinstatement(run),
        "delete": lambda: plan_deletion(run, unjudged),
    }[action]()
    removable = change.details.get("pooled_items", 0) and action != "reinstate"
    return confirmation(
        request,
        project,
        change,
        title=f"{action.capitalize()} run {run.tag}",
        button=f"{action.capitalize()} it",
        back=reverse("run-page", args=[project.pk, run.pk]),
        choices=UNJUDGED_CHOICES | {"chosen": unjudged} if removable else None,
    )


@login_required
@require_http_methods(["GET", "POST"])
def run_withdraw(request: AuthenticatedHttpRequest, project_id: int, run_id: int) -> HttpResponse:
    """Confirm (GET) and withdraw (POST) a run: off the leaderboard, kept, to be reinstated at will."""
    return _run_page(request, project_id, run_id, "withdraw")


@login_required
@require_http_methods(["GET", "POST"])
def run_reinstate(request: AuthenticatedHttpRequest, project_id: int, run_id: int) -> HttpResponse:
    """Confirm (GET) and reinstate (POST) a withdrawn run."""
    return _run_page(request, project_id, run_id, "reinstate")


@login_required
@require_http_methods(["GET", "POST"])
def run_delete(request: AuthenticatedHttpRequest, project_id: int, run_id: int) -> HttpResponse:
    """Confirm (GET) and delete (POST) a run with its lines and scores."""
    return _run_page(request, project_id, run_id, "delete")


class RunRemovalSerializer(DryRunSerializer):
    unjudged_items = serializers.ChoiceField(
        choices=UNJUDGED_ITEMS,
        default="keep",
        help_text="the unjudged items only this run pooled: keep them (to be judged) or remove them; "
        "judged items always stay",
    )


def _owned_run(request: Request, project_pk: int, pk: int) -> Run:
    return get_object_or_404(Run, pk=pk, project=owned_project(request.user, project_pk))


class RunWithdrawView(APIView):
    """Withdraw a run: it leaves the leaderboard (the runs are scored again without it) and is kept, to
    be reinstated. ``dry_run``: what would change. A run withdrawn already is a 409."""

    permission_classes = [IsResearcher]

    @extend_schema(request=RunRemovalSerializer, responses=CHANGE_RESPONSES)
    def post(self, request: Request, project_pk: int, pk: int) -> Response:
        run = _owned_run(request, project_pk, pk)
        body = RunRemovalSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        unjudged = body.validated_data["unjudged_items"]
        return change_response(
            lambda: withdraw(run, request.user, unjudged),
            body.validated_data["dry_run"],
            lambda: plan_withdrawal(run, unjudged),
        )


class RunReinstateView(APIView):
    """Reinstate a withdrawn run: scored again and back on the leaderboard. A run not withdrawn is a 409."""

    permission_classes = [IsResearcher]

    @extend_schema(request=DryRunSerializer, responses=CHANGE_RESPONSES)
    def post(self, request: Request, project_pk: int, pk: int) -> Response:
        run = _owned_run(request, project_pk, pk)
        body = DryRunSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return change_response(
            lambda: reinstate(run, request.user),
            body.validated_data["dry_run"],
            lambda: plan_reinstatement(run),
        )


class RunView(RunDetailView):
    """GET: one run. DELETE: delete it with its lines and scores (``?dry_run=true``: what would go;
    ``?unjudged_items=remove``: the unjudged items only it pooled go too; judged items always stay)."""

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "dry_run", bool, required=False, description="true: what would go; nothing changes"
            ),
            OpenApiParameter("unjudged_items", str, enum=list(UNJUDGED_ITEMS), required=False),
        ],
        responses=CHANGE_RESPONSES,
    )
    def delete(self, request: Request, project_pk: int, pk: int) -> Response:
        run = _owned_run(request, project_pk, pk)
        dry_run = request.query_params.get("dry_run", "false").lower()
        if dry_run not in {"true", "false", "1", "0"}:
            return Response({"dry_run": ["must be true or false"]}, status=400)
        try:
            unjudged = unjudged_choice(request.query_params.get("unjudged_items"))
        except Refused as refused:
            return Response({refused.field: [refused.message]}, status=refused.status)
        return change_response(
            lambda: delete_run(run, request.user, unjudged),
            dry_run in {"true", "1"},
            lambda: plan_deletion(run, unjudged),
        )
