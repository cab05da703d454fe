"""Fill a project (or a new one) from an ir_datasets dataset: the API's import, from the command line."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.models import Project
from evaluation.collection import import_jobs
from evaluation.collection.flow import ImportFailed
from evaluation.irds.importing import choice_from, create_import, send_import
from evaluation.models import ImportJob


class Command(BaseCommand):
    help = (
        "Import an ir_datasets dataset into a project as an import job, run here (or by a worker with "
        "--queue): topics from a query field, documents from text fields, qrels as the reference, "
        "scoreddocs as a run. Offline, IR_DATASETS_HOME names the folder holding the dataset's files."
    )

    def add_arguments(self, parser):
        parser.add_argument("dataset", help="An ir_datasets id, e.g. cranfield.")
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("--project", type=int, help="The project to fill (its owner imports).")
        where.add_argument("--create", metavar="NAME", help="Create a binary relevance project of this name.")
        parser.add_argument(
            "--owner", help="The new project's owner (a researcher's username), with --create."
        )
        parser.add_argument("--query-field", default="text", help="The queries' field for the topic (text).")
        parser.add_argument("--description-field", default="", help="A queries' field for the description.")
        parser.add_argument(
            "--doc-fields",
            default="text",
            help="Documents' fields joined into the text, comma-separated (text).",
        )
        parser.add_argument("--title-field", default="", help="A documents' field for the title.")
        parser.add_argument("--topics", default="", help="Only these query ids, comma-separated.")
        parser.add_argument("--max-documents", type=int, help="At most this many documents.")
        parser.add_argument("--qrels", default="reference", help="reference (default), prior or none.")
        parser.add_argument("--qrels-name", default="", help="The reference qrels' name (default: the id).")
        parser.add_argument("--relevant-from", type=int, help="Binary qrels: labels from this up are 1.")
        parser.add_argument("--scoreddocs", action="store_true", help="Import the scoreddocs as a run.")
        parser.add_argument("--run-tag", default="", help="The scoreddocs run's tag.")
        parser.add_argument("--pool-depth", type=int, default=0, help="Pool the run to this depth (0: not).")
        parser.add_argument(
            "--queue", action="store_true", help="Send the job to a worker instead of running it."
        )

    def handle(self, *args, **options):
        project = self.project(options)
        request = {
            "dataset": options["dataset"],
            "query_field": options["query_field"],
            "description_field": options["description_field"],
            "doc_fields": split(options["doc_fields"]),
            "title_field": options["title_field"],
            "topics": split(options["topics"]),
            "max_documents": options["max_documents"],
            "qrels": options["qrels"],
            "qrels_name": options["qrels_name"],
            "relevant_from": options["relevant_from"],
            "scoreddocs": options["scoreddocs"],
            "run_tag": options["run_tag"],
            "pool_depth": options["pool_depth"],
        }
        try:
            choice = choice_from(request)
            if options["queue"]:
                job = send_import(project.owner, project, choice)
                self.stdout.write(f"import job {job.pk} queued for project {project.pk}")
                return
            with transaction.atomic():
                job = create_import(project.owner, project, choice)
        except ImportFailed as failure:
            raise CommandError("; ".join(failure.as_lines())) from failure
        import_jobs.run(job.pk)
        job.refresh_from_db()
        if job.status != ImportJob.Status.DONE:
            problems = ImportFailed([(f, m) for f, ms in job.errors.items() for m in ms]).as_lines()
            raise CommandError(f"nothing was imported: {'; '.join(problems) or job.error}")
        summary = job.summary
        self.stdout.write(
            f"project {project.pk}: {summary['topics_created']} topics, "
            f"{summary['documents_created']} documents, "
            f"{summary['qrels_created']} reference judgements, "
            f"{summary.get('prior_created', 0)} prior judgements, {summary['runs_created']} runs, "
            f"{summary['tasks_created']} items (import job {job.pk})"
        )

    def project(self, options) -> Project:
        if options["project"] is not None:
            if options["owner"]:
                raise CommandError("--owner goes with --create (a project's owner imports into it)")
            project = Project.objects.filter(pk=options["project"]).first()
            if project is None:
                raise CommandError(f"project {options['project']} does not exist")
            return project
        if not options["owner"]:
            raise CommandError("--create needs --owner (the researcher who will own the project)")
        owner = get_user_model().objects.filter(username=options["owner"]).first()
        if owner is None:
            raise CommandError(f"no user named {options['owner']!r}")
        return Project.objects.create(name=options["create"], owner=owner)


def split(text: str) -> list[str]:
    return text.replace(",", " ").split()
