"""The Runs page's fusion form: chosen runs of the project fused into a new run
(``collection.fusion.fuse_project_runs``), then back to the Runs page with what was stored or why not.

Security behavior: the project's owner only (``owned_project``: anyone else gets 404); POST only.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.items.importing import ImportProblem
from annotation.permissions import AuthenticatedHttpRequest, owned_project
from evaluation.collection.fusion import fuse_project_runs


def _whole_number(value: str, field: str, default: int | None) -> int | None:
    if not value.strip():
        return default
    try:
        return int(value)
    except ValueError:
        raise ImportProblem(field, f"not a whole number: {value!r}") from None


@login_required
@require_POST
def runs_fuse(request: AuthenticatedHttpRequest, project_id: int) -> HttpResponse:
    """Fuse the ticked runs (``runs``) by ``method`` over ``normalisation`` into a run tagged ``tag``,
    cut to ``depth`` and pooled to ``pool_depth`` if given."""
    project = owned_project(request.user, project_id)
    post = request.POST
    try:
        run_ids = [_whole_number(value, "runs", 0) or 0 for value in post.getlist("runs")]
        fused = fuse_project_runs(
            project,
            run_ids,
            method=post.get("method", "rrf"),
            normalisation=post.get("normalisation", "min-max"),
            tag=post.get("tag", "").strip(),
            rrf_k=_whole_number(post.get("rrf_k", ""), "rrf_k", 60) or 0,
            depth=_whole_number(post.get("depth", ""), "depth", None),
            pool_depth=_whole_number(post.get("pool_depth", ""), "pool_depth", 0) or 0,
        )
    except ImportProblem as problem:
        messages.error(request, f"Nothing was fused: {problem.field}: {problem.message}")
        return redirect(reverse("runs-page", args=[project.pk]) + "#fuse-heading")
    pooled = f", {fused.items_created} new items pooled" if fused.run.pool_depth else ""
    messages.success(request, f"Fused into run {fused.run.tag}{pooled}.")
    return redirect("run-page", project_id=project.pk, run_id=fused.run.pk)
