"""Roles. A researcher owns projects; an annotator judges the projects they are a member of."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from rest_framework.permissions import BasePermission

from annotation.models import Project

if TYPE_CHECKING:
    from django.contrib.auth.models import User

RESEARCHERS_GROUP = "researchers"


def is_researcher(user) -> bool:
    return bool(
        user.is_authenticated and (user.is_superuser or user.groups.filter(name=RESEARCHERS_GROUP).exists())
    )


class IsResearcher(BasePermission):
    message = "Only researchers may manage projects."

    def has_permission(self, request, view) -> bool:
        return is_researcher(request.user)


class AuthenticatedHttpRequest(HttpRequest):
    """The request of a view behind ``login_required``: its user is an account, never anonymous."""

    user: User


def owned_project(user, project_id: int) -> Project:
    """The project if ``user`` owns it; Http404 otherwise, with no hint that it exists.

    The one ownership rule of every researcher page and API endpoint (an anonymous user owns none).
    """
    return get_object_or_404(Project, pk=project_id, owner_id=user.pk)


def project_way_back(user, project_id: int) -> tuple[str, str] | None:
    """Where someone who met an error under a project's address may go back to, as (url, text): the
    project's page for its owner, its judging page for its annotators; None for anyone else, so that
    an error page says nothing of a project its visitor may not see."""
    project = Project.objects.filter(pk=project_id).only("name", "owner_id").first()
    if project is None:
        return None
    if project.owner_id == user.pk:
        return reverse("project-page", args=[project.pk]), f"Back to the project “{project.name}”"
    if project.memberships.filter(annotator_id=user.pk).exists():
        return reverse("judge", args=[project.pk]), f"Back to judging “{project.name}”"
    return None
