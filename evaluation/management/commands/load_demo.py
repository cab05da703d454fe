"""Create the demo accounts and the demo project (idempotent: does nothing if it exists)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction

from annotation.models import Project
from annotation.permissions import RESEARCHERS_GROUP
from evaluation.collection import import_collection
from evaluation.demo import (
    DEMO_ANNOTATORS,
    DEMO_PASSWORD,
    DEMO_POOL_DEPTH,
    DEMO_PROJECT_NAME,
    DEMO_RESEARCHER,
    demo_documents,
    demo_runs,
    demo_topics,
)

INSTRUCTIONS = """Read the **topic** (a question an aeronautical engineer asked in the 1960s), then the
document's abstract. Mark the document *relevant* if it would help answer the question, even partly."""


class Command(BaseCommand):
    help = "Load the demo project (Cranfield subset) with a researcher and three annotator accounts."

    @transaction.atomic
    def handle(self, *args, **options):
        users = get_user_model()
        researchers, _ = Group.objects.get_or_create(name=RESEARCHERS_GROUP)

        def account(username: str):
            user, created = users.objects.get_or_create(username=username)
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            return user

        researcher = account(DEMO_RESEARCHER)
        researcher.groups.add(researchers)
        annotators = [account(name) for name in DEMO_ANNOTATORS]
        if Project.objects.filter(name=DEMO_PROJECT_NAME, owner=researcher).exists():
            self.stdout.write("Demo project already loaded.")
            return
        project = Project.objects.create(
            name=DEMO_PROJECT_NAME, owner=researcher, instructions=INSTRUCTIONS, assignments_per_task=3
        )
        project.annotators.set(annotators)
        summary = import_collection(
            project,
            topics=demo_topics(),
            documents=demo_documents(),
            runs=demo_runs(),
            pool_depth=DEMO_POOL_DEPTH,
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo project loaded: {summary.topics_created} topics, "
                f"{summary.documents_created} documents, {summary.runs_created} runs, "
                f"{summary.tasks_created} tasks (k = 3)."
            )
        )
