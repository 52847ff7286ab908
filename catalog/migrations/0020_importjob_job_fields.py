"""Imports become jobs like reports, capacity runs and matrix snapshots (`ecomap.jobs.JobModel`,
issue 44): the fields they lacked, with what the rows already say (a finished import was at
100 %, a started one was tried once)."""

from django.db import migrations, models


def fill_from_status(apps, schema_editor):
    ImportJob = apps.get_model("catalog", "ImportJob")
    ImportJob.objects.filter(status="succeeded").update(progress=100)
    ImportJob.objects.filter(started_at__isnull=False).update(attempts=1)


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0019_contains_verdict"),
    ]

    operations = [
        migrations.AddField(
            model_name="importjob",
            name="attempts",
            field=models.PositiveSmallIntegerField(default=0, verbose_name="attempts"),
        ),
        migrations.AddField(
            model_name="importjob",
            name="error",
            field=models.TextField(blank=True, verbose_name="error"),
        ),
        migrations.AddField(
            model_name="importjob",
            name="progress",
            field=models.PositiveSmallIntegerField(default=0, verbose_name="progress (%)"),
        ),
        migrations.RunPython(fill_from_status, migrations.RunPython.noop),
    ]
