"""URLs of accounts: its pages and API (included from annotation.urls)."""

from __future__ import annotations

from django.urls import path

from annotation.accounts import api as account_api
from annotation.accounts import crowd_views
from annotation.accounts import views as account_views

urlpatterns = [
    path("signup/", account_views.signup, name="signup"),
    path("invite/<str:token>/", account_views.invitation, name="invitation"),
    path("projects/<int:project_id>/annotators/", account_views.annotators_page, name="project-annotators"),
    path("projects/<int:project_id>/annotators/accounts/", account_views.accounts_new, name="accounts-new"),
    path("projects/<int:project_id>/invitations/", account_views.invitation_new, name="invitation-new"),
    path(
        "projects/<int:project_id>/invitations/<int:invitation_id>/revoke/",
        account_views.invitation_revoke,
        name="invitation-revoke",
    ),
    path(
        "projects/<int:project_id>/demographics.csv",
        crowd_views.demographics_file,
        name="demographics-file",
    ),
    path(
        "projects/<int:project_id>/annotators/<int:user_id>/erase/",
        crowd_views.erase,
        name="erase-personal-data",
    ),
    path(
        "api/projects/<int:project_pk>/demographics/",
        account_api.DemographicsView.as_view(),
        name="demographics-api",
    ),
    path(
        "api/projects/<int:project_pk>/annotators/<int:user_pk>/erase/",
        account_api.ErasureView.as_view(),
        name="erasure-api",
    ),
    path("projects/<int:project_id>/study-links/", account_views.study_link_new, name="study-link-new"),
    path(
        "projects/<int:project_id>/study-links/<int:link_id>/close/",
        account_views.study_link_close,
        name="study-link-close",
    ),
    path(
        "projects/<int:project_id>/study-links/<int:link_id>/external-question.xml",
        crowd_views.external_question,
        name="study-link-external-question",
    ),
    path("projects/<int:project_id>/signup-code/", account_views.signup_code, name="signup-code"),
    path("api/projects/<int:project_pk>/accounts/", account_api.AccountsView.as_view(), name="accounts-api"),
    path(
        "api/projects/<int:project_pk>/study-links/",
        account_api.StudyLinksView.as_view(),
        name="study-links-api",
    ),
    path(
        "api/projects/<int:project_pk>/study-links/<int:link_pk>/",
        account_api.StudyLinkView.as_view(),
        name="study-link-api",
    ),
    path(
        "api/projects/<int:project_pk>/invitations/",
        account_api.InvitationsView.as_view(),
        name="invitations-api",
    ),
]
