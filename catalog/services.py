"""Catalog writes. Every change to projects and rows goes through `bundle_apply`.

The admin, the REST API, `import_bundle` and `load_catalog` all hand a bundle (or a one-row
bundle) to the same function, so validation, the all-or-nothing rule, the field-by-field history
and the matrix refresh are the same whichever door the data came in by.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Prefetch
from django.utils.text import slugify

from catalog.engine.bundle import (
    INTERFACE_RELATIONS,
    PROJECT_KEYS,
    BundleError,
    BundleInvalid,
    diff_fields,
    normalize_bundle,
)
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
from catalog.selectors import placement_to_bundle, vocabulary_current

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
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)

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


def _project_state(project: Project) -> dict[str, Any]:
    return {
        "slug": project.slug,
        "name": project.name,
        "vendor": project.vendor,
        "homepage": project.homepage,
        "repository": project.repository,
        "license": project.license,
        "description": project.description,
        "tags": sorted(tag.name for tag in project.tags.all()),
    }


def _row_fields(placement: dict[str, Any], layer_ids: dict[str, int]) -> dict[str, Any]:
    """Model field values of a normalised placement (contracts and M2M are written separately)."""
    values: dict[str, Any] = {
        "component": placement["component"],
        "layer_id": layer_ids[placement["layer"]],
        "promise": placement["promise"],
        "non_promise": placement["non_promise"],
        "failure_modes": placement["failure_modes"],
        "evidence": placement["evidence"],
        "unverified": placement["unverified"],
        "project_version": placement["project_version"],
        "reviewed_on": dt.date.fromisoformat(placement["reviewed"])
        if placement["reviewed"]
        else None,
    }
    for aspect, level in placement["isolation"].items():
        values[f"isolation_{aspect}"] = level
    for aspect in COST_ASPECTS:
        cost = placement["costs"].get(aspect)
        values[f"cost_{aspect}"] = cost["level"] if cost else ""
        values[f"cost_{aspect}_note"] = cost["note"] if cost else ""
    return values


ROW_UPDATE_FIELDS = [
    "component",
    "layer",
    "promise",
    "non_promise",
    "failure_modes",
    "evidence",
    "unverified",
    "project_version",
    "reviewed_on",
    "isolation_memory",
    "isolation_compute",
    "isolation_fault",
    *[f"cost_{aspect}" for aspect in COST_ASPECTS],
    *[f"cost_{aspect}_note" for aspect in COST_ASPECTS],
    "updated_at",
]


def bundle_apply(
    *,
    document: dict[str, Any],
    actor=None,
    source: str = "",
    dry_run: bool = False,
    progress: ProgressCallback | None = None,
) -> BundleResult:
    """Validate a bundle and apply it all or nothing; with dry_run, only report what would change.

    Raises BundleInvalid (with every error and its JSON path) and writes nothing if any item is
    invalid. The number of queries does not grow with the number of projects or rows.
    """
    vocabulary = vocabulary_current()
    projects = normalize_bundle(document, vocabulary)
    with transaction.atomic():
        existing = {
            project.slug: project
            for project in Project.objects.filter(
                slug__in=[project["slug"] for project in projects]
            ).prefetch_related(
                "tags", Prefetch("placements", queryset=PlacementRow.objects.with_cards())
            )
        }
        plan = _plan(projects, existing, vocabulary)
        if not dry_run and plan.has_writes:
            _write(plan, actor=actor, source=source, progress=progress)
    if progress:
        progress(len(plan.items), len(plan.items))
    return BundleResult(dry_run=dry_run, items=plan.items)


@dataclass
class _Plan:
    items: list[ItemChange] = field(default_factory=list)
    new_projects: list[dict[str, Any]] = field(default_factory=list)
    changed_projects: list[tuple[Project, dict[str, Any], dict[str, Any]]] = field(
        default_factory=list
    )
    # (project slug, normalised placement, existing row or None, changes)
    new_rows: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    changed_rows: list[tuple[PlacementRow, dict[str, Any], dict[str, Any]]] = field(
        default_factory=list
    )

    @property
    def has_writes(self) -> bool:
        return bool(
            self.new_projects or self.changed_projects or self.new_rows or self.changed_rows
        )


def _plan(projects: list[dict[str, Any]], existing: dict[str, Project], vocabulary) -> _Plan:
    plan = _Plan()
    for index, incoming in enumerate(projects):
        slug = incoming["slug"]
        fields = {key: incoming[key] for key in PROJECT_KEYS if key in incoming}
        current = existing.get(slug)
        path = f"projects[{index}]"
        if current is None:
            state = dict.fromkeys(PROJECT_KEYS, "") | {"slug": slug, "tags": []}
            changes = diff_fields(state, fields)
            plan.new_projects.append(fields)
            plan.items.append(ItemChange(path, slug, "", "created", changes))
            rows: dict[str, PlacementRow] = {}
        else:
            changes = diff_fields(_project_state(current), fields)
            if changes:
                plan.changed_projects.append((current, fields, changes))
            plan.items.append(
                ItemChange(path, slug, "", "updated" if changes else "unchanged", changes)
            )
            rows = {row.key: row for row in current.placements.all()}
        for row_index, placement in enumerate(incoming["placements"]):
            row_path = f"{path}.placements[{row_index}]"
            row = rows.get(placement["key"])
            if row is None:
                empty = dict.fromkeys(placement)
                plan.new_rows.append((slug, placement))
                plan.items.append(
                    ItemChange(
                        row_path, slug, placement["key"], "created", diff_fields(empty, placement)
                    )
                )
                continue
            row_changes = diff_fields(placement_to_bundle(row, vocabulary), placement)
            if row_changes:
                plan.changed_rows.append((row, placement, row_changes))
            plan.items.append(
                ItemChange(
                    row_path,
                    slug,
                    placement["key"],
                    "updated" if row_changes else "unchanged",
                    row_changes,
                )
            )
    return plan


def _ensure_tags(names: set[str]) -> dict[str, Tag]:
    by_slug = {slugify(name)[:80] or "tag": name for name in names}
    found = {tag.slug: tag for tag in Tag.objects.filter(slug__in=by_slug)}
    missing = [Tag(slug=slug, name=name) for slug, name in by_slug.items() if slug not in found]
    if missing:
        Tag.objects.bulk_create(missing, ignore_conflicts=True)
        found = {tag.slug: tag for tag in Tag.objects.filter(slug__in=by_slug)}
    return {name: found[slug] for slug, name in by_slug.items()}


def _ensure_interfaces(identifiers: set[str]) -> dict[str, int]:
    found = dict(
        Interface.objects.filter(identifier__in=identifiers).values_list("identifier", "id")
    )
    missing = [
        Interface(
            identifier=identifier,
            kind=interface_parts(identifier)[0],
            name=interface_parts(identifier)[1],
        )
        for identifier in identifiers - found.keys()
    ]
    if missing:
        Interface.objects.bulk_create(missing, ignore_conflicts=True)
        found = dict(
            Interface.objects.filter(identifier__in=identifiers).values_list("identifier", "id")
        )
    return found


def _write(plan: _Plan, *, actor, source: str, progress: ProgressCallback | None) -> None:
    total = len(plan.items)
    layer_ids = dict(Layer.objects.values_list("key", "id"))
    unit_ids = dict(ResourceUnit.objects.values_list("key", "id"))
    point_ids = dict(EnforcementPoint.objects.values_list("key", "id"))
    history: list[CatalogChange] = []

    # Projects
    tag_names = {
        tag
        for fields in plan.new_projects + [fields for _, fields, _ in plan.changed_projects]
        for tag in fields.get("tags", [])
    }
    tags = _ensure_tags(tag_names) if tag_names else {}
    created = Project.objects.bulk_create(
        [
            Project(**{key: value for key, value in fields.items() if key != "tags"})
            for fields in plan.new_projects
        ]
    )
    projects_by_slug = {project.slug: project for project in created}
    for project, fields, _changes in plan.changed_projects:
        for key, value in fields.items():
            if key != "tags":
                setattr(project, key, value)
        projects_by_slug[project.slug] = project
    if plan.changed_projects:
        Project.objects.bulk_update(
            [project for project, _, _ in plan.changed_projects],
            [key for key in PROJECT_KEYS if key not in ("slug", "tags")] + ["updated_at"],
        )
    retagged = [
        (projects_by_slug[fields["slug"]], fields["tags"])
        for fields in plan.new_projects + [fields for _, fields, _ in plan.changed_projects]
        if "tags" in fields
    ]
    if retagged:
        through = Project.tags.through
        through.objects.filter(project_id__in=[project.id for project, _ in retagged]).delete()
        through.objects.bulk_create(
            [
                through(project_id=project.id, tag_id=tags[name].id)
                for project, names in retagged
                for name in names
            ],
            ignore_conflicts=True,
        )
    for fields in plan.new_projects:
        project = projects_by_slug[fields["slug"]]
        history.append(_change(actor, source, project, "", ChangeAction.CREATED, fields))
    for project, _fields, changes in plan.changed_projects:
        history.append(_change(actor, source, project, "", ChangeAction.UPDATED, changes))
    if progress:
        progress(len(plan.new_projects) + len(plan.changed_projects), total)

    # Rows: model fields first, then their vocabulary and contracts.
    if plan.new_rows:
        missing_parents = {slug for slug, _ in plan.new_rows if slug not in projects_by_slug}
        if missing_parents:
            projects_by_slug.update(
                {p.slug: p for p in Project.objects.filter(slug__in=missing_parents)}
            )
    new_row_objects = PlacementRow.objects.bulk_create(
        [
            PlacementRow(
                project=projects_by_slug[slug],
                key=placement["key"],
                **_row_fields(placement, layer_ids),
            )
            for slug, placement in plan.new_rows
        ]
    )
    for row, placement, _changes in plan.changed_rows:
        for name, value in _row_fields(placement, layer_ids).items():
            setattr(row, name, value)
    if plan.changed_rows:
        PlacementRow.objects.bulk_update(
            [row for row, _, _ in plan.changed_rows], ROW_UPDATE_FIELDS, batch_size=1000
        )
    written = list(zip(new_row_objects, [p for _, p in plan.new_rows], strict=True)) + [
        (row, placement) for row, placement, _ in plan.changed_rows
    ]
    changed_ids = [row.id for row, _, _ in plan.changed_rows]
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
    units_through = PlacementRow.resource_units.through
    points_through = PlacementRow.enforcement_points.through
    units_through.objects.bulk_create(
        [
            units_through(placementrow_id=row.id, resourceunit_id=unit_ids[unit])
            for row, placement in written
            for unit in placement["resource_units"]
        ],
        batch_size=5000,
    )
    points_through.objects.bulk_create(
        [
            points_through(placementrow_id=row.id, enforcementpoint_id=point_ids[point])
            for row, placement in written
            for point in placement["enforcement_points"]
        ],
        batch_size=5000,
    )
    PlacementInterface.objects.bulk_create(
        [
            PlacementInterface(
                row_id=row.id,
                interface_id=interface_ids[identifier],
                relation=relation,
                position=position,
            )
            for row, placement in written
            for relation in INTERFACE_RELATIONS
            for position, identifier in enumerate(placement[relation])
        ],
        batch_size=5000,
    )
    for (slug, placement), row in zip(plan.new_rows, new_row_objects, strict=True):
        history.append(
            _change(actor, source, projects_by_slug[slug], row.key, ChangeAction.CREATED, placement)
        )
    for row, _placement, changes in plan.changed_rows:
        history.append(_change(actor, source, row.project, row.key, ChangeAction.UPDATED, changes))
    CatalogChange.objects.bulk_create(history, batch_size=2000)
    _notify_catalog_changed()


def _change(actor, source, project, row_key, action, changes) -> CatalogChange:
    if action == ChangeAction.CREATED:
        changes = {
            key: {"old": None, "new": value}
            for key, value in changes.items()
            if key not in ("placements", "slug", "key") and value not in ("", [], {}, None)
        }
    return CatalogChange(
        actor=actor if actor is not None and actor.is_authenticated else None,
        source=source[:200],
        project=project,
        project_slug=project.slug,
        row_key=row_key,
        action=action,
        changes=changes,
    )


def _notify_catalog_changed() -> None:
    for callback in _on_catalog_change:
        transaction.on_commit(callback)


def placement_row_delete(*, row: PlacementRow, actor=None, source: str = "") -> None:
    with transaction.atomic():
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
        _notify_catalog_changed()


def project_delete(*, project: Project, actor=None, source: str = "") -> None:
    with transaction.atomic():
        CatalogChange.objects.create(
            actor=actor if actor is not None and actor.is_authenticated else None,
            source=source,
            project=None,
            project_slug=project.slug,
            action=ChangeAction.DELETED,
            changes={"name": {"old": project.name, "new": None}},
        )
        project.delete()
        _notify_catalog_changed()


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
