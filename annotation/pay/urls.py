"""URLs of pay: its page, files and API (included from annotation.urls)."""

from __future__ import annotations

from django.urls import path

from annotation.pay import api, views

urlpatterns = [
    path("projects/<int:project_id>/pay/", views.pay_page, name="pay-page"),
    path("projects/<int:project_id>/pay/exports/", views.payment_export_new, name="payment-export-new"),
    path(
        "projects/<int:project_id>/pay/exports/<int:export_id>/",
        views.payment_export_file,
        name="payment-export-file",
    ),
    path("projects/<int:project_id>/pay/accounts.csv", views.accounting, name="pay-accounting"),
    path(
        "projects/<int:project_id>/pay/blocked/<str:platform>.txt", views.blocked_workers, name="pay-blocked"
    ),
    path("api/projects/<int:project_pk>/pay/", api.PayView.as_view(), name="pay-api"),
    path("api/projects/<int:project_pk>/payments/", api.PaymentsView.as_view(), name="payments-api"),
]
