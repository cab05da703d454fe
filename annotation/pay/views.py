"""The Pay page: a project's pay settings, what its crowd workers have earned, what the campaign
has cost and will cost, whether the pay is fair, and the payment files. Figures come from
``annotation.pay.costs``; files from ``annotation.pay.exports``. State changes only on POST.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.models import PaymentExport, ProjectPay, StudyLink
from annotation.pay.costs import budget_refusal, campaign, paid_so_far, pay_by_worker, project_pay
from annotation.pay.exports import PaymentError, accounting_file, block_list, make_payment_export
from annotation.permissions import AuthenticatedHttpRequest, owned_project

WORKERS_SHOWN = 200  # the page's table; the accounting CSV has everyone


class PayForm(forms.ModelForm):
    class Meta:
        model = ProjectPay
        fields = (
            "currency",
            "per_judgement",
            "per_hour",
            "fee_percent",
            "bonus_per_gold_right",
            "accuracy_bonus",
            "accuracy_threshold",
            "accuracy_min_gold",
            "session_bonus",
            "minimum_hourly",
            "budget",
            "base_paid_by_platform",
        )

    def clean_currency(self) -> str:
        code = self.cleaned_data["currency"].strip().upper()
        if len(code) != 3 or not code.isalpha():
            raise forms.ValidationError("an ISO code of three letters: GBP, USD, EUR, …")
        return code


def pay_context(project, form: PayForm | None = None) -> dict:
    pay, cost, workers = campaign(project)
    paid = paid_so_far(project)
    figures = pay_by_worker(cost)
    rows = [
        {
            "worker": w.worker,
            "pay": figures[w.work.worker],
            "blocked": w.blocked,
            "paid": paid.get(w.worker.pk),
        }
        for w in workers[:WORKERS_SHOWN]
    ]
    return {
        "project": project,
        "form": form or PayForm(instance=pay),
        "pay": pay,
        "cost": cost,
        "rows": rows,
        "more_workers": max(0, len(workers) - WORKERS_SHOWN),
        "budget_refusal": budget_refusal(project) if pay.pk else None,
        "exports": project.payment_exports.all()[:50],
        "export_kinds": PaymentExport.Kind.choices,
        "platforms": StudyLink.Platform.choices[:2],
    }


@login_required
@require_http_methods(["GET", "POST"])
def pay_page(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Pay settings (POST saves them), cost, forecast, fair pay and the payment files.

    Security behavior: the project's owner only (anyone else gets 404).
    """
    project = owned_project(request.user, project_id)
    form = None
    if request.method == "POST":
        form = PayForm(request.POST, instance=project_pay(project))
        if form.is_valid():
            form.save()
            messages.success(request, "Pay settings saved.")
            return redirect("pay-page", project_id=project.pk)
    return render(request, "annotation/pay.html", pay_context(project, form))


def attachment(text: str, name: str, kind: str = "text/csv") -> HttpResponse:
    response = HttpResponse(text, content_type=f"{kind}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@never_cache
@login_required
@require_POST
def payment_export_new(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Make the platform's bulk file of what its workers are still owed, recorded as paid (a second
    file pays nobody twice). Security behavior: the project's owner only."""
    project = owned_project(request.user, project_id)
    kind = request.POST.get("kind", "")
    if kind not in PaymentExport.Kind.values:
        messages.error(request, "Choose Prolific or Mechanical Turk.")
        return redirect("pay-page", project_id=project.pk)
    try:
        export = make_payment_export(project, kind, request.user)
    except (PaymentError, ValueError) as error:
        messages.error(request, str(error))
        return redirect("pay-page", project_id=project.pk)
    if export is None:
        messages.info(request, "Nobody is owed anything: no file was made.")
        return redirect("pay-page", project_id=project.pk)
    messages.success(
        request,
        f"{export.get_kind_display()} file made: {export.payments.count()} payments, "
        f"{export.total} {export.currency} in all. Download it below and upload it to the platform.",
    )
    return redirect("pay-page", project_id=project.pk)


@login_required
@require_GET
def payment_export_file(request: AuthenticatedHttpRequest, project_id: int, export_id: int) -> HttpResponse:
    """A payment file made earlier, as it was. Security behavior: the project's owner only."""
    project = owned_project(request.user, project_id)
    export = get_object_or_404(PaymentExport, pk=export_id, project=project)
    extension = "txt" if export.kind == PaymentExport.Kind.PROLIFIC else "csv"
    return attachment(export.text, f"{export.kind}-bonus-{export.pk}.{extension}", "text/plain")


@login_required
@require_GET
def accounting(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Every paid worker's figures as CSV. Security behavior: the project's owner only."""
    project = owned_project(request.user, project_id)
    return attachment(accounting_file(project), f"project-{project.pk}-accounts.csv")


@login_required
@require_GET
def blocked_workers(request: AuthenticatedHttpRequest, project_id: int, platform: str) -> HttpResponse:
    """The platform ids of blocked workers, one per line, for the platform's block list.
    Security behavior: the project's owner only."""
    project = owned_project(request.user, project_id)
    if platform not in (StudyLink.Platform.PROLIFIC, StudyLink.Platform.MTURK):
        return HttpResponse("Prolific or MTurk only.", status=404, content_type="text/plain")
    return attachment(block_list(project, platform), f"{platform}-blocked-{project.pk}.txt", "text/plain")
