"""The decisions app takes over the evaluations app's Decision (issue 44): state only, the table keeps
its name (`db_table`); the content type's app label moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("decision",)


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("evaluations", "0022_room_apps"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Decision',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('rows', models.JSONField(default=list, verbose_name='stack')),
                        ('pools', models.JSONField(blank=True, default=dict, verbose_name='node pools')),
                        ('pool_tenant_sharing', models.JSONField(blank=True, default=dict, verbose_name='tenant sharing per pool')),
                        ('pool_node_groups', models.JSONField(blank=True, default=dict, verbose_name='node group per pool')),
                        ('rationale', models.TextField(blank=True, verbose_name='rationale')),
                        ('risks', models.TextField(blank=True, verbose_name='risks and failure modes to watch')),
                        ('acceptance_checks', models.TextField(blank=True, verbose_name='acceptance checks')),
                        ('decided_at', models.DateTimeField(auto_now=True, verbose_name='decided')),
                        ('approved_at', models.DateTimeField(blank=True, null=True, verbose_name='approved')),
                        ('approved_catalog_revision', models.PositiveIntegerField(blank=True, null=True, verbose_name='catalog revision at approval')),
                        ('approved_rows', models.JSONField(blank=True, default=dict, verbose_name='rows as approved')),
                        ('approved_findings', models.JSONField(blank=True, default=list, verbose_name='stack check at approval')),
                        ('decided_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('evaluation', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='decision', to='evaluations.evaluation')),
                    ],
                    options={
                        'verbose_name': 'decision',
                        'verbose_name_plural': 'decisions',
                        'db_table': 'evaluations_decision',
                    },
                ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="decisions"),
    ]
