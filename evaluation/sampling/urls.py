"""URLs of sampling simulations (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import path

from evaluation.sampling import api, views
from evaluation.scoring import plot_urls  # noqa: F401 - registers the image_format converter

urlpatterns = [
    path("projects/<int:project_id>/sampling-simulations/", views.simulations, name="sampling-simulations"),
    path(
        "projects/<int:project_id>/sampling-simulations/<int:simulation_id>/plot.<image_format:fmt>",
        views.simulation_plot,
        name="sampling-simulation-plot",
    ),
    path(
        "api/projects/<int:project_pk>/sampling-simulations/",
        api.SimulationsView.as_view(),
        name="sampling-simulations-api",
    ),
    path(
        "api/projects/<int:project_pk>/sampling-simulations/<int:simulation_pk>/",
        api.SimulationView.as_view(),
        name="sampling-simulation-api",
    ),
]
