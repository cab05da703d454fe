"""Project.annotators goes through Membership (qualification and blocking live there).

Django cannot add ``through=`` to an existing many-to-many field, so: copy the old rows into
Membership, drop the old field and its table, and declare the field again over Membership.
"""

from django.conf import settings
from django.db import migrations, models


def copy_members(apps, schema_editor):
    Project = apps.get_model("annotation", "Project")
    Membership = apps.get_model("annotation", "Membership")
    through = Project.annotators.through
    Membership.objects.bulk_create(
        (
            Membership(project_id=row.project_id, annotator_id=row.user_id)
            for row in through.objects.all()
        ),
        batch_size=1000,
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0004_task_types_quality_control"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(copy_members, migrations.RunPython.noop),
        migrations.RemoveField(model_name="project", name="annotators"),
        migrations.AddField(
            model_name="project",
            name="annotators",
            field=models.ManyToManyField(
                blank=True,
                related_name="annotated_projects",
                through="annotation.Membership",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
    ]
