"""Pages and API of the annotation app (included from cranfield.urls): each feature keeps its own URLs,
this lists them."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [
    path("", include("annotation.judging.urls")),
    path("", include("annotation.accounts.urls")),
    path("", include("annotation.projects.urls")),
    path("", include("annotation.pay.urls")),
]
