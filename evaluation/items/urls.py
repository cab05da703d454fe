"""URLs of items: its pages and API (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import path

from evaluation.items import api as item_api
from evaluation.items import views as item_views

urlpatterns = [
    path("projects/<int:project_id>/items/", item_views.items_page, name="items-page"),
    path("projects/<int:project_id>/items/<int:task_id>/", item_views.item_page, name="item-page"),
    path(
        "projects/<int:project_id>/items/<int:task_id>/adjudicate/",
        item_views.adjudicate,
        name="item-adjudicate",
    ),
    path("api/projects/<int:project_pk>/items/", item_api.ItemList.as_view(), name="items-api"),
    path("api/projects/<int:project_pk>/items/<int:pk>/", item_api.ItemDetailView.as_view(), name="item-api"),
    path(
        "api/projects/<int:project_pk>/items/<int:pk>/adjudication/",
        item_api.AdjudicationView.as_view(),
        name="item-adjudication-api",
    ),
]
