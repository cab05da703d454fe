"""The Celery application. Configuration comes from Django settings (``CELERY_*`` names)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cranfield.settings")

app = Celery("cranfield")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Every project's ground truth is recomputed hourly as a safety net for runs lost before they
# were queued; unchanged projects write nothing (see annotation.tasks.recompute_all_ground_truths).
app.conf.beat_schedule = {
    "recompute-ground-truths": {
        "task": "annotation.tasks.recompute_all_ground_truths",
        "schedule": float(os.environ.get("GROUND_TRUTH_SCHEDULE_SECONDS", "3600")),
    },
}
