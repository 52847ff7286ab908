"""AuditEntry leaves the evaluations app for the audit app (issue 44): state only."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("evaluations", "0023_review_and_decisions_apps"),
        ("audit", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(
                    name='AuditEntry',
                ),
            ],
            database_operations=[],
        ),
    ]
