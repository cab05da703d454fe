"""Write a project's ground-truth snapshot as TREC qrels."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Project
from evaluation.ground_truth.downloads import qrels_text
from evaluation.models import GroundTruthSnapshot


class Command(BaseCommand):
    help = "Export a ground-truth snapshot as TREC qrels (qid 0 docno label). Default: the newest snapshot."

    def add_arguments(self, parser):
        parser.add_argument("project", type=int, help="Project id.")
        parser.add_argument(
            "--snapshot", dest="snapshot_version", type=int, help="Snapshot version (default: newest)."
        )
        parser.add_argument("-o", "--output", help="File to write (default: standard output).")

    def handle(self, *args, project: int, snapshot_version: int | None, output: str | None, **options):
        if not Project.objects.filter(pk=project).exists():
            raise CommandError(f"project {project} does not exist")
        snapshots = GroundTruthSnapshot.objects.filter(project_id=project)
        if snapshot_version is not None:
            snapshot = snapshots.filter(version=snapshot_version).first()
            if snapshot is None:
                raise CommandError(f"project {project} has no snapshot version {snapshot_version}")
        else:
            snapshot = snapshots.order_by("-version").first()
            if snapshot is None:
                raise CommandError(f"project {project} has no ground-truth snapshot yet")
        text = qrels_text(snapshot)
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
            self.stderr.write(f"wrote snapshot v{snapshot.version} ({text.count(chr(10))} lines) to {output}")
        else:
            self.stdout.write(text, ending="")
