"""Search documents per project and row (full-text, GIN) and a trigram index on project names.

pg_trgm is created here; the GIN indexes exist only on PostgreSQL (the SQLite demo searches
without them), and existing catalogs get their documents filled.
"""

import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.deletion
from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models

INDEXES = [
    (
        "project",
        django.contrib.postgres.indexes.GinIndex(
            fields=["name"], name="project_name_trgm", opclasses=["gin_trgm_ops"]
        ),
    ),
    (
        "projectsearchdocument",
        django.contrib.postgres.indexes.GinIndex(fields=["document"], name="project_search_gin"),
    ),
    (
        "rowsearchdocument",
        django.contrib.postgres.indexes.GinIndex(fields=["document"], name="row_search_gin"),
    ),
]


def add_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for model_name, index in INDEXES:
        schema_editor.add_index(apps.get_model("catalog", model_name), index)


def remove_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for model_name, index in INDEXES:
        schema_editor.remove_index(apps.get_model("catalog", model_name), index)


def fill_documents(apps, schema_editor):
    """The documents of a catalog stored before this migration (catalog.search.services builds
    them on every write from now on). The SQL is the service's, as it was when this was written."""
    if schema_editor.connection.vendor != "postgresql":
        return
    rows = """
INSERT INTO catalog_rowsearchdocument (row_id, document)
SELECT r.id,
       setweight(to_tsvector('english', p.name || ' ' || r.component || ' '
           || translate(p.slug || ' ' || r.key, '_:/.-"[],=<>', '            ')), 'A')
    || setweight(to_tsvector('english', translate(
           l.key || ' ' || r.functions::text
           || CASE WHEN r.isolation_memory = 'hard' AND r.isolation_compute = 'hard'
                    AND r.isolation_fault = 'hard' THEN ' hard isolation' ELSE '' END
           || ' ' || coalesce((SELECT string_agg(u.key, ' ') FROM catalog_resourceunit u
               JOIN catalog_placementrow_resource_units ru ON ru.resourceunit_id = u.id
               WHERE ru.placementrow_id = r.id), '')
           || ' ' || coalesce((SELECT string_agg(e.key, ' ') FROM catalog_enforcementpoint e
               JOIN catalog_placementrow_enforcement_points re ON re.enforcementpoint_id = e.id
               WHERE re.placementrow_id = r.id), '')
           || ' ' || coalesce((SELECT string_agg(i.identifier, ' ') FROM catalog_interface i
               JOIN catalog_placementinterface c ON c.interface_id = i.id
               WHERE c.row_id = r.id AND c.relation = 'provides'), ''),
           '_:/.-"[],=<>', '            ')), 'B')
    || setweight(to_tsvector('english', r.promise), 'C')
    || setweight(to_tsvector('english', r.non_promise), 'D')
FROM catalog_placementrow r
JOIN catalog_project p ON p.id = r.project_id
JOIN catalog_layer l ON l.id = r.layer_id
ON CONFLICT (row_id) DO UPDATE SET document = EXCLUDED.document
"""

    projects = """
INSERT INTO catalog_projectsearchdocument (project_id, document)
SELECT p.id,
       setweight(to_tsvector('english', p.name || ' ' || p.slug || ' ' || p.vendor || ' '
           || translate(p.slug, '_:/.-"[],=<>', '            ')), 'A')
    || setweight(to_tsvector('english', translate(
           coalesce((SELECT string_agg(t.slug || ' ' || t.name, ' ') FROM catalog_tag t
               JOIN catalog_project_tags pt ON pt.tag_id = t.id WHERE pt.project_id = p.id), '')
           || ' ' || coalesce((SELECT string_agg(r.component || ' ' || r.functions::text, ' ')
               FROM catalog_placementrow r WHERE r.project_id = p.id), ''),
           '_:/.-"[],=<>', '            ')), 'B')
    || setweight(to_tsvector('english', p.description), 'C')
    || setweight(to_tsvector('english', coalesce((SELECT string_agg(r.promise, ' ')
           FROM catalog_placementrow r WHERE r.project_id = p.id), '')), 'D')
FROM catalog_project p
ON CONFLICT (project_id) DO UPDATE SET document = EXCLUDED.document
"""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(rows)
        cursor.execute(projects)


class Migration(migrations.Migration):
    dependencies = [
        ("catalog", "0015_interface_kind_deviceclass"),
    ]

    operations = [
        TrigramExtension(),
        migrations.CreateModel(
            name="ProjectSearchDocument",
            fields=[
                (
                    "project",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="search",
                        serialize=False,
                        to="catalog.project",
                    ),
                ),
                ("document", django.contrib.postgres.search.SearchVectorField()),
            ],
        ),
        migrations.CreateModel(
            name="RowSearchDocument",
            fields=[
                (
                    "row",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="search",
                        serialize=False,
                        to="catalog.placementrow",
                    ),
                ),
                ("document", django.contrib.postgres.search.SearchVectorField()),
            ],
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(model_name=model_name, index=index)
                for model_name, index in INDEXES
            ],
            database_operations=[migrations.RunPython(add_indexes, remove_indexes)],
        ),
        migrations.RunPython(fill_documents, migrations.RunPython.noop),
    ]
