from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("projects/<int:project_id>/", views.project_detail, name="project-page"),
    path("projects/<int:project_id>/judge/", views.judge, name="judge"),
    path("projects/<int:project_id>/next/", views.claim, name="claim"),
    path("projects/<int:project_id>/assignments/<int:assignment_id>/submit/", views.submit, name="submit"),
    path(
        "projects/<int:project_id>/snapshots/<int:version>/qrels/",
        views.snapshot_qrels,
        name="snapshot-qrels",
    ),
]
