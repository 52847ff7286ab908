"""Writing the search documents: rebuilt in SQL from the catalog tables, for the projects a write
touched (called by the one write path, `catalog.services`, inside its transaction)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

# Weights: A names (project, slug, row key, component), B what a row is (layer, functions,
# resource units, enforcement points, the interfaces it provides, "hard isolation" when memory,
# compute and fault isolation are all hard, tags), C what it promises and
# the project's description, D what it does not promise. Identifiers such as
# `capability:gang-scheduling` or `memory_compute_quota` are split into words first (translate).
ROW_DOCUMENTS_SQL = """
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
WHERE %(all)s OR r.project_id = ANY(%(ids)s)
ON CONFLICT (row_id) DO UPDATE SET document = EXCLUDED.document
"""

PROJECT_DOCUMENTS_SQL = """
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
WHERE %(all)s OR p.id = ANY(%(ids)s)
ON CONFLICT (project_id) DO UPDATE SET document = EXCLUDED.document
"""


def search_documents_refresh(*, project_ids: Iterable[int] | None = None) -> None:
    """Rebuild the documents of these projects and their rows (every project when None). The
    SQLite demo keeps none: its search matches words directly."""
    if connection.vendor != "postgresql":
        return
    ids = None if project_ids is None else sorted(set(project_ids))
    if ids == []:
        return
    params = {"all": ids is None, "ids": ids or []}
    with connection.cursor() as cursor:
        cursor.execute(ROW_DOCUMENTS_SQL, params)
        cursor.execute(PROJECT_DOCUMENTS_SQL, params)
