from django.urls import path, register_converter

from annotation.accounts import views as account_views
from annotation.judging import views
from annotation.projects import removal_views
from annotation.projects import views as researcher_views


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
    # Undoing mistakes: a confirmation page each (GET: what will go; POST: do it), and the history
    path("projects/<int:project_id>/topics/", removal_views.topics_page, name="topics-page"),
    path("projects/<int:project_id>/topics/delete/", removal_views.topics_delete, name="topics-delete"),
    path("projects/<int:project_id>/documents/", removal_views.documents_page, name="documents-page"),
    path(
        "projects/<int:project_id>/documents/delete/", removal_views.documents_delete, name="documents-delete"
    ),
    path("projects/<int:project_id>/archive/", removal_views.project_archive, name="project-archive"),
    path("projects/<int:project_id>/unarchive/", removal_views.project_unarchive, name="project-unarchive"),
    path(
        "projects/<int:project_id>/leases/<int:assignment_id>/release/",
        removal_views.lease_release,
        name="lease-release",
    ),
    path("projects/<int:project_id>/events/", removal_views.events_page, name="events-page"),
    path(
        "api/projects/<int:project_pk>/topics/delete/",
        removal_views.TopicDeletionView.as_view(),
        name="topics-delete-api",
    ),
    path(
        "api/projects/<int:project_pk>/documents/delete/",
        removal_views.DocumentDeletionView.as_view(),
        name="documents-delete-api",
    ),
    path("api/projects/<int:project_pk>/archive/", removal_views.ArchiveView.as_view(), name="archive-api"),
    path(
        "api/projects/<int:project_pk>/unarchive/",
        removal_views.UnarchiveView.as_view(),
        name="unarchive-api",
    ),
    path("api/projects/<int:project_pk>/leases/", removal_views.LeaseList.as_view(), name="leases-api"),
    path(
        "api/projects/<int:project_pk>/leases/<int:pk>/release/",
        removal_views.LeaseReleaseView.as_view(),
        name="lease-release-api",
    ),
    path("api/projects/<int:project_pk>/events/", removal_views.EventList.as_view(), name="events-api"),
]
