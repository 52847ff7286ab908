"""Notification and WebhookDelivery leave the evaluations app for the notifications app (issue 44):
state only."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("evaluations", "0020_teams_app"),
        ("notifications", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='webhookdelivery',
                    name='evaluation',
                ),
                migrations.RemoveField(
                    model_name='webhookdelivery',
                    name='resend_of',
                ),
                migrations.RemoveField(
                    model_name='webhookdelivery',
                    name='team',
                ),
                migrations.DeleteModel(
                    name='Notification',
                ),
                migrations.DeleteModel(
                    name='WebhookDelivery',
                ),
            ],
            database_operations=[],
        ),
    ]
