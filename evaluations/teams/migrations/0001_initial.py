"""The teams app takes over the evaluations app's Team, Membership and Invitation (issue 44):
state only, the tables keep their names (`db_table`), so nothing in the database moves but the
content types' app label (their permissions and admin log entries follow)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("team", "membership", "invitation")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("evaluations", "0019_review_voided"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
            migrations.CreateModel(
                name='Membership',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('role', models.CharField(choices=[('viewer', 'viewer'), ('editor', 'editor'), ('reviewer', 'reviewer'), ('admin', 'admin')], default='viewer', max_length=10, verbose_name='role')),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'verbose_name': 'membership',
                    'verbose_name_plural': 'memberships',
                    'db_table': 'evaluations_membership',
                    'ordering': ['team__name', 'user__username'],
                },
            ),
            migrations.CreateModel(
                name='Team',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=120, verbose_name='name')),
                    ('slug', models.SlugField(max_length=80, unique=True, verbose_name='slug')),
                    ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                    ('webhook_url', models.URLField(blank=True, max_length=500, verbose_name='webhook URL')),
                    ('webhook_secret', models.CharField(blank=True, max_length=128, verbose_name='webhook secret')),
                    ('webhook_format', models.CharField(blank=True, choices=[('generic', 'EcoMap JSON'), ('slack', 'Slack-compatible'), ('feishu', 'Feishu / Lark')], default='generic', max_length=10, verbose_name='webhook format')),
                    ('members', models.ManyToManyField(related_name='teams', through='teams.Membership', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'verbose_name': 'team',
                    'verbose_name_plural': 'teams',
                    'db_table': 'evaluations_team',
                    'ordering': ['name'],
                },
            ),
            migrations.AddField(
                model_name='membership',
                name='team',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='teams.team'),
            ),
            migrations.CreateModel(
                name='Invitation',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('email', models.EmailField(max_length=254, verbose_name='e-mail')),
                    ('role', models.CharField(choices=[('viewer', 'viewer'), ('editor', 'editor'), ('reviewer', 'reviewer'), ('admin', 'admin')], default='viewer', max_length=10, verbose_name='role')),
                    ('key_hash', models.CharField(editable=False, max_length=64, unique=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='sent')),
                    ('expires_at', models.DateTimeField(verbose_name='expires')),
                    ('accepted_at', models.DateTimeField(blank=True, null=True, verbose_name='accepted')),
                    ('revoked_at', models.DateTimeField(blank=True, null=True, verbose_name='withdrawn')),
                    ('accepted_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('invited_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('team', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='invitations', to='teams.team')),
                ],
                options={
                    'verbose_name': 'invitation',
                    'verbose_name_plural': 'invitations',
                    'db_table': 'evaluations_invitation',
                    'ordering': ['-created_at', '-id'],
                },
            ),
            migrations.AddIndex(
                model_name='membership',
                index=models.Index(fields=['user', 'team'], name='membership_by_user_idx'),
            ),
            migrations.AddConstraint(
                model_name='membership',
                constraint=models.UniqueConstraint(fields=('team', 'user'), name='membership_unique_user'),
            ),
            migrations.AddIndex(
                model_name='invitation',
                index=models.Index(fields=['team', '-created_at'], name='invitation_by_team_idx'),
            ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="teams"),
    ]
