"""A run is stored as one ranked list per topic (documents and scores as blocks) instead of one
row per line: 5,000,000 lines were 5,000,000 rows to write, index and read back."""

from itertools import groupby
from operator import itemgetter

import django.db.models.deletion
import numpy as np
from django.db import migrations, models


def lines_to_lists(apps, schema_editor):
    run_model = apps.get_model("evaluation", "Run")
    line_model = apps.get_model("evaluation", "RunEntry")
    list_model = apps.get_model("evaluation", "RankedList")
    for run_id in run_model.objects.values_list("pk", flat=True).iterator():
        rows = (
            line_model.objects.filter(run_id=run_id)
            .order_by("topic_id", "rank")
            .values_list("topic_id", "document_id", "score")
        )
        lists = []
        for topic, lines in groupby(rows.iterator(chunk_size=20_000), key=itemgetter(0)):
            lines = list(lines)
            lists.append(
                list_model(
                    run_id=run_id,
                    topic_id=topic,
                    documents="\n".join(document for _, document, _ in lines),
                    scores=np.array([score for _, _, score in lines], dtype="<f8").tobytes(),
                    length=len(lines),
                )
            )
        list_model.objects.bulk_create(lists, batch_size=200)


def lists_to_lines(apps, schema_editor):
    line_model = apps.get_model("evaluation", "RunEntry")
    list_model = apps.get_model("evaluation", "RankedList")
    for ranked in list_model.objects.order_by("pk").iterator(chunk_size=100):
        scores = np.frombuffer(bytes(ranked.scores), dtype="<f8").tolist()
        line_model.objects.bulk_create(
            (
                line_model(run_id=ranked.run_id, topic_id=ranked.topic_id, document_id=document, rank=rank, score=score)
                for rank, (document, score) in enumerate(zip(ranked.documents.split("\n"), scores, strict=True), start=1)
            ),
            batch_size=5000,
        )


class Migration(migrations.Migration):

    dependencies = [
        ('evaluation', '0013_import_job_chunks'),
    ]

    operations = [
        migrations.CreateModel(
            name='RankedList',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('topic_id', models.CharField(max_length=100)),
                ('documents', models.TextField()),
                ('scores', models.BinaryField()),
                ('length', models.PositiveIntegerField(help_text='How many documents the run retrieved for the topic.')),
                ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ranked_lists', to='evaluation.run')),
            ],
            options={
                'ordering': ['run', 'topic_id'],
            },
        ),
        migrations.AddConstraint(
            model_name='rankedlist',
            constraint=models.UniqueConstraint(fields=('run', 'topic_id'), name='ranked_list_once_per_topic'),
        ),
        migrations.RunPython(lines_to_lists, lists_to_lines),
        migrations.DeleteModel(
            name='RunEntry',
        ),
    ]
