"""Fixtures the text tests share."""

from __future__ import annotations

import pytest

from evaluation.models import TextEvaluation
from tests.text.test_text_app import run_text_evaluation, text_project  # noqa: F401 (a fixture)


@pytest.fixture
def evaluated(researcher, text_project, django_capture_on_commit_callbacks):  # noqa: F811
    """A text project whose outputs are rated and scored, and its done text evaluation."""
    project, _ = text_project
    job = run_text_evaluation(researcher, project, django_capture_on_commit_callbacks)
    return project, TextEvaluation.objects.get(pk=job["id"])
