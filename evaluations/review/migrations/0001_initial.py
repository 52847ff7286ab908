"""The review app takes over the evaluations app's Review, Comment, CommentOverride and
EvaluationRevision (issue 44): state only, the tables keep their names (`db_table`); the content
types' app label moves."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from ecomap.app_moves import content_types_moved

MOVED = ("review", "comment", "commentoverride", "evaluationrevision")


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
                    name='Comment',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('anchor', models.CharField(choices=[('profile', 'Workload and SLO'), ('units', 'Resource units'), ('candidates', 'Candidates and enforcement points'), ('boundaries', 'Boundaries of responsibility'), ('decision', 'Decision')], max_length=20, verbose_name='about')),
                        ('body', models.TextField(verbose_name='comment')),
                        ('revision', models.PositiveIntegerField(verbose_name='revision commented on')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                        ('resolved_at', models.DateTimeField(blank=True, null=True, verbose_name='resolved')),
                        ('author', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='author')),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='comments', to='evaluations.evaluation')),
                        ('resolved_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'verbose_name': 'comment',
                        'verbose_name_plural': 'comments',
                        'db_table': 'evaluations_comment',
                        'ordering': ['created_at', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='CommentOverride',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('revision', models.PositiveIntegerField(verbose_name='revision approved')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                        ('approver', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('comment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='overrides', to='review.comment')),
                    ],
                    options={
                        'verbose_name': 'comment override',
                        'verbose_name_plural': 'comment overrides',
                        'db_table': 'evaluations_commentoverride',
                        'ordering': ['created_at', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='EvaluationRevision',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('revision', models.PositiveIntegerField(verbose_name='revision')),
                        ('content', models.JSONField(default=dict, verbose_name='content')),
                        ('name', models.CharField(blank=True, choices=[('submitted', 'submitted'), ('approved', 'approved'), ('changes_requested', 'changes requested')], max_length=20, verbose_name='named')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                        ('actor', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='revisions', to='evaluations.evaluation')),
                    ],
                    options={
                        'verbose_name': 'evaluation revision',
                        'verbose_name_plural': 'evaluation revisions',
                        'db_table': 'evaluations_evaluationrevision',
                        'ordering': ['evaluation', 'revision'],
                    },
                ),
                migrations.CreateModel(
                    name='Review',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('verdict', models.CharField(choices=[('approve', 'approve'), ('request_changes', 'request changes')], max_length=20, verbose_name='verdict')),
                        ('comment', models.TextField(blank=True, verbose_name='comment')),
                        ('step_comments', models.JSONField(blank=True, default=dict, verbose_name='comments per step')),
                        ('revision', models.PositiveIntegerField(verbose_name='revision reviewed')),
                        ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='when')),
                        ('voided_at', models.DateTimeField(blank=True, null=True, verbose_name='no longer counts since')),
                        ('void_reason', models.CharField(blank=True, max_length=80, verbose_name='why it no longer counts')),
                        ('evaluation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='reviews', to='evaluations.evaluation')),
                        ('reviewer', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'verbose_name': 'review',
                        'verbose_name_plural': 'reviews',
                        'db_table': 'evaluations_review',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.AddIndex(
                    model_name='comment',
                    index=models.Index(fields=['evaluation', 'anchor'], name='comment_by_anchor_idx'),
                ),
                migrations.AddConstraint(
                    model_name='evaluationrevision',
                    constraint=models.UniqueConstraint(fields=('evaluation', 'revision'), name='evaluation_revision_unique'),
                ),
            ],
            database_operations=[],
        ),
        content_types_moved(MOVED, source="evaluations", target="review"),
    ]
