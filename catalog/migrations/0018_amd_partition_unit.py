"""Add the resource unit amd_partition (AMD Instinct compute/memory partitions, issue 38) and keep
the units in vocabulary order. Rows serving AMD GPUs only gave their partitions as mig_slice, the
closest unit there was; they now give amd_partition (MIG is NVIDIA's)."""

from django.db import migrations

from catalog.vocabulary import RESOURCE_UNITS


def add_unit(apps, schema_editor):
    unit_model = apps.get_model("catalog", "ResourceUnit")
    for position, term in enumerate(RESOURCE_UNITS):
        unit, _created = unit_model.objects.get_or_create(
            key=term.key,
            defaults={
                "name_en": term.name_en,
                "name_zh": term.name_zh,
                "description_en": term.description_en,
                "description_zh": term.description_zh,
                "position": position,
            },
        )
        if unit.position != position:
            unit.position = position
            unit.save(update_fields=["position"])
    mig = unit_model.objects.get(key="mig_slice")
    amd = unit_model.objects.get(key="amd_partition")
    for row in apps.get_model("catalog", "PlacementRow").objects.filter(resource_units=mig):
        if list(row.vendors or ()) == ["amd"]:
            row.resource_units.remove(mig)
            row.resource_units.add(amd)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0017_placement_config")]

    operations = [migrations.RunPython(add_unit, migrations.RunPython.noop)]
