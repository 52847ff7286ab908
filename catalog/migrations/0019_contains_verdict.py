"""Issue 43: the `contains` interface kind (one project ships another) and the seven-verdict rule
with `contains` first. Matrix snapshots computed with the six-verdict rule store holds flags whose
bits now mean other verdicts: drop them so they are recomputed, never misread."""

from django.db import migrations, models


def drop_six_verdict_snapshots(apps, schema_editor):
    apps.get_model("catalog", "MatrixSnapshot").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("catalog", "0018_amd_partition_unit")]

    operations = [
        migrations.AlterField(
            model_name="interface",
            name="kind",
            field=models.CharField(
                choices=[
                    ("resource", "extended resource"),
                    ("crd", "custom resource definition"),
                    ("api", "API"),
                    ("signal", "signal (metric)"),
                    ("label", "node label"),
                    ("capability", "capability"),
                    ("owner", "ownership token"),
                    ("assigner", "device assigner (scheduler)"),
                    ("deviceclass", "DRA DeviceClass"),
                    ("contains", "contained project (shipped inside)"),
                ],
                max_length=20,
                verbose_name="kind",
            ),
        ),
        migrations.RunPython(drop_six_verdict_snapshots, migrations.RunPython.noop),
    ]
