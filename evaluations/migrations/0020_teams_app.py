"""Team, Membership and Invitation leave the evaluations app for the teams app (issue 44): state
only. The foreign keys to Team point at the same table, so their constraints stay as they are."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("evaluations", "0019_review_voided"),
        ("teams", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="membership",
                    name="team",
                ),
                migrations.RemoveField(
                    model_name="membership",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="team",
                    name="members",
                ),
                migrations.AlterField(
                    model_name="webhookdelivery",
                    name="team",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="webhook_deliveries",
                        to="teams.team",
                    ),
                ),
                migrations.AlterField(
                    model_name="clustersnapshot",
                    name="team",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="cluster_snapshots",
                        to="teams.team",
                        verbose_name="team",
                    ),
                ),
                migrations.AlterField(
                    model_name="approvalpolicy",
                    name="team",
                    field=models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="approval_policy",
                        to="teams.team",
                    ),
                ),
                migrations.AlterField(
                    model_name="evaluation",
                    name="team",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="evaluations",
                        to="teams.team",
                        verbose_name="team",
                    ),
                ),
                migrations.DeleteModel(
                    name="Invitation",
                ),
                migrations.DeleteModel(
                    name="Membership",
                ),
                migrations.DeleteModel(
                    name="Team",
                ),
            ],
            database_operations=[],
        ),
    ]
