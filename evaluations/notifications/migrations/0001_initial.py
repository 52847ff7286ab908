"""The notifications app takes over the evaluations app's Notification and WebhookDelivery (issue
44): state only, the tables keep their names (`db_table`); the content types' app label moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("notification", "webhookdelivery")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("evaluations", "0020_teams_app"),
        ("teams", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Notification',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('event', models.CharField(choices=[('submitted', 'submitted for review'), ('approved', 'approved'), ('changes_requested', 'changes requested'), ('commented', 'commented'), ('catalog_drift', 'catalog changed under the decision'), ('review_requested', 'review requested'), ('approval_recorded', 'approved (more approvals needed)'), ('test', 'test event')], max_length=20, verbose_name='event')),
                        ('revision', models.PositiveIntegerField(verbose_name='revision')),
                        ('about', models.CharField(blank=True, max_length=150, verbose_name='about whom')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                        ('read_at', models.DateTimeField(blank=True, null=True, verbose_name='read')),
                        ('emailed_at', models.DateTimeField(blank=True, null=True, verbose_name='e-mailed')),
                        ('actor', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to='evaluations.evaluation')),
                        ('recipient', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'verbose_name': 'notification',
                        'verbose_name_plural': 'notifications',
                        'db_table': 'evaluations_notification',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['recipient', '-created_at'], name='notification_inbox_idx')],
                    },
                ),
                migrations.CreateModel(
                    name='WebhookDelivery',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('event', models.CharField(choices=[('submitted', 'submitted for review'), ('approved', 'approved'), ('changes_requested', 'changes requested'), ('commented', 'commented'), ('catalog_drift', 'catalog changed under the decision'), ('review_requested', 'review requested'), ('approval_recorded', 'approved (more approvals needed)'), ('test', 'test event')], max_length=20, verbose_name='event')),
                        ('url', models.URLField(max_length=500)),
                        ('secret', models.CharField(blank=True, editable=False, max_length=128)),
                        ('payload', models.JSONField(default=dict)),
                        ('format', models.CharField(default='generic', max_length=10)),
                        ('status', models.CharField(default='pending', max_length=10)),
                        ('attempts', models.PositiveSmallIntegerField(default=0)),
                        ('next_attempt_at', models.DateTimeField(blank=True, null=True)),
                        ('response_status', models.PositiveSmallIntegerField(blank=True, null=True)),
                        ('last_error', models.TextField(blank=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('evaluation', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='evaluations.evaluation')),
                        ('resend_of', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='notifications.webhookdelivery')),
                        ('team', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='webhook_deliveries', to='teams.team')),
                    ],
                    options={
                        'verbose_name': 'webhook delivery',
                        'verbose_name_plural': 'webhook deliveries',
                        'db_table': 'evaluations_webhookdelivery',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['status', 'created_at'], name='webhook_by_status_idx'), models.Index(fields=['team', '-created_at'], name='webhook_by_team_idx')],
                    },
                ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="notifications"),
    ]
