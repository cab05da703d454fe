"""URLs of ir_datasets in and out (included from evaluation.urls)."""

from __future__ import annotations

from django.urls import path

from evaluation.irds import api, views

urlpatterns = [
    path(
        "projects/<int:project_id>/import/ir-datasets/",
        views.project_import_ir_datasets,
        name="project-import-ir-datasets",
    ),
    path(
        "projects/<int:project_id>/export/ir-datasets/",
        views.project_export_ir_datasets,
        name="project-export-ir-datasets",
    ),
    path(
        "api/projects/<int:project_pk>/import/ir-datasets/",
        api.IrDatasetsImportView.as_view(),
        name="ir-datasets-import-api",
    ),
    path(
        "api/projects/<int:project_pk>/export/ir-datasets/",
        api.IrDatasetsExportView.as_view(),
        name="ir-datasets-export-api",
    ),
]
