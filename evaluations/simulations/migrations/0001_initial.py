"""The simulations app takes over the evaluations app's CapacityRun (issue 44): state only, the table
keeps its name (`db_table`); the content type's app label moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("capacityrun",)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("evaluations", "0021_notifications_app"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='CapacityRun',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('progress', models.PositiveSmallIntegerField(default=0, verbose_name='progress (%)')),
                        ('attempts', models.PositiveSmallIntegerField(default=0, verbose_name='attempts')),
                        ('error', models.TextField(blank=True, verbose_name='error')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='requested')),
                        ('started_at', models.DateTimeField(blank=True, null=True, verbose_name='started')),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True, verbose_name='last heartbeat')),
                        ('finished_at', models.DateTimeField(blank=True, null=True, verbose_name='finished')),
                        ('key', models.CharField(max_length=64, verbose_name='input key')),
                        ('catalog_revision', models.PositiveIntegerField(verbose_name='catalog revision')),
                        ('status', models.CharField(choices=[('pending', 'queued'), ('running', 'running'), ('succeeded', 'done'), ('failed', 'failed')], default='pending', max_length=10, verbose_name='status')),
                        ('result', models.JSONField(blank=True, null=True, verbose_name='result')),
                        ('seconds', models.FloatField(blank=True, null=True, verbose_name='seconds')),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='capacity_runs', to='evaluations.evaluation', verbose_name='evaluation')),
                        ('requested_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='requested by')),
                    ],
                    options={
                        'verbose_name': 'capacity simulation',
                        'verbose_name_plural': 'capacity simulations',
                        'db_table': 'evaluations_capacityrun',
                        'ordering': ['-created_at', '-id'],
                        'constraints': [models.UniqueConstraint(fields=('evaluation', 'key'), name='capacity_run_input_unique')],
                    },
                ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="simulations"),
    ]
