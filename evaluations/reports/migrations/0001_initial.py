"""The reports app takes over the evaluations app's Report (issue 44): state only, the table keeps
its name (`db_table`); the content type's app label moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("report",)


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
                    name='Report',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('progress', models.PositiveSmallIntegerField(default=0, verbose_name='progress (%)')),
                        ('attempts', models.PositiveSmallIntegerField(default=0, verbose_name='attempts')),
                        ('error', models.TextField(blank=True, verbose_name='error')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='requested')),
                        ('started_at', models.DateTimeField(blank=True, null=True, verbose_name='started')),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True, verbose_name='last heartbeat')),
                        ('finished_at', models.DateTimeField(blank=True, null=True, verbose_name='finished')),
                        ('status', models.CharField(choices=[('pending', 'queued'), ('running', 'building'), ('succeeded', 'ready'), ('failed', 'failed')], default='pending', max_length=10, verbose_name='status')),
                        ('language', models.CharField(default='en', max_length=12, verbose_name='language')),
                        ('with_cards', models.BooleanField(default=False, verbose_name='with the placement cards')),
                        ('file', models.FileField(blank=True, upload_to='reports/%Y/%m/', verbose_name='PDF')),
                        ('pages', models.PositiveIntegerField(blank=True, null=True, verbose_name='pages')),
                        ('seconds', models.FloatField(blank=True, null=True, verbose_name='seconds to build')),
                        ('catalog_revision', models.PositiveIntegerField(blank=True, null=True, verbose_name='catalog revision')),
                        ('evaluation_revision', models.PositiveIntegerField(blank=True, null=True, verbose_name='evaluation revision')),
                        ('evaluation_updated_at', models.DateTimeField(blank=True, null=True, verbose_name='evaluation as of')),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reports', to='evaluations.evaluation', verbose_name='evaluation')),
                        ('requested_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='requested by')),
                    ],
                    options={
                        'verbose_name': 'report',
                        'verbose_name_plural': 'reports',
                        'db_table': 'evaluations_report',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['evaluation', '-created_at'], name='report_by_evaluation_idx')],
                    },
                ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="reports"),
    ]
