"""The clusters app takes over the evaluations app's ClusterSnapshot and ClusterAttachment (issue 44):
state only, the tables keep their names (`db_table`); the content types' app label moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("clustersnapshot", "clusterattachment")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("evaluations", "0021_notifications_app"),
        ("teams", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='ClusterSnapshot',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('cluster', models.CharField(max_length=200, verbose_name='cluster')),
                        ('collected_at', models.DateTimeField(verbose_name='collected')),
                        ('kubernetes_version', models.CharField(blank=True, max_length=64, verbose_name='Kubernetes version')),
                        ('document', models.JSONField(verbose_name='snapshot')),
                        ('sha256', models.CharField(max_length=64, verbose_name='SHA-256')),
                        ('size_bytes', models.PositiveIntegerField(verbose_name='size (bytes)')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='uploaded')),
                        ('summary', models.JSONField(default=dict, verbose_name='summary')),
                        ('team', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='cluster_snapshots', to='teams.team', verbose_name='team')),
                        ('uploaded_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='uploaded by')),
                    ],
                    options={
                        'verbose_name': 'cluster snapshot',
                        'verbose_name_plural': 'cluster snapshots',
                        'db_table': 'evaluations_clustersnapshot',
                        'ordering': ['-collected_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='ClusterAttachment',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('attached_at', models.DateTimeField(auto_now=True, verbose_name='attached')),
                        ('attached_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='attached by')),
                        ('evaluation', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='cluster_attachment', to='evaluations.evaluation', verbose_name='evaluation')),
                        ('snapshot', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='attachments', to='clusters.clustersnapshot', verbose_name='cluster snapshot')),
                    ],
                    options={
                        'verbose_name': 'attached cluster snapshot',
                        'verbose_name_plural': 'attached cluster snapshots',
                        'db_table': 'evaluations_clusterattachment',
                    },
                ),
                migrations.AddIndex(
                    model_name='clustersnapshot',
                    index=models.Index(fields=['team', 'cluster', '-collected_at'], name='cluster_snapshot_by_team_idx'),
                ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="clusters"),
    ]
