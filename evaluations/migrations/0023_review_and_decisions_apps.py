"""Review, Comment, CommentOverride, EvaluationRevision and Decision leave the evaluations app for
the review and decisions apps (issue 44): state only."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("evaluations", "0022_room_apps"),
        ("decisions", "0001_initial"),
        ("review", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='commentoverride',
                    name='comment',
                ),
                migrations.RemoveField(
                    model_name='commentoverride',
                    name='approver',
                ),
                migrations.RemoveField(
                    model_name='decision',
                    name='decided_by',
                ),
                migrations.RemoveField(
                    model_name='decision',
                    name='evaluation',
                ),
                migrations.RemoveField(
                    model_name='evaluationrevision',
                    name='actor',
                ),
                migrations.RemoveField(
                    model_name='evaluationrevision',
                    name='evaluation',
                ),
                migrations.RemoveField(
                    model_name='review',
                    name='evaluation',
                ),
                migrations.RemoveField(
                    model_name='review',
                    name='reviewer',
                ),
                migrations.DeleteModel(
                    name='Comment',
                ),
                migrations.DeleteModel(
                    name='CommentOverride',
                ),
                migrations.DeleteModel(
                    name='Decision',
                ),
                migrations.DeleteModel(
                    name='EvaluationRevision',
                ),
                migrations.DeleteModel(
                    name='Review',
                ),
            ],
            database_operations=[],
        ),
    ]
