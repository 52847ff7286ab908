"""The approvals, reports, sharing, simulations and clusters rooms' models leave the evaluations app
for apps of their own (issue 44): state only."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("evaluations", "0021_notifications_app"),
        ("approvals", "0001_initial"),
        ("reports", "0001_initial"),
        ("sharing", "0001_initial"),
        ("simulations", "0001_initial"),
        ("clusters", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='approvalrule',
                    name='policy',
                ),
                migrations.RemoveField(
                    model_name='approvalrule',
                    name='members',
                ),
                migrations.RemoveField(
                    model_name='capacityrun',
                    name='evaluation',
                ),
                migrations.RemoveField(
                    model_name='capacityrun',
                    name='requested_by',
                ),
                migrations.RemoveField(
                    model_name='clusterattachment',
                    name='attached_by',
                ),
                migrations.RemoveField(
                    model_name='clusterattachment',
                    name='evaluation',
                ),
                migrations.RemoveField(
                    model_name='clusterattachment',
                    name='snapshot',
                ),
                migrations.RemoveField(
                    model_name='clustersnapshot',
                    name='team',
                ),
                migrations.RemoveField(
                    model_name='clustersnapshot',
                    name='uploaded_by',
                ),
                migrations.RemoveField(
                    model_name='report',
                    name='evaluation',
                ),
                migrations.RemoveField(
                    model_name='report',
                    name='requested_by',
                ),
                migrations.RemoveField(
                    model_name='reviewrequest',
                    name='evaluation',
                ),
                migrations.RemoveField(
                    model_name='reviewrequest',
                    name='requested_by',
                ),
                migrations.RemoveField(
                    model_name='reviewrequest',
                    name='reviewer',
                ),
                migrations.RemoveField(
                    model_name='shareaccess',
                    name='link',
                ),
                migrations.RemoveField(
                    model_name='sharelink',
                    name='created_by',
                ),
                migrations.RemoveField(
                    model_name='sharelink',
                    name='evaluation',
                ),
                migrations.RemoveField(
                    model_name='sharelink',
                    name='revoked_by',
                ),
                migrations.DeleteModel(
                    name='ApprovalPolicy',
                ),
                migrations.DeleteModel(
                    name='ApprovalRule',
                ),
                migrations.DeleteModel(
                    name='CapacityRun',
                ),
                migrations.DeleteModel(
                    name='ClusterAttachment',
                ),
                migrations.DeleteModel(
                    name='ClusterSnapshot',
                ),
                migrations.DeleteModel(
                    name='Report',
                ),
                migrations.DeleteModel(
                    name='ReviewRequest',
                ),
                migrations.DeleteModel(
                    name='ShareAccess',
                ),
                migrations.DeleteModel(
                    name='ShareLink',
                ),
            ],
            database_operations=[],
        ),
    ]
