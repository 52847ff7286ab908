"""Seed the vocabulary of DESIGN.md (layers, resource units, enforcement points), bilingual."""

from django.db import migrations

from catalog.vocabulary import ENFORCEMENT_POINTS, LAYERS, RESOURCE_UNITS


def seed(apps, schema_editor):
    for model_name, terms in (
        ("Layer", LAYERS),
        ("ResourceUnit", RESOURCE_UNITS),
        ("EnforcementPoint", ENFORCEMENT_POINTS),
    ):
        model = apps.get_model("catalog", model_name)
        for position, term in enumerate(terms):
            model.objects.update_or_create(
                key=term.key,
                defaults={
                    "name_en": term.name_en,
                    "name_zh": term.name_zh,
                    "description_en": term.description_en,
                    "description_zh": term.description_zh,
                    "position": position,
                },
            )


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
