"""Matrix snapshots computed with the five-verdict rule (format ecomap.matrix/v1) are caches of
an answer the six-verdict rule changed: drop them so they are recomputed, never misread."""

from django.db import migrations


def drop_old_snapshots(apps, schema_editor):
    apps.get_model("catalog", "MatrixSnapshot").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("catalog", "0008_assigner_interface_kind")]

    operations = [migrations.RunPython(drop_old_snapshots, migrations.RunPython.noop)]
