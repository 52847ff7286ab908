"""Catalog writes. Every change to projects and rows goes through `bundle_apply`.

The admin, the REST API, `import_bundle` and `load_catalog` all hand a bundle (or a one-row
bundle) to the same function, so validation, the all-or-nothing rule, the field-by-field history
and the matrix refresh are the same whichever door the data came in by.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from catalog.bulk_insert import insert_rows, insert_rows_with_ids
from catalog.engine.bundle import (
    GIVEN,
    INTERFACE_RELATIONS,
    PROJECT_KEYS,
    BundleError,
    BundleInvalid,
    diff_fields,
    normalize_bundle,
    tag_slug,
    vocabulary_errors,
)
from catalog.engine.functions import infer_functions
from catalog.models import (
    COST_ASPECTS,
    CatalogChange,
    ChangeAction,
    EnforcementPoint,
    Interface,
    Layer,
    PlacementInterface,
    PlacementRow,
    Project,
    ResourceUnit,
    Tag,
)
from catalog.search.services import search_documents_refresh
from catalog.selectors import (
    StoredProject,
    catalog_revision,
    catalog_revision_forget,
    stored_projects,
    vocabulary_current,
)
from catalog.signals import catalog_rows_changed
from ecomap.gcpause import gc_paused

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int], None]

# Callbacks run on commit after any catalog write (the matrix refresh registers itself here).
_on_catalog_change: list[Callable[[], None]] = []


def on_catalog_change(callback: Callable[[], None]) -> Callable[[], None]:
    _on_catalog_change.append(callback)
    return callback


@dataclass
class ItemChange:
    """One project or row that a bundle creates or updates, with its field-by-field changes."""

    path: str
    project: str
    row: str
    action: str  # created | updated | unchanged
    diff: dict[str, dict[str, Any]] = field(default_factory=dict)
    # A created item keeps its new values; its "changes" are derived only when asked for,
    # because a 10,000-row import should not build 10,000 dicts nobody reads.
    created_values: dict[str, Any] | None = None

    @property
    def changes(self) -> dict[str, dict[str, Any]]:
        if self.created_values is None:
            return self.diff
        return {
            key: {"old": None, "new": value}
            for key, value in self.created_values.items()
            if key not in ("placements", "slug", "key") and value not in ("", [], {}, None)
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "project": self.project,
            "row": self.row,
            "action": self.action,
            "changes": self.changes,
        }


@dataclass
class BundleResult:
    dry_run: bool
    items: list[ItemChange]

    def counts(self) -> dict[str, dict[str, int]]:
        counts = {
            kind: {"created": 0, "updated": 0, "unchanged": 0} for kind in ("projects", "rows")
        }
        for item in self.items:
            counts["rows" if item.row else "projects"][item.action] += 1
        return counts

    @property
    def changed(self) -> int:
        return sum(1 for item in self.items if item.action != "unchanged")

    def to_dict(self, *, include_unchanged: bool = False) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "counts": self.counts(),
            "changes": [
                item.to_dict()
                for item in self.items
                if include_unchanged or item.action != "unchanged"
            ],
        }


def interface_parts(identifier: str) -> tuple[str, str]:
    kind, _, name = identifier.partition(":")
    return kind, name


def _row_fields(placement: dict[str, Any], layer_ids: dict[str, int]) -> dict[str, Any]:
    """Model field values (attnames) of a normalised placement; M2M and contracts go separately."""
    reviewed, verified = placement["reviewed"], placement["verified_at"]
    values: dict[str, Any] = {
        "component": placement["component"],
        "layer_id": layer_ids[placement["layer"]],
        "promise": placement["promise"],
        "non_promise": placement["non_promise"],
        "failure_modes": placement["failure_modes"],
        "evidence": placement["evidence"],
        "unverified": placement["unverified"],
        "detect": placement["detect"],
        "config": placement["config"],
        "versions": placement["versions"],
        "contract_versions": placement["contract_versions"],
        "project_version": placement["project_version"],
        "reviewed_on": dt.date.fromisoformat(reviewed) if reviewed else None,
        "verified_at": dt.date.fromisoformat(verified) if verified else None,
        "functions": placement["functions"],
        "functions_inferred": placement["functions_inferred"],
        "vendors": placement["vendors"],
    }
    for aspect, level in placement["isolation"].items():
        values[f"isolation_{aspect}"] = level
    for aspect in COST_ASPECTS:
        cost = placement["costs"].get(aspect)
        values[f"cost_{aspect}"] = cost["level"] if cost else ""
        values[f"cost_{aspect}_note"] = cost["note"] if cost else ""
    return values


ROW_FIELD_NAMES = tuple(
    _row_fields(
        {
            "component": "", "layer": "x", "promise": "", "non_promise": "",
            "failure_modes": [], "evidence": [], "unverified": [], "detect": {}, "config": {},
            "versions": "", "contract_versions": {}, "project_version": "", "reviewed": "",
            "verified_at": "", "functions": [], "functions_inferred": False, "vendors": [],
            "isolation": {"memory": "", "compute": "", "fault": ""}, "costs": {},
        },
        {"x": 0},
    )
)  # fmt: skip


# One PostgreSQL advisory lock for every catalog write (imports, API, admin, load_catalog):
# writes are rare and short, and taking it before reading what is stored means two imports of
# the same new project apply one after the other (create, then update) and each history entry
# starts from the value really stored. SQLite serialises writers by itself.
CATALOG_WRITE_LOCK = 0x45434D50  # "ECMP"


def catalog_write_lock() -> None:
    """Hold the catalog's write lock until the current transaction ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CATALOG_WRITE_LOCK])


@gc_paused()
def bundle_apply(
    *,
    document: dict[str, Any] | None = None,
    normalized: list[dict[str, Any]] | None = None,
    actor=None,
    source: str = "",
    dry_run: bool = False,
    progress: ProgressCallback | None = None,
    mode: str = "replace",
) -> BundleResult:
    """Validate a bundle and apply it all or nothing; with dry_run, only report what would change.

    `mode="merge"` (what imports do unless asked otherwise): a stored placement row keeps the
    value of every field the bundle's placement leaves out. `mode="replace"` (the built-in
    catalog, the project API's PUT, the admin): the placement as given is the whole row, omitted
    fields taking their defaults.

    Pass either the `document`, or the `normalized` projects a previous normalize_bundle call
    returned (imports validate once at submit time; only the vocabulary, which may have changed
    since, is checked again). Raises BundleInvalid (with every error and its JSON path) and
    writes nothing if any item is invalid. The number of queries does not grow with the number
    of projects or rows.
    """
    vocabulary = vocabulary_current()
    if normalized is None:
        projects = normalize_bundle(document, vocabulary)
    else:
        errors = vocabulary_errors(normalized, vocabulary)
        if errors:
            raise BundleInvalid(errors)
        projects = normalized
    with transaction.atomic():
        if not dry_run:
            catalog_write_lock()
        stored = stored_projects(
            slugs=[project["slug"] for project in projects], vocabulary=vocabulary
        )
        if mode not in IMPORT_MODES:
            raise ValueError(f"unknown import mode {mode!r}: use one of {', '.join(IMPORT_MODES)}")
        plan = _plan(
            projects,
            stored,
            merge=mode == "merge",
            function_order=list(vocabulary.function_keys),
        )
        if progress:
            progress(0, len(plan.items))
        if not dry_run and plan.has_writes:
            _write(plan, actor=actor, source=source)
    if progress:
        progress(len(plan.items), len(plan.items))
    return BundleResult(dry_run=dry_run, items=plan.items)


@dataclass
class _Plan:
    items: list[ItemChange] = field(default_factory=list)
    new_projects: list[dict[str, Any]] = field(default_factory=list)
    # (project id, incoming fields, changes)
    changed_projects: list[tuple[int, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    # (project slug, normalised placement)
    new_rows: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # (row id, project slug, normalised placement, changes)
    changed_rows: list[tuple[int, str, dict[str, Any], dict[str, Any]]] = field(
        default_factory=list
    )
    project_ids: dict[str, int] = field(default_factory=dict)

    @property
    def has_writes(self) -> bool:
        return bool(
            self.new_projects or self.changed_projects or self.new_rows or self.changed_rows
        )


IMPORT_MODES = ("merge", "replace")


def _merged(
    stored: dict[str, Any], incoming: dict[str, Any], given: set[str], function_order: list[str]
) -> dict[str, Any]:
    """`incoming` with the stored value of every field its bundle did not state. Functions left
    out follow the stored row: its own list if it had one, else inferred again from the merged
    row's layer, points, units and contracts."""
    merged = dict(incoming)
    for key, value in stored.items():
        if key not in given and key not in ("functions", "functions_inferred"):
            merged[key] = value
    if "functions" in given:
        return merged
    if not stored.get("functions_inferred", True):
        merged["functions"], merged["functions_inferred"] = stored["functions"], False
        return merged
    inferred = infer_functions(
        layer=merged["layer"],
        enforcement_points=merged["enforcement_points"],
        provides=merged.get("provides") or [],
        resource_units=merged["resource_units"],
    )
    rank = {key: index for index, key in enumerate(function_order)}
    merged["functions"] = sorted(set(inferred), key=lambda f: (rank.get(f, 99), f))
    merged["functions_inferred"] = True
    return merged


def _plan(
    projects: list[dict[str, Any]],
    stored: dict[str, StoredProject],
    *,
    merge: bool = False,
    function_order: list[str] | None = None,
) -> _Plan:
    plan = _Plan(project_ids={slug: project.id for slug, project in stored.items()})
    for index, incoming in enumerate(projects):
        slug = incoming["slug"]
        fields = {key: incoming[key] for key in PROJECT_KEYS if key in incoming}
        current = stored.get(slug)
        path = f"projects[{index}]"
        if current is None:
            plan.new_projects.append(fields)
            plan.items.append(ItemChange(path, slug, "", "created", created_values=fields))
            rows: dict[str, tuple[int, dict[str, Any]]] = {}
        else:
            changes = diff_fields(current.fields, fields)
            if changes:
                plan.changed_projects.append((current.id, fields, changes))
            plan.items.append(
                ItemChange(path, slug, "", "updated" if changes else "unchanged", changes)
            )
            rows = current.rows
        for row_index, given_placement in enumerate(incoming["placements"]):
            placement = {k: v for k, v in given_placement.items() if k != GIVEN}
            row_path = f"{path}.placements[{row_index}]"
            key = placement["key"]
            if key not in rows:
                plan.new_rows.append((slug, placement))
                plan.items.append(
                    ItemChange(row_path, slug, key, "created", created_values=placement)
                )
                continue
            row_id, current_placement = rows[key]
            if merge and GIVEN in given_placement:
                given = set(given_placement[GIVEN])
                placement = _merged(current_placement, placement, given, function_order or [])
            row_changes = diff_fields(current_placement, placement)
            if row_changes:
                plan.changed_rows.append((row_id, slug, placement, row_changes))
            plan.items.append(
                ItemChange(
                    row_path, slug, key, "updated" if row_changes else "unchanged", row_changes
                )
            )
    return plan


def _ensure_tags(names: set[str]) -> dict[str, int]:
    """Tag ids by name, creating the missing tags (names that slugify alike share a tag)."""
    slugs = {tag_slug(name): name for name in sorted(names)}
    found = dict(Tag.objects.filter(slug__in=slugs).values_list("slug", "id"))
    missing = [Tag(slug=slug, name=name) for slug, name in slugs.items() if slug not in found]
    if missing:
        Tag.objects.bulk_create(missing, ignore_conflicts=True)
        found = dict(Tag.objects.filter(slug__in=slugs).values_list("slug", "id"))
    return {name: found[tag_slug(name)] for name in names}


def _ensure_interfaces(identifiers: set[str]) -> dict[str, int]:
    found = dict(
        Interface.objects.filter(identifier__in=identifiers).values_list("identifier", "id")
    )
    missing = []
    for identifier in identifiers - found.keys():
        kind, name = interface_parts(identifier)
        missing.append(Interface(identifier=identifier, kind=kind, name=name))
    if missing:
        Interface.objects.bulk_create(missing, ignore_conflicts=True)
        found = dict(
            Interface.objects.filter(identifier__in=identifiers).values_list("identifier", "id")
        )
    return found


def _write(plan: _Plan, *, actor, source: str) -> None:
    now = timezone.now()
    actor_id = actor.pk if actor is not None and actor.is_authenticated else None
    source = source[:200]
    layer_ids = dict(Layer.objects.values_list("key", "id"))
    unit_ids = dict(ResourceUnit.objects.values_list("key", "id"))
    point_ids = dict(EnforcementPoint.objects.values_list("key", "id"))
    history: list[tuple] = []

    def record(project_id, slug, row_key, action, changes):
        history.append((now, actor_id, source, project_id, slug, row_key, action, changes))

    # Projects through COPY too, with ids drawn from their sequence first (one query).
    columns = [key for key in PROJECT_KEYS if key != "tags"]
    new_project_ids = insert_rows_with_ids(
        Project,
        (*columns, "created_at", "updated_at"),
        ((*(fields.get(key, "") for key in columns), now, now) for fields in plan.new_projects),
        count=len(plan.new_projects),
    )
    project_ids = plan.project_ids | {
        fields["slug"]: project_id
        for fields, project_id in zip(plan.new_projects, new_project_ids, strict=True)
    }
    if plan.changed_projects:
        updated = []
        for project_id, fields, _changes in plan.changed_projects:
            project = Project(id=project_id, updated_at=now)
            for key, value in fields.items():
                if key != "tags":
                    setattr(project, key, value)
            updated.append((project, [key for key in fields if key not in ("slug", "tags")]))
        for names in {tuple(names) for _, names in updated}:
            Project.objects.bulk_update(
                [project for project, fields in updated if tuple(fields) == names],
                [*names, "updated_at"],
            )
    retagged = [
        fields
        for fields in plan.new_projects + [fields for _, fields, _ in plan.changed_projects]
        if "tags" in fields
    ]
    if retagged:
        tags = _ensure_tags({tag for fields in retagged for tag in fields["tags"]})
        through = Project.tags.through
        # Only projects stored before this bundle can have tags to replace.
        stored_ids = [
            project_id for project_id, fields, _ in plan.changed_projects if "tags" in fields
        ]
        if stored_ids:
            through.objects.filter(project_id__in=stored_ids).delete()
        insert_rows(
            through,
            ("project_id", "tag_id"),
            {(project_ids[f["slug"]], tags[tag]) for f in retagged for tag in f["tags"]},
        )
    for fields in plan.new_projects:
        record(project_ids[fields["slug"]], fields["slug"], "", ChangeAction.CREATED, {})
    for project_id, fields, changes in plan.changed_projects:
        record(project_id, fields["slug"], "", ChangeAction.UPDATED, changes)

    # Rows: plain tuples through COPY, then their units, points and contracts.
    new_row_ids = insert_rows_with_ids(
        PlacementRow,
        ("project_id", "key", "created_at", "updated_at", *ROW_FIELD_NAMES),
        (
            (project_ids[slug], placement["key"], now, now,
             *_row_fields(placement, layer_ids).values())
            for slug, placement in plan.new_rows
        ),
        count=len(plan.new_rows),
    )  # fmt: skip
    if plan.changed_rows:
        PlacementRow.objects.bulk_update(
            [
                PlacementRow(id=row_id, updated_at=now, **_row_fields(placement, layer_ids))
                for row_id, _slug, placement, _changes in plan.changed_rows
            ],
            [*ROW_FIELD_NAMES, "updated_at"],
            batch_size=1000,
        )
    written = [
        (row_id, placement)
        for row_id, (_slug, placement) in zip(new_row_ids, plan.new_rows, strict=True)
    ] + [(row_id, placement) for row_id, _slug, placement, _ in plan.changed_rows]
    changed_ids = [row_id for row_id, *_ in plan.changed_rows]
    if changed_ids:
        PlacementRow.resource_units.through.objects.filter(placementrow_id__in=changed_ids).delete()
        PlacementRow.enforcement_points.through.objects.filter(
            placementrow_id__in=changed_ids
        ).delete()
        PlacementInterface.objects.filter(row_id__in=changed_ids).delete()
    interface_ids = _ensure_interfaces(
        {
            identifier
            for _, placement in written
            for relation in INTERFACE_RELATIONS
            for identifier in placement[relation]
        }
    )
    insert_rows(
        PlacementRow.resource_units.through,
        ("placementrow_id", "resourceunit_id"),
        ((row_id, unit_ids[unit]) for row_id, p in written for unit in p["resource_units"]),
    )
    insert_rows(
        PlacementRow.enforcement_points.through,
        ("placementrow_id", "enforcementpoint_id"),
        ((row_id, point_ids[point]) for row_id, p in written for point in p["enforcement_points"]),
    )
    insert_rows(
        PlacementInterface,
        ("row_id", "interface_id", "relation", "position"),
        (
            (row_id, interface_ids[identifier], relation, position)
            for row_id, placement in written
            for relation in INTERFACE_RELATIONS
            for position, identifier in enumerate(placement[relation])
        ),
    )
    for slug, placement in plan.new_rows:
        record(project_ids[slug], slug, placement["key"], ChangeAction.CREATED, {})
    for _row_id, slug, placement, changes in plan.changed_rows:
        record(project_ids[slug], slug, placement["key"], ChangeAction.UPDATED, changes)
    insert_rows(
        CatalogChange,
        ("created_at", "actor_id", "source", "project_id", "project_slug", "row_key", "action",
         "changes"),
        history,
    )  # fmt: skip
    search_documents_refresh(project_ids={project_id for _, _, _, project_id, *_ in history})
    _notify_catalog_changed({f"{slug}/{row_key}" for *_, slug, row_key, _action, _c in history})


def _notify_catalog_changed(refs: set[str]) -> None:
    catalog_revision_forget()
    for callback in _on_catalog_change:
        transaction.on_commit(callback)
    transaction.on_commit(lambda: _send_rows_changed(refs))


def _send_rows_changed(refs: set[str]) -> None:
    """Tell listeners (catalog drift) what a committed write touched; the write stands even if
    a listener fails, so a failure is logged, not raised into the request that wrote."""
    sent = catalog_rows_changed.send_robust(
        sender=PlacementRow, refs=sorted(refs), revision=catalog_revision()
    )
    for receiver, result in sent:
        if isinstance(result, Exception):
            logger.error("catalog_rows_changed: %r failed", receiver, exc_info=result)


def placement_row_delete(*, row: PlacementRow, actor=None, source: str = "") -> None:
    with transaction.atomic():
        catalog_write_lock()
        project = row.project
        CatalogChange.objects.create(
            actor=actor if actor is not None and actor.is_authenticated else None,
            source=source,
            project=project,
            project_slug=project.slug,
            row_key=row.key,
            action=ChangeAction.DELETED,
            changes={},
        )
        row.delete()
        search_documents_refresh(project_ids=[project.pk])
        _notify_catalog_changed({f"{project.slug}/{row.key}"})


def project_delete(*, project: Project, actor=None, source: str = "") -> None:
    with transaction.atomic():
        catalog_write_lock()
        CatalogChange.objects.create(
            actor=actor if actor is not None and actor.is_authenticated else None,
            source=source,
            project=None,
            project_slug=project.slug,
            action=ChangeAction.DELETED,
            changes={"name": {"old": project.name, "new": None}},
        )
        slug = project.slug
        project.delete()
        _notify_catalog_changed({f"{slug}/"})


__all__ = [
    "BundleError",
    "BundleInvalid",
    "BundleResult",
    "ItemChange",
    "bundle_apply",
    "on_catalog_change",
    "placement_row_delete",
    "project_delete",
]
