"""Reads for the import pages: the job list, one job for display, the unplaced work queue."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count, Q, QuerySet

from catalog.engine.bundle import list_delta
from catalog.imports.models import ImportJob
from catalog.models import Tag
from catalog.selectors import CatalogFilters, project_list


def import_job_list() -> QuerySet[ImportJob]:
    """Newest first, without the large JSON columns the list does not show."""
    return (
        ImportJob.objects.select_related("created_by")
        .defer("payload", "changes", "errors", "linked")
        .order_by("-created_at")
    )


def catalog_maintainers(*, limit: int = 8) -> list[str]:
    """Who a reader without the permission can ask to import: active accounts holding the
    catalog-maintainer permission (directly, through a group, or as superuser), by name."""
    perm = Q(user_permissions__codename="maintain_catalog") | Q(
        groups__permissions__codename="maintain_catalog"
    )
    users = (
        get_user_model()
        .objects.filter(is_active=True)
        .filter(perm | Q(is_superuser=True))
        .distinct()
        .order_by("username")[:limit]
    )
    return [user.get_full_name() or user.get_username() for user in users]


def import_job_get(*, job_id) -> ImportJob:
    """One job with everything its page shows; raises ImportJob.DoesNotExist."""
    return ImportJob.objects.select_related("created_by").defer("payload").get(id=job_id)


@dataclass(frozen=True)
class FieldChange:
    """One field's change; a list field (provides, functions…) lists only the items it gained
    and lost, not the whole list twice."""

    field: str
    old: str
    new: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


@dataclass(frozen=True)
class ItemChangeView:
    """One created or updated project or row of a job, its values flattened for display."""

    path: str
    project: str
    row: str
    action: str
    fields: list[FieldChange]


def _display(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _field_change(name: str, value: dict[str, Any]) -> FieldChange:
    old, new = value.get("old"), value.get("new")
    delta = list_delta(old or [], new) if isinstance(new, list) else None
    if delta and (delta[0] or delta[1]):
        added, removed = delta
        return FieldChange(
            field=name,
            old="",
            new="",
            added=tuple(_display(v) for v in added),
            removed=tuple(_display(v) for v in removed),
        )
    return FieldChange(field=name, old=_display(old), new=_display(new))


def import_job_changes(*, job: ImportJob) -> list[ItemChangeView]:
    return [
        ItemChangeView(
            path=item.get("path", ""),
            project=item.get("project", ""),
            row=item.get("row", ""),
            action=item.get("action", ""),
            fields=[
                _field_change(name, value) for name, value in (item.get("changes") or {}).items()
            ],
        )
        for item in job.changes
    ]


def unplaced_projects(*, text: str = "", tag: str = ""):
    """The work queue: projects with no placement row yet, by name."""
    return project_list(filters=CatalogFilters(unplaced=True, text=text, tag=tag))


def unplaced_tag_counts(*, limit: int = 60) -> list[Tag]:
    """Tags (landscape categories and subcategories) with their number of unplaced projects."""
    return list(
        # One filter() call, so both conditions apply to the same project join: a tag with no
        # projects at all has a NULL placement too.
        Tag.objects.filter(projects__isnull=False, projects__placements__isnull=True)
        .annotate(project_count=Count("projects", distinct=True))
        .order_by("-project_count", "name")[:limit]
    )
