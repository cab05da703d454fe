"""The Celery application. Configuration comes from Django settings (``CELERY_*`` names)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cranfield.settings")

app = Celery("cranfield")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The jobs keep their Celery tasks in jobs.py (import jobs: import_jobs.py), beside the lifecycle they drive.
app.autodiscover_tasks(
    ["evaluation.ground_truth", "evaluation.scoring", "evaluation.texts"], related_name="jobs"
)
app.autodiscover_tasks(["evaluation.collection"], related_name="import_jobs")

# Every project's ground truth is recomputed hourly as a safety net for jobs lost before they
# were queued; unchanged projects write nothing (see evaluation.ground_truth.jobs).
app.conf.beat_schedule = {
    "recompute-ground-truths": {
        "task": "evaluation.ground_truth.jobs.recompute_all_ground_truths",
        "schedule": float(os.environ.get("GROUND_TRUTH_SCHEDULE_SECONDS", "3600")),
    },
    # Jobs lost with a worker or a Redis restart are sent again within minutes.
    "resend-lost-ground-truth-jobs": {
        "task": "evaluation.ground_truth.jobs.resend_lost_ground_truth_jobs",
        "schedule": float(os.environ.get("GROUND_TRUTH_RESEND_SECONDS", "300")),
    },
    "resend-lost-import-jobs": {
        "task": "evaluation.collection.import_jobs.resend_lost_import_job_messages",
        "schedule": float(os.environ.get("GROUND_TRUTH_RESEND_SECONDS", "300")),
    },
    "resend-lost-text-evaluation-jobs": {
        "task": "evaluation.texts.jobs.resend_lost_text_evaluation_jobs",
        "schedule": float(os.environ.get("GROUND_TRUTH_RESEND_SECONDS", "300")),
    },
    "resend-lost-evaluation-jobs": {
        "task": "evaluation.scoring.jobs.resend_lost_evaluation_jobs",
        "schedule": float(os.environ.get("GROUND_TRUTH_RESEND_SECONDS", "300")),
    },
}
