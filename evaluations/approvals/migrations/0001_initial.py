"""The approvals app takes over the evaluations app's ApprovalPolicy, ApprovalRule and ReviewRequest
(issue 44): state only, the tables keep their names (`db_table`); the content types' app label moves."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("approvalpolicy", "approvalrule", "reviewrequest")


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
                    name='ApprovalPolicy',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('required_approvals', models.PositiveSmallIntegerField(default=1, validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(10)], verbose_name='approvals required')),
                        ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated')),
                        ('team', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='approval_policy', to='teams.team')),
                    ],
                    options={
                        'verbose_name': 'approval policy',
                        'verbose_name_plural': 'approval policies',
                        'db_table': 'evaluations_approvalpolicy',
                    },
                ),
                migrations.CreateModel(
                    name='ApprovalRule',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=60, verbose_name='name')),
                        ('min_approvals', models.PositiveSmallIntegerField(default=1, validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(10)], verbose_name='approvals needed')),
                        ('role', models.CharField(blank=True, max_length=10, verbose_name='or anyone with the role')),
                        ('members', models.ManyToManyField(blank=True, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='named reviewers')),
                        ('policy', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rules', to='approvals.approvalpolicy')),
                    ],
                    options={
                        'verbose_name': 'approval rule',
                        'verbose_name_plural': 'approval rules',
                        'db_table': 'evaluations_approvalrule',
                        'ordering': ['policy', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='ReviewRequest',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('revision', models.PositiveIntegerField(verbose_name='revision')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='requested')),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='review_requests', to='evaluations.evaluation')),
                        ('requested_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('reviewer', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='review_requests', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'verbose_name': 'review request',
                        'verbose_name_plural': 'review requests',
                        'db_table': 'evaluations_reviewrequest',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['evaluation', '-created_at'], name='review_request_by_eval_idx')],
                    },
                ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="approvals"),
    ]
