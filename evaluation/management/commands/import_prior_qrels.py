"""Store a qrels file as a project's prior judgements: the API's import, from the command line."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.items.importing import ImportProblem
from annotation.models import Project
from evaluation.prior.importing import import_prior_qrels
from evaluation.prior.jobs import prior_changed


class Command(BaseCommand):
    help = (
        "Import a TREC qrels file as prior judgements of a project: pooling leaves their pairs out and "
        "the ground truth merges them. Every line must name the project's topics and documents."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", type=int, help="The project's id.")
        parser.add_argument("qrels", type=Path, help="The qrels file (topic iter docno rel).")
        parser.add_argument("--name", required=True, help="The set's name.")
        parser.add_argument("--source", default="", help="Where the judgements come from.")
        parser.add_argument("--date", default="", help="When they were made (YYYY-MM-DD).")
        parser.add_argument("--assessor", default="", help='Who judged: "NIST assessors", "LLM" …')

    def handle(self, *args, **options):
        project = Project.objects.filter(pk=options["project"]).first()
        if project is None:
            raise CommandError(f"project {options['project']} does not exist")
        try:
            judged_on = date.fromisoformat(options["date"]) if options["date"] else None
        except ValueError as error:
            raise CommandError(f"--date: give it as YYYY-MM-DD, not {options['date']!r}") from error
        try:
            text = options["qrels"].read_text(encoding="utf-8")
        except OSError as error:
            raise CommandError(f"{options['qrels']}: {error.strerror}") from error
        try:
            prior = import_prior_qrels(
                project,
                options["name"],
                text,
                source=options["source"],
                judged_on=judged_on,
                assessor=options["assessor"],
            )
        except ImportProblem as problem:
            raise CommandError(f"{options['qrels']}: {problem.field}: {problem.message}") from problem
        prior_changed(project)
        self.stdout.write(
            f"project {project.pk}: prior judgements {prior.name!r}, {prior.judged_count} judgements, "
            f"{prior.relevant_count} relevant"
        )
