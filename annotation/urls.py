from django.urls import path, register_converter

from . import researcher_views, views


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
    path(
        "projects/<int:project_id>/judgements.<download:fmt>",
        researcher_views.judgements_download,
        name="judgements-download",
    ),
]
