"""Catalog reads: vocabulary, lists with counts, cards, bundle-shaped views of rows."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Count, Max, Q, QuerySet, TextField
from django.db.models.functions import Cast

from catalog.engine import kubernetes
from catalog.engine.baseline import feature_interface
from catalog.engine.bundle import (
    COST_ASPECTS,
    Vocabulary,
    normalize_config,
    normalize_detect,
    normalize_vendors,
)
from catalog.engine.rows import Row
from catalog.models import (
    CatalogChange,
    EnforcementPoint,
    Function,
    Layer,
    PlacementInterface,
    PlacementRow,
    Project,
    Relation,
    ResourceUnit,
    Tag,
)
from catalog.search.selectors import Search, projects_matching, search_prepared
from ecomap.outage import cache_add_quietly, cache_delete_quietly, cache_get_or

REQUIRED_PLACEMENT_KEYS = ("key", "layer", "resource_units", "enforcement_points", "promise")


def vocabulary_current() -> Vocabulary:
    return Vocabulary(
        layers=tuple(Layer.objects.values_list("key", flat=True)),
        resource_units=tuple(ResourceUnit.objects.values_list("key", flat=True)),
        enforcement_points=tuple(EnforcementPoint.objects.values_list("key", flat=True)),
        functions=tuple(Function.objects.values_list("key", "layer__key")),
    )


def catalog_revision() -> int:
    """The id of the latest catalog change: bumps with every write, 0 for an empty catalog.
    Read from the database: what a job or a write compares against."""
    return CatalogChange.objects.aggregate(revision=Max("id"))["revision"] or 0


# Pages name the revision in their cache keys on every view; they read it from the cache, where
# every catalog write deletes it (catalog_revision_forget). Only a reader that read the database
# in the instant between a write's commit and its forgetting can store the revision before it;
# pages then show the catalog as it was before that write, never a mix, for at most this long.
CATALOG_REVISION_KEY = "catalog:revision:v1"
CATALOG_REVISION_SECONDS = 60


def catalog_revision_for_pages() -> int:
    """catalog_revision() through the cache: for keys of cached page data, not for decisions."""
    revision = cache_get_or(CATALOG_REVISION_KEY)
    if revision is None:
        revision = catalog_revision()
        cache_add_quietly(CATALOG_REVISION_KEY, revision, CATALOG_REVISION_SECONDS)
    return revision


def catalog_revision_forget() -> None:
    """Called by every catalog write once its changes are recorded: now, for the rest of the
    writer's transaction, and after commit, for readers that raced it."""
    cache_delete_quietly(CATALOG_REVISION_KEY)
    transaction.on_commit(lambda: cache_delete_quietly(CATALOG_REVISION_KEY))


def catalog_cache_key(name: str, *parts: Any, revision: int | None = None) -> str:
    """A cache key for data computed from the catalog: it names the current revision (or the
    `revision` the caller has just read), so any catalog write makes a new key (old entries
    simply expire), and a stable digest of `parts` (unlike hash(), the same in every worker)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest()
    if revision is None:
        revision = catalog_revision_for_pages()
    return f"catalog:{name}:{revision}:{digest}"


@dataclass(frozen=True)
class CatalogFilters:
    layer: str = ""
    unit: str = ""
    enforcement_point: str = ""
    tag: str = ""
    text: str = ""
    unplaced: bool = False


def _projects_filtered(
    filters: CatalogFilters, *, without: str = "", search: Search | None = None
) -> QuerySet[Project]:
    """Projects passing every filter but `without` (a facet counts against the others); the
    text filter through `search`, the words of `filters.text` prepared once per page."""
    projects = Project.objects.all()
    if filters.layer and without != "layer":
        projects = projects.in_layer(filters.layer)
    if filters.unit and without != "unit":
        projects = projects.with_unit(filters.unit)
    if filters.enforcement_point and without != "enforcement_point":
        projects = projects.with_enforcement_point(filters.enforcement_point)
    if filters.tag and without != "tag":
        projects = projects.tagged(filters.tag)
    if filters.unplaced:
        projects = projects.unplaced()
    if filters.text:
        projects = projects_matching(projects, search or search_prepared(filters.text))
    return projects


def project_list(*, filters: CatalogFilters) -> QuerySet[Project]:
    """The catalog list: by name, or best match first when searching."""
    if filters.text:
        without_text = dataclasses.replace(filters, text="")
        search = search_prepared(filters.text)
        projects = projects_matching(_projects_filtered(without_text), search, ranked=True)
        return projects.with_tiles()
    return _projects_filtered(filters).with_tiles().order_by("name")


def facet_counts(*, filters: CatalogFilters | None = None) -> dict[str, list[dict[str, Any]]]:
    """Projects per layer, unit, enforcement point and tag, for the catalog filters. Each count
    is what choosing that value would list: the other active filters apply, the facet's own
    does not (so the values of a chosen facet stay comparable)."""
    filters = filters or CatalogFilters()
    search = search_prepared(filters.text) if filters.text else None

    def counted(model, path: str, facet: str) -> list[dict[str, Any]]:
        matching = _projects_filtered(filters, without=facet, search=search).values("id")
        return list(
            model.objects.annotate(
                project_count=Count(path, filter=Q(**{f"{path}__in": matching}), distinct=True),
            ).order_by(*model._meta.ordering)
        )

    tagged = _projects_filtered(filters, without="tag", search=search).values("id")
    return {
        "layers": counted(Layer, "placements__project", "layer"),
        "units": counted(ResourceUnit, "placements__project", "unit"),
        "enforcement_points": counted(EnforcementPoint, "placements__project", "enforcement_point"),
        "tags": list(
            Tag.objects.annotate(
                project_count=Count("projects", filter=Q(projects__in=tagged), distinct=True)
            )
            .filter(Q(project_count__gt=0) | Q(slug=filters.tag))
            .order_by("-project_count", "name")[:40]
        ),
    }


def catalog_totals() -> dict[str, int]:
    return Project.objects.aggregate(
        projects=Count("id", distinct=True),
        rows=Count("placements", distinct=True),
        unplaced=Count("id", filter=Q(placements__isnull=True), distinct=True),
    )


def project_get(*, slug: str) -> Project:
    """The project with everything its page shows; raises Project.DoesNotExist."""
    return Project.objects.with_cards().get(slug=slug)


def project_history(*, project: Project, limit: int = 50) -> QuerySet[CatalogChange]:
    return CatalogChange.objects.filter(project_slug=project.slug).select_related("actor")[:limit]


# Choices.values builds a new list on every access: read once, not once per row of a list.
RELATIONS = tuple(Relation.values)


def contracts_of(row: PlacementRow) -> dict[str, list[str]]:
    """The row's interface identifiers by relation, in their stored order (uses the prefetch)."""
    by_relation: dict[str, list[str]] = {relation: [] for relation in RELATIONS}
    for contract in sorted(row.contracts.all(), key=lambda c: (c.relation, c.position)):
        by_relation[contract.relation].append(contract.interface.identifier)
    return by_relation


ROW_VALUE_FIELDS = (
    "id",
    "project_id",
    "key",
    "component",
    "layer__key",
    "promise",
    "non_promise",
    "isolation_memory",
    "isolation_compute",
    "isolation_fault",
    *[f"cost_{aspect}" for aspect in COST_ASPECTS],
    *[f"cost_{aspect}_note" for aspect in COST_ASPECTS],
    "failure_modes",
    "evidence",
    "unverified",
    "detect",
    "config",
    "versions",
    "contract_versions",
    "project_version",
    "reviewed_on",
    "verified_at",
    "functions",
    "functions_inferred",
    "vendors",
)


@dataclass
class StoredProject:
    """A stored project in bundle form, read with plain value queries (no model instances)."""

    id: int
    fields: dict[str, Any]
    rows: dict[str, tuple[int, dict[str, Any]]]  # key -> (row id, normalised placement)


def stored_projects(
    *, slugs: Iterable[str] | None = None, vocabulary: Vocabulary | None = None
) -> dict[str, StoredProject]:
    """Projects (all, or those with the given slugs) with their rows in the normalised bundle
    form, in six queries whatever their number: the import diff and the export both use it."""
    vocabulary = vocabulary or vocabulary_current()
    projects = Project.objects.all()
    if slugs is not None:
        projects = projects.filter(slug__in=list(slugs))
    project_fields = ("slug", "name", "vendor", "homepage", "repository", "license", "description")
    stored: dict[str, StoredProject] = {}
    by_id: dict[int, StoredProject] = {}
    for pk, *values in projects.values_list("id", *project_fields):
        project = StoredProject(
            id=pk, fields=dict(zip(project_fields, values, strict=True)), rows={}
        )
        project.fields["tags"] = []
        stored[project.fields["slug"]] = by_id[pk] = project
    if not by_id:
        return stored
    for project_id, tag in Project.tags.through.objects.filter(project_id__in=by_id).values_list(
        "project_id", "tag__name"
    ):
        by_id[project_id].fields["tags"].append(tag)
    for project in by_id.values():
        project.fields["tags"].sort()

    rows = list(PlacementRow.objects.filter(project_id__in=by_id).values_list(*ROW_VALUE_FIELDS))
    row_ids = [row[0] for row in rows]
    units: dict[int, list[str]] = defaultdict(list)
    for row_id, key in PlacementRow.resource_units.through.objects.filter(
        placementrow__project_id__in=by_id
    ).values_list("placementrow_id", "resourceunit__key"):
        units[row_id].append(key)
    points: dict[int, list[str]] = defaultdict(list)
    for row_id, key in PlacementRow.enforcement_points.through.objects.filter(
        placementrow__project_id__in=by_id
    ).values_list("placementrow_id", "enforcementpoint__key"):
        points[row_id].append(key)
    contracts: dict[int, dict[str, list[str]]] = {row_id: {} for row_id in row_ids}
    for row_id, relation, identifier in (
        PlacementInterface.objects.filter(row__project_id__in=by_id)
        .order_by("row_id", "relation", "position")
        .values_list("row_id", "relation", "interface__identifier")
    ):
        contracts[row_id].setdefault(relation, []).append(identifier)
    unit_order = {key: i for i, key in enumerate(vocabulary.resource_units)}
    point_order = {key: i for i, key in enumerate(vocabulary.enforcement_points)}
    for values in rows:
        row = dict(zip(ROW_VALUE_FIELDS, values, strict=True))
        contract = contracts[row["id"]]
        placement = {
            "key": row["key"],
            "component": row["component"],
            "layer": row["layer__key"],
            "resource_units": sorted(units[row["id"]], key=lambda u: (unit_order.get(u, 99), u)),
            "enforcement_points": sorted(
                points[row["id"]], key=lambda p: (point_order.get(p, 99), p)
            ),
            "functions": list(row["functions"]),
            "functions_inferred": row["functions_inferred"],
            "vendors": normalize_vendors(row["vendors"] or []),
            "isolation": {
                "memory": row["isolation_memory"],
                "compute": row["isolation_compute"],
                "fault": row["isolation_fault"],
            },
            "promise": row["promise"],
            "non_promise": row["non_promise"],
            "costs": {
                aspect: {"level": row[f"cost_{aspect}"], "note": row[f"cost_{aspect}_note"]}
                for aspect in COST_ASPECTS
                if row[f"cost_{aspect}"]
            },
            "signals": contract.get("signals", []),
            "provides": contract.get("provides", []),
            "requires": contract.get("requires", []),
            "accepts": contract.get("accepts", []),
            "exclusive": contract.get("exclusive", []),
            "failure_modes": list(row["failure_modes"]),
            "evidence": [{"url": e["url"], "claim": e.get("claim", "")} for e in row["evidence"]],
            "project_version": row["project_version"],
            "reviewed": row["reviewed_on"].isoformat() if row["reviewed_on"] else "",
            "verified_at": row["verified_at"].isoformat() if row["verified_at"] else "",
            "unverified": list(row["unverified"]),
            # jsonb keeps no key order: the export's comes from the bundle format.
            "detect": normalize_detect(row["detect"] or {}),
            "config": normalize_config(row["config"] or {}),
            "versions": row["versions"],
            "contract_versions": dict(sorted((row["contract_versions"] or {}).items())),
        }
        by_id[row["project_id"]].rows[row["key"]] = (row["id"], placement)
    return stored


def _compact(data: dict[str, Any], keep: tuple[str, ...]) -> dict[str, Any]:
    """Drop empty optional values so an exported document validates and re-imports unchanged."""
    return {key: value for key, value in data.items() if key in keep or value not in ("", [], {})}


def _as_bundle_placement(placement: dict[str, Any]) -> dict[str, Any]:
    """A stored placement as a bundle states it: inferred functions are left out, so importing
    the export infers them again instead of passing a guess off as sourced."""
    exported = {key: value for key, value in placement.items() if key != "functions_inferred"}
    if placement.get("functions_inferred"):
        exported.pop("functions", None)
    return exported


# About this many rows (whole projects) read per query by the export: its memory follows this,
# not the catalog (issue 41 H1; 1,000 rows of texts, evidence and configs are ~50 MB as dicts).
EXPORT_CHUNK_ROWS = 1000


def bundle_export_projects(
    *, slugs: Iterable[str] | None = None, layer: str = "", tag: str = ""
) -> Iterator[dict[str, Any]]:
    """The catalog's projects (or a filtered part) in bundle form, by slug, read whole projects
    of about `EXPORT_CHUNK_ROWS` rows at a time: what an export streams."""
    projects = Project.objects.all()
    if slugs is not None:
        projects = projects.filter(slug__in=list(slugs))
    if layer:
        projects = projects.in_layer(layer)
    if tag:
        projects = projects.tagged(tag)
    sizes = projects.order_by("slug").annotate(row_count=Count("placements", distinct=True))
    chunks: list[list[str]] = [[]]
    rows = 0
    for slug, count in sizes.values_list("slug", "row_count"):
        if chunks[-1] and rows + count > EXPORT_CHUNK_ROWS:
            chunks.append([])
            rows = 0
        chunks[-1].append(slug)
        rows += count
    vocabulary = vocabulary_current()
    for chunk in chunks:
        stored = stored_projects(slugs=chunk, vocabulary=vocabulary) if chunk else {}
        for slug in sorted(stored):
            project = stored[slug]
            placements = [
                _compact(_as_bundle_placement(placement), keep=REQUIRED_PLACEMENT_KEYS)
                for _key, (_id, placement) in sorted(project.rows.items())
                if not layer or placement["layer"] == layer
            ]
            yield {**_compact(project.fields, keep=("slug", "name")), "placements": placements}


def bundle_export(
    *, slugs: Iterable[str] | None = None, layer: str = "", tag: str = "", source: str = ""
) -> dict[str, Any]:
    """The catalog (or a filtered part of it) as one `ecomap.bundle/v1` document (exports
    stream `bundle_export_projects` instead)."""
    projects = list(bundle_export_projects(slugs=slugs, layer=layer, tag=tag))
    return {"format": "ecomap.bundle/v1", "source": source, "projects": projects}


# Rows of each query read at a time while engine rows are built (issue 41 H1).
ENGINE_ROWS_CHUNK = 5000


def engine_rows(*, rows: QuerySet[PlacementRow] | None = None) -> list[Row]:
    """Stored rows as engine `Row`s, in four queries whatever their number, ordered by id.

    The queries are read a chunk at a time, and each distinct string and set is kept once:
    catalog rows repeat the same units, points, functions and contracts (editions and forks of
    a few kinds of component), so 30,000 rows hold ~20 MB and their loading peaks near it,
    where whole result lists and one object per row and field peaked at 190 MB (issue 41 H1).
    """
    rows = PlacementRow.objects.all() if rows is None else rows
    rows = rows.order_by("project__slug", "key")
    selected = rows.values("pk")
    strings: dict[str, str] = {}
    sets: dict[frozenset[str], frozenset[str]] = {}

    def shared(values) -> frozenset[str]:
        found = frozenset(values)
        return sets.setdefault(found, found)

    units: dict[int, list[str]] = defaultdict(list)
    for row_id, key in (
        PlacementRow.resource_units.through.objects.filter(placementrow_id__in=selected)
        .values_list("placementrow_id", "resourceunit__key")
        .iterator(ENGINE_ROWS_CHUNK)
    ):
        units[row_id].append(strings.setdefault(key, key))
    points: dict[int, list[str]] = defaultdict(list)
    for row_id, key in (
        PlacementRow.enforcement_points.through.objects.filter(placementrow_id__in=selected)
        .values_list("placementrow_id", "enforcementpoint__key")
        .iterator(ENGINE_ROWS_CHUNK)
    ):
        points[row_id].append(strings.setdefault(key, key))
    contracts: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for row_id, relation, identifier in (
        PlacementInterface.objects.filter(row_id__in=selected)
        .values_list("row_id", "relation", "interface__identifier")
        .iterator(ENGINE_ROWS_CHUNK)
    ):
        relation = strings.setdefault(relation, relation)
        contracts[row_id][relation].append(strings.setdefault(identifier, identifier))
    base = rows.values_list(
        "id",
        "project__slug",
        "project__name",
        "key",
        "layer__key",
        "isolation_memory",
        "isolation_compute",
        "isolation_fault",
        "functions",
        "vendors",
        "versions",
        "contract_versions",
    ).iterator(ENGINE_ROWS_CHUNK)
    result = []
    for pk, slug, project_name, key, layer, memory, compute, fault, functions, *rest in base:
        vendors, versions, contract_versions = rest
        contract = contracts.pop(pk, {})
        result.append(
            Row(
                id=f"{slug}/{key}",
                project=strings.setdefault(slug, slug),
                key=key,
                layer=strings.setdefault(layer, layer),
                resource_units=shared(units.pop(pk, ())),
                enforcement_points=shared(points.pop(pk, ())),
                provides=shared(contract.get("provides", ())),
                requires=shared(contract.get("requires", ())),
                accepts=shared(contract.get("accepts", ())),
                exclusive=shared(contract.get("exclusive", ())),
                signals=shared(contract.get("signals", ())),
                functions=shared(functions),
                vendors=shared(vendors or ()),
                isolation={"memory": memory, "compute": compute, "fault": fault},
                name=f"{project_name} {key}",
                versions=versions,
                contract_versions=contract_versions or {},
            )
        )
    return result


# Projects tagged so (the catalog audit flags archived or long-silent repositories) stay on the
# map and in the matrix, but are never proposed as part of a recommended stack.
UNMAINTAINED_TAG = "unmaintained"


def recommendable_rows() -> list[Row]:
    """Engine rows of maintained projects: what a recommendation may build a stack from."""
    return engine_rows(rows=PlacementRow.objects.exclude(project__tags__slug=UNMAINTAINED_TAG))


def cluster_catalog() -> tuple[list[Row], dict[str, dict[str, Any]], dict[str, list[str]]]:
    """What the cluster check matches a snapshot against: the engine rows, each row's `detect`
    signatures and its evidence URLs by row id. Signatures come in catalog order (file order
    of the built-in data), which settles ties between modes the snapshot cannot tell apart.

    Read a chunk at a time, as JSON text decoded once per distinct text: rows copied from the
    same kind of component share one signature and one list of URLs (at 100,000 rows one
    decoded object per row held 550 MB, and the whole result list peaked at 1.2 GB; issue 41
    H1). The shared values are read, never changed, by the check."""
    signatures: dict[str, dict[str, Any]] = {}
    evidence: dict[str, list[str]] = {}
    decoded: dict[str, Any] = {}
    urls_of: dict[str, list[str]] = {}
    texts = (
        PlacementRow.objects.order_by("pk")
        .annotate(
            detect_text=Cast("detect", TextField()), evidence_text=Cast("evidence", TextField())
        )
        .values_list("project__slug", "key", "detect_text", "evidence_text")
        .iterator(ENGINE_ROWS_CHUNK)
    )
    for slug, key, detect_text, evidence_text in texts:
        row_id = f"{slug}/{key}"
        if detect_text is not None:
            detect = decoded.get(detect_text)
            if detect is None:
                detect = decoded[detect_text] = json.loads(detect_text)
            if detect:
                signatures[row_id] = detect
        urls = urls_of.get(evidence_text or "null")
        if urls is None:
            urls = urls_of[evidence_text or "null"] = _evidence_urls(
                json.loads(evidence_text) if evidence_text else None
            )
        evidence[row_id] = urls
    return engine_rows(), signatures, evidence


def _evidence_urls(sources: Any) -> list[str]:
    urls = (item.get("url") if isinstance(item, dict) else item for item in sources or ())
    return [url for url in urls if isinstance(url, str) and url]


def kubernetes_features_at(*, version: str | None = None) -> dict[str, Any]:
    """The Kubernetes feature facts; at a stated version, each gate's stage and availability
    there (ValueError for a version that is not one)."""
    minor = kubernetes.parse_version(version) if version else None
    found = []
    for gate in kubernetes.features().values():
        item = {**gate.to_dict(), "interface": feature_interface(gate.name)}
        if minor is not None:
            item["stage"] = kubernetes.feature_stage(gate.name, minor)
            item["available"] = kubernetes.available(gate.name, minor)
        found.append(item)
    return {"version": kubernetes.format_minor(minor) if minor else None, "features": found}
