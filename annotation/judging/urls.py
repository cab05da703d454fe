"""URLs of judging: its pages and API (included from annotation.urls)."""

from __future__ import annotations

from django.urls import path

from annotation.judging import consent_views, study_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("projects/<int:project_id>/judge/", views.judge, name="judge"),
    path("projects/<int:project_id>/next/", views.claim, name="claim"),
    path("projects/<int:project_id>/assignments/<int:assignment_id>/submit/", views.submit, name="submit"),
    path("projects/<int:project_id>/assignments/<int:assignment_id>/skip/", views.skip, name="skip"),
    path("projects/<int:project_id>/history/", views.history, name="history"),
    path(
        "projects/<int:project_id>/judgements/<int:judgement_id>/edit/",
        views.edit_judgement,
        name="edit-judgement",
    ),
    path("projects/<int:project_id>/qualification/", views.qualification, name="qualification"),
    path("projects/<int:project_id>/consent/", consent_views.consent, name="consent"),
    path("projects/<int:project_id>/about-you/", consent_views.about_you, name="about-you"),
    path("study/<str:slug>/", study_views.study, name="study"),
    path("study/<str:slug>/done/", study_views.study_done, name="study-done"),
]
