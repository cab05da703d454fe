"""URLs of projects: its pages and API (included from annotation.urls)."""

from __future__ import annotations

from django.urls import path, register_converter

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
    path(
        "projects/<int:project_id>/judgements.<download:fmt>",
        researcher_views.judgements_download,
        name="judgements-download",
    ),
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
