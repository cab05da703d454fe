"""One vocabulary: a ground-truth computation is a *job* ("run" is a system's run), and the people
who judge are *annotators* (not assessors)."""

from django.conf import settings
from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0008_judgement_project"),
        ("evaluation", "0003_snapshot_assessor_report_and_read_time"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameModel("GroundTruthRun", "GroundTruthJob"),
        migrations.RenameField("groundtruthsnapshot", "assessor_report", "annotator_report"),
        migrations.RenameIndex(
            model_name="groundtruthjob", new_name="gt_job_project_newest", old_name="gt_run_project_newest"
        ),
        migrations.AlterField(
            model_name="groundtruthjob",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="ground_truth_jobs",
                to="annotation.project",
            ),
        ),
        migrations.AlterField(
            model_name="groundtruthjob",
            name="snapshot",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="jobs",
                to="evaluation.groundtruthsnapshot",
            ),
        ),
    ]
