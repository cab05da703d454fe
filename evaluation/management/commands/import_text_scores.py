"""Import a model-based metric's per-output scores onto a done text evaluation: the API's import
(``POST /api/projects/<id>/text-evaluations/<e>/scores/``), from the command line."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluation.models import TextEvaluation
from evaluation.texts.imported_scores import (
    ScoreImportError,
    decoded,
    import_metric_scores,
    read_score_rows,
)


class Command(BaseCommand):
    help = (
        "Add a metric computed elsewhere (BERTScore, COMET, an LLM judge's rating, …) to a done text "
        "evaluation: FILE is CSV with a header naming system, input and value, or JSON Lines of the same, "
        "one score per output the evaluation scored. All or nothing; an error names the line."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", type=int, help="The project's id.")
        parser.add_argument("evaluation", type=int, help="The text evaluation's id.")
        parser.add_argument("file", type=Path, help="The scores: CSV or JSON Lines.")
        parser.add_argument("--metric", required=True, help="The metric's name, e.g. bertscore_f1.")
        parser.add_argument(
            "--lower-is-better", action="store_true", help="Lower scores are better (an error rate)."
        )
        parser.add_argument("--signature", default="", help="The model, its version and settings.")
        parser.add_argument("--replace", action="store_true", help="Replace a metric imported before.")

    def handle(self, *args, **options):
        evaluation = TextEvaluation.objects.filter(
            pk=options["evaluation"], project_id=options["project"]
        ).first()
        if evaluation is None:
            raise CommandError(f"project {options['project']} has no text evaluation {options['evaluation']}")
        try:
            data = options["file"].read_bytes()
        except OSError as error:
            raise CommandError(str(error)) from error
        try:
            stored = import_metric_scores(
                evaluation,
                name=options["metric"],
                rows=read_score_rows(decoded(data)),
                higher_is_better=not options["lower_is_better"],
                signature=options["signature"],
                replace=options["replace"],
            )
        except ScoreImportError as problem:
            where = options["file"] if problem.field == "file" else problem.field
            raise CommandError(f"{where}: {problem}") from problem
        self.stdout.write(
            f"{stored['metric']}: {stored['outputs']} outputs of {stored['systems']} systems scored "
            f"({'higher' if stored['higher_is_better'] else 'lower'} is better)"
        )
