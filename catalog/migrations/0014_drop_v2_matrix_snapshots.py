"""Matrix snapshots stored as `ecomap.matrix/v2` (one byte per pair of the upper triangle) are
caches the sparse v3 format replaces (issue 28 H1): drop them so they are recomputed."""

from django.db import migrations


def drop_old_snapshots(apps, schema_editor):
    apps.get_model("catalog", "MatrixSnapshot").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("catalog", "0013_placementrow_vendors")]

    operations = [migrations.RunPython(drop_old_snapshots, migrations.RunPython.noop)]
