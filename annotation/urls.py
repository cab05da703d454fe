from django.urls import path, register_converter

from . import account_views, researcher_views, views


class DownloadFormat:
    regex = "csv|jsonl"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(DownloadFormat, "download")


urlpatterns = [
    # Annotators
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
    # Coming in: sign-up with a project code, invitation links (public)
    path("signup/", account_views.signup, name="signup"),
    path("invite/<str:token>/", account_views.invitation, name="invitation"),
    # Researchers
    path("projects/new/", researcher_views.project_new, name="project-new"),
    path("projects/<int:project_id>/settings/", researcher_views.project_settings, name="project-settings"),
    path(
        "projects/<int:project_id>/progress.json", researcher_views.project_progress, name="project-progress"
    ),
    path("projects/<int:project_id>/members/add/", researcher_views.member_add, name="member-add"),
    path(
        "projects/<int:project_id>/members/<int:user_id>/block/",
        researcher_views.member_block,
        name="member-block",
    ),
    path(
        "projects/<int:project_id>/members/<int:user_id>/unblock/",
        researcher_views.member_unblock,
        name="member-unblock",
    ),
    path("projects/<int:project_id>/items/lower-k/", researcher_views.lower_k, name="lower-k"),
    path("projects/<int:project_id>/annotators/", account_views.annotators_page, name="project-annotators"),
    path("projects/<int:project_id>/annotators/accounts/", account_views.accounts_new, name="accounts-new"),
    path("projects/<int:project_id>/invitations/", account_views.invitation_new, name="invitation-new"),
    path(
        "projects/<int:project_id>/invitations/<int:invitation_id>/revoke/",
        account_views.invitation_revoke,
        name="invitation-revoke",
    ),
    path("projects/<int:project_id>/signup-code/", account_views.signup_code, name="signup-code"),
    path(
        "projects/<int:project_id>/judgements.<download:fmt>",
        researcher_views.judgements_download,
        name="judgements-download",
    ),
]
