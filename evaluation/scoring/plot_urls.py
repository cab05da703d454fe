"""Plot downloads (included from evaluation.urls at its root). Link them as
``reverse("evaluation-plot", kwargs={"project_id": …, "evaluation_id": …, "kind": "pr", "fmt": "svg"})``
and ``reverse("kappa-plot", kwargs={"project_id": …, "fmt": "png"})``."""

from django.urls import path, register_converter

from annotation.rest.renderers import IMAGE_TYPES
from evaluation.scoring import plot_views
from evaluation.scoring.plots import EVALUATION_KINDS


class PlotKind:
    regex = "|".join(kind.replace("-", r"\-") for kind in EVALUATION_KINDS)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


class ImageFormat:
    regex = "|".join(IMAGE_TYPES)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(PlotKind, "plot_kind")
register_converter(ImageFormat, "image_format")

urlpatterns = [
    path(
        "projects/<int:project_id>/evaluations/<int:evaluation_id>/plots/<plot_kind:kind>.<image_format:fmt>",
        plot_views.evaluation_plot,
        name="evaluation-plot",
    ),
    path(
        "projects/<int:project_id>/plots/kappa.<image_format:fmt>", plot_views.kappa_plot, name="kappa-plot"
    ),
]
