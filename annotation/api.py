"""REST API of projects for researchers and scripts (token or session auth); the collection import
and everything derived from judgements are ``evaluation.api``'s."""

from __future__ import annotations

from rest_framework import mixins, viewsets

from .models import Project
from .permissions import IsResearcher
from .serializers import ProjectSerializer


class ProjectViewSet(
    mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Projects of the requesting researcher.

    Security behavior: only researchers (group ``researchers`` or superusers) may use these
    endpoints; each sees and changes only the projects they own — anyone else's is a 404.
    """

    serializer_class = ProjectSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular reading the types: no user
            return Project.objects.none()
        return Project.objects.filter(owner_id=self.request.user.pk).prefetch_related("annotators")

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)
