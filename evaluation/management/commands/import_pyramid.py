"""Import a LitePyramid campaign into a scu_presence project: the API's import, from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from rest_framework.exceptions import ValidationError

from annotation.items.importing import ImportProblem
from annotation.models import Project
from annotation.pay.costs import cost_in_words
from evaluation.pyramid.importing import import_pyramid, read_rows
from evaluation.pyramid.views import flat_errors


class Command(BaseCommand):
    help = (
        "Import references, summary content units (SCUs) and system summaries into a scu_presence project "
        "as presence items: either one JSON file (the API's body) or --units and --summaries (and "
        "--references), each CSV or JSON Lines. All or nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", type=int, help="The project's id.")
        parser.add_argument("body", nargs="?", type=Path, help="A JSON file as the API takes it.")
        parser.add_argument("--units", type=Path, help="SCUs: input, id, statement, references or weight.")
        parser.add_argument("--summaries", type=Path, help="Summaries: input, system, text.")
        parser.add_argument("--references", type=Path, help="References: input, id, text.")
        parser.add_argument(
            "--units-per-summary", type=int, help="Ask about a sample of each summary's SCUs."
        )
        parser.add_argument("--seed", type=int, default=0, help="The sample's seed.")
        parser.add_argument("--dry-run", action="store_true", help="Check and count; store nothing.")

    def handle(self, *args, **options):
        project = Project.objects.filter(pk=options["project"]).first()
        if project is None:
            raise CommandError(f"project {options['project']} does not exist")
        if options["body"] is not None:
            body = json.loads(self.read(options["body"]))
        elif options["units"] and options["summaries"]:
            body = {
                key: read_rows(path.name, self.read(path))
                for key in ("units", "summaries", "references")
                if (path := options[key]) is not None
            }
        else:
            raise CommandError("give a JSON body file, or --units and --summaries")
        if options["units_per_summary"]:
            body["units_per_summary"] = options["units_per_summary"]
        body["seed"] = options["seed"]
        body["dry_run"] = options["dry_run"]
        try:
            counts = import_pyramid(project, body)
        except ImportProblem as problem:
            raise CommandError(f"{problem.field}: {problem.message}") from problem
        except ValidationError as error:
            raise CommandError("; ".join(flat_errors(error.detail)[:20])) from error
        verb = "would make" if counts["dry_run"] else "made"
        self.stdout.write(
            f"project {project.pk}: {counts['units_created']} content units, {counts['summaries_created']} "
            f"summaries, {counts['references_created']} references {verb} {counts['tasks_created']} presence "
            f"items ({counts['judgements_needed']} judgements{cost_in_words(counts['cost'])})"
        )

    @staticmethod
    def read(path: Path) -> str:
        try:
            return path.read_text(encoding="utf-8")
        except OSError as error:
            raise CommandError(f"{path}: {error.strerror}") from error
        except UnicodeDecodeError as error:
            raise CommandError(f"{path}: not UTF-8 ({error.reason})") from error
