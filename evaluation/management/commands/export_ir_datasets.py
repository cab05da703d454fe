"""Write a project as files ir_datasets and the TREC tools read (a ZIP, or a folder)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Project
from evaluation.irds.export import write_export


class Command(BaseCommand):
    help = (
        "Export a project's topics (queries.tsv, topics.trec), documents (docs.jsonl), runs (runs/*.run) and "
        "every snapshot's qrels (qrels/*.qrels) with metadata.json: a ZIP, or a folder with --folder."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", type=int, help="Project id.")
        parser.add_argument("output", help="The ZIP to write, or the folder with --folder.")
        parser.add_argument("--folder", action="store_true", help="Write the files into a folder instead.")

    def handle(self, *args, project: int, output: str, folder: bool, **options):
        found = Project.objects.filter(pk=project).first()
        if found is None:
            raise CommandError(f"project {project} does not exist")
        if folder:
            buffer = io.BytesIO()
            metadata = write_export(found, buffer)
            with zipfile.ZipFile(buffer) as archive:
                archive.extractall(Path(output))
        else:
            with open(output, "wb") as out:
                metadata = write_export(found, out)
        counts = metadata["counts"]
        self.stderr.write(
            f"wrote {counts['topics']} topics, {counts['documents']} documents, {counts['runs']} runs and "
            f"{counts['qrels']} qrels files to {output}"
        )
