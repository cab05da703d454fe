"""The Pay page over the API: settings and figures (GET, PATCH), payment files (GET, POST).

Security behavior, for every view here: a researcher's token or session, the project's owner only
(anyone else gets 404, an annotator 403); answers are never cached.
"""

from __future__ import annotations

from django.forms.models import model_to_dict
from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.crowd.pay import HOURS, CampaignCost
from annotation.models import PaymentExport
from annotation.pay.costs import budget_refusal, campaign, paid_so_far, pay_by_worker, project_pay
from annotation.pay.exports import PaymentError, make_payment_export
from annotation.pay.views import PayForm
from annotation.permissions import IsResearcher, owned_project
from annotation.rest.parsers import DepthLimitedJSONParser


def money(value) -> str | None:
    return None if value is None else str(value)


def figures_json(cost: CampaignCost) -> dict:
    return {
        "currency": cost.currency,
        "workers": cost.workers,
        "judgements": cost.judgements,
        "discarded": cost.discarded,
        "paid_to_workers": money(cost.paid_to_workers),
        "fees": money(cost.fees),
        "total_cost": money(cost.total_cost),
        "cost_per_judgement": money(cost.cost_per_judgement),
        "judgements_remaining": cost.judgements_remaining,
        "forecast_to_finish": money(cost.forecast_to_finish),
        "forecast_basis": cost.forecast_basis,
        "forecast_total": money(cost.forecast_total),
        "minimum_hourly": money(cost.minimum_hourly),
        "median_hourly": money(cost.median_hourly),
        "below_minimum": cost.below_minimum,
        "workers_below_minimum": cost.workers_below_minimum,
        "discarded_cost": money(cost.discarded_cost),
        "budget": money(cost.budget),
        "budget_left": money(cost.budget_left),
    }


def settings_json(pay) -> dict:
    fields = model_to_dict(pay, exclude=["id", "project"])
    return {name: money(value) if not isinstance(value, (bool, int, float, type(None))) else value
            for name, value in fields.items()}  # fmt: skip


def form_value(value) -> str:
    """A JSON value as the page's form would send it (a checkbox: "on" or nothing)."""
    if value is None or value is False:
        return ""
    return "on" if value is True else str(value)


@method_decorator(never_cache, name="dispatch")
class PayView(APIView):
    """The project's pay settings, the campaign's figures and every paid worker's (GET); PATCH
    changes settings (fields as the Pay page's form; money as strings or numbers)."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    def answer(self, project) -> dict:
        pay, cost, workers = campaign(project)
        paid = paid_so_far(project)
        by_name = pay_by_worker(cost)
        return {
            "settings": settings_json(pay),
            "figures": figures_json(cost),
            "budget_refusal": budget_refusal(project) if pay.pk else None,
            "workers": [
                {
                    "pseudonym": w.work.worker,
                    "platform": w.worker.platform,
                    "platform_id": w.worker.platform_id,
                    "blocked": w.blocked,
                    "judgements": w.work.judgements,
                    "discarded": w.work.discarded,
                    "hours": money(by_name[w.work.worker].hours.quantize(HOURS)),
                    "base": money(by_name[w.work.worker].base),
                    "bonus": money(by_name[w.work.worker].bonus),
                    "total": money(by_name[w.work.worker].total),
                    "effective_hourly": money(by_name[w.work.worker].effective_hourly),
                    "paid": money(paid.get(w.worker.pk)),
                }
                for w in workers
            ],
        }

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int) -> Response:
        return Response(self.answer(owned_project(request.user, project_pk)))

    @extend_schema(
        request=OpenApiTypes.OBJECT, responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT}
    )
    def patch(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        if not isinstance(request.data, dict):
            return Response({"non_field_errors": ["send a JSON object"]}, status=status.HTTP_400_BAD_REQUEST)
        pay = project_pay(project)
        known = set(PayForm.base_fields)
        unknown = sorted(set(request.data) - known)
        if unknown:
            return Response(
                {name: ["not a pay setting"] for name in unknown}, status=status.HTTP_400_BAD_REQUEST
            )
        merged = {**model_to_dict(pay, fields=list(known)), **request.data}
        form = PayForm({name: form_value(value) for name, value in merged.items()}, instance=pay)
        if not form.is_valid():
            errors = {
                name: [e["message"] for e in found] for name, found in form.errors.get_json_data().items()
            }
            return Response(errors, status=status.HTTP_400_BAD_REQUEST)
        form.save()
        return Response(self.answer(project))


@method_decorator(never_cache, name="dispatch")
class PaymentsView(APIView):
    """The payment files made so far (GET), or a new one (POST ``{"kind": "prolific"|"mturk"}``):
    201 with the file's text and its payments, or 200 with ``"file": null`` when nobody is owed
    anything. A second file pays only what the first did not."""

    permission_classes = [IsResearcher]
    parser_classes = [DepthLimitedJSONParser]

    @staticmethod
    def export_json(export: PaymentExport) -> dict:
        return {
            "id": export.pk,
            "kind": export.kind,
            "created_at": export.created_at.isoformat(),
            "currency": export.currency,
            "total": money(export.total),
            "payments": export.payments.count(),
            "file": export.text,
        }

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        return Response({"results": [self.export_json(e) for e in project.payment_exports.all()]})

    @extend_schema(
        request=OpenApiTypes.OBJECT, responses={201: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT}
    )
    def post(self, request: Request, project_pk: int) -> Response:
        project = owned_project(request.user, project_pk)
        kind = request.data.get("kind") if isinstance(request.data, dict) else None
        if kind not in PaymentExport.Kind.values:
            return Response({"kind": ["prolific or mturk"]}, status=status.HTTP_400_BAD_REQUEST)
        try:
            export = make_payment_export(project, kind, request.user)
        except (PaymentError, ValueError) as error:
            return Response({"kind": [str(error)]}, status=status.HTTP_400_BAD_REQUEST)
        if export is None:
            return Response({"file": None, "detail": "nobody is owed anything"})
        return Response(self.export_json(export), status=status.HTTP_201_CREATED)
