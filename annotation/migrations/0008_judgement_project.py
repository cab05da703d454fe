"""Judgement.project: the task's project, repeated for an index on (project, annotator)."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def copy_projects(apps, schema_editor):
    Judgement = apps.get_model("annotation", "Judgement")
    Task = apps.get_model("annotation", "Task")
    Judgement.objects.update(project_id=Subquery(Task.objects.filter(pk=OuterRef("task_id")).values("project_id")))


class Migration(migrations.Migration):
    dependencies = [("annotation", "0007_rating_normalisation")]

    operations = [
        migrations.AddField(
            model_name="judgement",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="judgements",
                to="annotation.project",
            ),
        ),
        migrations.RunPython(copy_projects, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="judgement",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="judgements", to="annotation.project"
            ),
        ),
        migrations.AddIndex(
            model_name="judgement",
            index=models.Index(fields=["project", "annotator"], name="judgement_project_annotator"),
        ),
    ]
