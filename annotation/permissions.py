"""Roles. A researcher owns projects; an annotator judges the projects they are a member of."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from rest_framework.permissions import BasePermission

from .models import Project

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
