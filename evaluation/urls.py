"""Pages and API of the evaluation app (included from cranfield.urls)."""

from django.urls import include, path, register_converter

from evaluation import api, views
from evaluation.collection import api as collection_api
from evaluation.collection import run_removal_views, runs_api
from evaluation.items import api as item_api
from evaluation.items import views as item_views
from evaluation.scoring import api as scoring_api
from evaluation.scoring import views as scoring_views
from evaluation.texts import api as text_api
from evaluation.texts import meta_views, systems


class SnapshotDownload:
    regex = r"qrels|ratings\.csv|ratings\.json"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(SnapshotDownload, "snapshot_download")

job_list = api.GroundTruthJobViewSet.as_view({"get": "list"})
job_detail = api.GroundTruthJobViewSet.as_view({"get": "retrieve"})
snapshot_ratings = api.SnapshotViewSet.as_view({"get": "ratings"})

urlpatterns = [
    # Pages
    path("projects/<int:project_id>/", views.project_detail, name="project-page"),
    path("projects/<int:project_id>/import/", views.project_import, name="project-import"),
    path("projects/<int:project_id>/ground-truth/", views.ground_truth, name="ground-truth"),
    path("projects/<int:project_id>/ground-truth/recompute/", views.recompute, name="ground-truth-recompute"),
    path("projects/<int:project_id>/ground-truth/diff/", views.snapshot_diff, name="ground-truth-diff"),
    path(
        "projects/<int:project_id>/ground-truth/v<int:version>/<snapshot_download:kind>",
        views.snapshot_download,
        name="ground-truth-download",
    ),
    path("projects/<int:project_id>/agreement/", views.agreement, name="agreement-report"),
    path("projects/<int:project_id>/items/", item_views.items_page, name="items-page"),
    path("projects/<int:project_id>/items/<int:task_id>/", item_views.item_page, name="item-page"),
    path(
        "projects/<int:project_id>/items/<int:task_id>/adjudicate/",
        item_views.adjudicate,
        name="item-adjudicate",
    ),
    path("projects/<int:project_id>/systems/", systems.systems_page, name="systems-page"),
    path(
        "projects/<int:project_id>/meta-evaluation/", meta_views.meta_evaluation_page, name="meta-evaluation"
    ),
    path(
        "projects/<int:project_id>/meta-evaluation/scatter.<str:fmt>",
        meta_views.scatter_image,
        name="meta-evaluation-scatter",
    ),
    path("projects/<int:project_id>/runs/", scoring_views.runs, name="runs-page"),
    path("projects/<int:project_id>/runs/<int:run_id>/", scoring_views.run_detail, name="run-page"),
    path("projects/<int:project_id>/runs/<int:run_id>/run", scoring_views.run_download, name="run-download"),
    path(
        "projects/<int:project_id>/runs/<int:run_id>/withdraw/",
        run_removal_views.run_withdraw,
        name="run-withdraw",
    ),
    path(
        "projects/<int:project_id>/runs/<int:run_id>/reinstate/",
        run_removal_views.run_reinstate,
        name="run-reinstate",
    ),
    path(
        "projects/<int:project_id>/runs/<int:run_id>/delete/", run_removal_views.run_delete, name="run-delete"
    ),
    path("projects/<int:project_id>/evaluations/", scoring_views.evaluations, name="evaluations-page"),
    path("projects/<int:project_id>/external-qrels/", scoring_views.external_qrels, name="external-qrels"),
    path("projects/<int:project_id>/leaderboard/", scoring_views.leaderboard_page, name="leaderboard"),
    path(
        "projects/<int:project_id>/evaluations/<int:evaluation_id>/leaderboard.<str:fmt>",
        scoring_views.leaderboard_download,
        name="leaderboard-download",
    ),
    path(
        "projects/<int:project_id>/evaluations/<int:evaluation_id>/runs/<int:run_id>/",
        scoring_views.run_topics,
        name="run-topics",
    ),
    path("", include("evaluation.scoring.plot_urls")),
    # API (JSON)
    path("api/projects/<int:project_pk>/import/", api.CollectionImportView.as_view(), name="import-api"),
    path("api/projects/<int:project_pk>/topics/", collection_api.TopicList.as_view(), name="topics-api"),
    path(
        "api/projects/<int:project_pk>/references/",
        text_api.ReferenceListView.as_view(),
        name="references-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/",
        text_api.TextEvaluationListView.as_view(),
        name="text-evaluations-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/",
        text_api.TextEvaluationDetailView.as_view(),
        name="text-evaluation-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/outputs/",
        text_api.OutputScoreListView.as_view(),
        name="text-evaluation-outputs-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/meta-evaluation/",
        text_api.MetaEvaluationView.as_view(),
        name="meta-evaluation-api",
    ),
    path(
        "api/projects/<int:project_pk>/text-evaluations/<int:pk>/scatter/",
        text_api.ScatterView.as_view(),
        name="scatter-api",
    ),
    path(
        "api/projects/<int:project_pk>/documents/",
        collection_api.DocumentList.as_view(),
        name="documents-api",
    ),
    path("api/projects/<int:project_pk>/pool/", collection_api.PoolList.as_view(), name="pool-api"),
    path("api/projects/<int:project_pk>/items/", item_api.ItemList.as_view(), name="items-api"),
    path("api/projects/<int:project_pk>/items/<int:pk>/", item_api.ItemDetailView.as_view(), name="item-api"),
    path(
        "api/projects/<int:project_pk>/items/<int:pk>/adjudication/",
        item_api.AdjudicationView.as_view(),
        name="item-adjudication-api",
    ),
    path(
        "api/projects/<int:project_pk>/judgements/list/",
        collection_api.JudgementList.as_view(),
        name="judgement-list-api",
    ),
    path(
        "api/projects/<int:project_pk>/judgements/import/",
        collection_api.JudgementImportView.as_view(),
        name="judgement-import-api",
    ),
    path(
        "api/projects/<int:project_pk>/ground-truth/",
        api.GroundTruthRequestView.as_view(),
        name="ground-truth-api",
    ),
    path("api/projects/<int:project_pk>/ground-truth/jobs/", job_list, name="ground-truth-jobs-api"),
    path(
        "api/projects/<int:project_pk>/ground-truth/jobs/<int:pk>/", job_detail, name="ground-truth-job-api"
    ),
    path("api/projects/<int:project_pk>/agreement/", api.AgreementReportView.as_view(), name="agreement-api"),
    path("api/projects/<int:project_pk>/runs/", runs_api.RunListView.as_view(), name="runs-api"),
    path("api/projects/<int:project_pk>/runs/<int:pk>/", run_removal_views.RunView.as_view(), name="run-api"),
    path(
        "api/projects/<int:project_pk>/runs/<int:pk>/withdraw/",
        run_removal_views.RunWithdrawView.as_view(),
        name="run-withdraw-api",
    ),
    path(
        "api/projects/<int:project_pk>/runs/<int:pk>/reinstate/",
        run_removal_views.RunReinstateView.as_view(),
        name="run-reinstate-api",
    ),
    path(
        "api/projects/<int:project_pk>/runs/<int:pk>/trec/",
        runs_api.RunTrecView.as_view(),
        name="run-trec-api",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/",
        scoring_api.EvaluationListView.as_view(),
        name="evaluations-api",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/<int:pk>/",
        scoring_api.EvaluationDetailView.as_view(),
        name="evaluation-api",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/<int:pk>/leaderboard/",
        scoring_api.LeaderboardView.as_view(),
        name="leaderboard-api",
    ),
    path(
        "api/projects/<int:project_pk>/evaluations/<int:pk>/runs/<int:run_pk>/",
        scoring_api.RunTopicsView.as_view(),
        name="run-topics-api",
    ),
    path(
        "api/projects/<int:project_pk>/external-qrels/",
        scoring_api.ExternalQrelsView.as_view(),
        name="external-qrels-api",
    ),
    path(
        "api/projects/<int:project_pk>/snapshots/<int:version>/ratings/",
        snapshot_ratings,
        name="snapshot-ratings-api",
    ),
]
