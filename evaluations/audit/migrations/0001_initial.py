"""The audit app takes over the evaluations app's AuditEntry (issue 44): state only, the table keeps
its name (`db_table`); the content type's app label moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("auditentry",)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("evaluations", "0023_review_and_decisions_apps"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='AuditEntry',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                        ('action', models.CharField(max_length=40, verbose_name='action')),
                        ('step', models.CharField(blank=True, max_length=20, verbose_name='step')),
                        ('changes', models.JSONField(blank=True, default=dict, verbose_name='what changed')),
                        ('state_from', models.CharField(blank=True, max_length=20)),
                        ('state_to', models.CharField(blank=True, max_length=20)),
                        ('revision', models.PositiveIntegerField(verbose_name='revision')),
                        ('actor', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='who')),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='audit', to='evaluations.evaluation')),
                    ],
                    options={
                        'verbose_name': 'audit entry',
                        'verbose_name_plural': 'audit entries',
                        'db_table': 'evaluations_auditentry',
                        'ordering': ['-id'],
                        'indexes': [models.Index(fields=['evaluation', '-id'], name='audit_by_evaluation_idx')],
                    },
                ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="audit"),
    ]
