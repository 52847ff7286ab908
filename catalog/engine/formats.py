"""Other import formats turned into `ecomap.bundle/v1`: CSV (a row per line) and CNCF landscape.yml.

Pure Python. Each converter returns a bundle that then goes through the one validation and apply
path, plus a map from bundle paths back to where the item came from (a CSV line, a landscape
item), so an error can point at the line the user wrote.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from catalog.engine.bundle import BUNDLE_FORMAT

FORMATS = ("bundle", "csv", "landscape")

LIST_SEPARATOR = ";"  # units, enforcement points, GPU vendors, interface identifiers, tags
TEXT_SEPARATOR = "|"  # failure modes, evidence, unverified claims (free text may hold ';')

# The CSV columns, in template order, with what each holds. Documented in docs/import-formats.md.
CSV_COLUMNS: tuple[tuple[str, str], ...] = (
    ("project_slug", "project identity: lowercase letters, digits, hyphens (required)"),
    ("project_name", "display name (required on the first line of a project)"),
    ("vendor", "who makes it"),
    ("homepage", "https URL"),
    ("repository", "https URL"),
    ("license", "SPDX identifier"),
    ("description", "one paragraph"),
    ("tags", "';'-separated"),
    ("key", "placement row identity within the project (required)"),
    ("component", "component name"),
    ("layer", "data_plane | control_plane | platform (required)"),
    ("resource_units", "';'-separated vocabulary keys (required)"),
    ("enforcement_points", "';'-separated vocabulary keys (required)"),
    ("vendors", "';'-separated GPU vendors the row serves: nvidia, amd, intel, huawei; empty: any"),
    ("isolation_memory", "hard | soft | none"),
    ("isolation_compute", "hard | soft | none"),
    ("isolation_fault", "hard | soft | none"),
    ("promise", "one sentence (required)"),
    ("non_promise", "one sentence"),
    ("cost_performance", "low | medium | high"),
    ("cost_performance_note", "why"),
    ("cost_reconfiguration", "low | medium | high"),
    ("cost_reconfiguration_note", "why"),
    ("cost_intrusiveness", "low | medium | high"),
    ("cost_intrusiveness_note", "why"),
    ("cost_compatibility", "low | medium | high"),
    ("cost_compatibility_note", "why"),
    ("signals", "';'-separated kind:name identifiers"),
    ("provides", "';'-separated kind:name identifiers"),
    ("requires", "';'-separated kind:name patterns (globs allowed)"),
    ("accepts", "';'-separated kind:name patterns (globs allowed)"),
    ("exclusive", "';'-separated owner tokens"),
    ("failure_modes", "'|'-separated sentences"),
    ("evidence", "'|'-separated; each 'URL' or 'URL claim'"),
    ("project_version", "release the row describes"),
    ("reviewed", "YYYY-MM-DD"),
    ("unverified", "'|'-separated claims not verified"),
)
CSV_HEADER = tuple(name for name, _ in CSV_COLUMNS)
REQUIRED_CSV_COLUMNS = ("project_slug", "key", "layer", "resource_units", "enforcement_points",
                        "promise")  # fmt: skip


class FormatError(ValueError):
    """The input is not usable in the format it claims or seems to be in."""

    def __init__(self, message: str, errors: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.errors = errors or [{"path": "$", "message": message}]


@dataclass
class Converted:
    bundle: dict[str, Any]
    # bundle path prefix ("projects[3]" or "projects[3].placements[1]") -> origin ("line 7")
    origins: dict[str, str] = field(default_factory=dict)
    # landscape items that point at projects already in the catalog: (item name, catalog slug)
    linked: list[tuple[str, str]] = field(default_factory=list)
    items: int = 0

    def locate(self, path: str) -> str:
        """Where a bundle path came from, most specific first: 'line 7' or the path itself."""
        for prefix in sorted(self.origins, key=len, reverse=True):
            if path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "["):
                return f"{self.origins[prefix]} ({path})"
        return path


def detect_format(document: Any, text: str) -> str:
    """bundle, landscape or csv, from the content itself."""
    if isinstance(document, Mapping):
        if document.get("format") == BUNDLE_FORMAT or "projects" in document:
            return "bundle"
        if "landscape" in document:
            return "landscape"
    first_line = text.lstrip("\ufeff").splitlines()[0] if text.strip() else ""
    if "project_slug" in first_line and "," in first_line:
        return "csv"
    return "bundle"  # validation then explains what a bundle needs


def csv_template() -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    writer.writerow(
        ["example-plugin", "Example device plugin", "Example Inc.", "https://example.org",
         "https://github.com/example/plugin", "Apache-2.0", "What it is, in one paragraph.",
         "device-plugin;gpu-sharing", "device-plugin", "Example device plugin", "data_plane",
         "whole_gpu", "driver_hardware", "", "hard", "hard", "soft",
         "Advertises each GPU as an extended resource.", "Does not decide which pod gets it.",
         "low", "No runtime overhead.", "medium", "Changing the mode restarts the plugin.",
         "low", "A DaemonSet.", "low", "Standard kubelet API.", "",
         "resource:example.com/gpu", "api:kubelet/device-plugin/v1beta1", "",
         "owner:node/example-gpu", "Pods stay Pending when the plugin is not registered.",
         "https://github.com/example/plugin#readme Describes the resource name", "v1.0.0",
         "2026-01-31", ""]
    )  # fmt: skip
    return out.getvalue()


def _split(value: str, separator: str) -> list[str]:
    return [part.strip() for part in value.split(separator) if part.strip()]


def _evidence(value: str) -> list[dict[str, str]]:
    items = []
    for part in _split(value, TEXT_SEPARATOR):
        url, _, claim = part.partition(" ")
        items.append({"url": url, "claim": claim.strip()})
    return items


def _csv_lines(reader: csv.DictReader) -> Iterable[dict[str, str]]:
    try:
        yield from reader
    except csv.Error as exc:  # e.g. a bare carriage return inside an unquoted field
        raise FormatError(f"CSV line {reader.line_num}: {exc}") from exc


def csv_to_bundle(text: str) -> Converted:
    """One placement row per CSV line; consecutive or scattered lines of a project are merged."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    try:
        header = reader.fieldnames or []
    except csv.Error as exc:
        raise FormatError(f"CSV header: {exc}") from exc
    missing = [name for name in REQUIRED_CSV_COLUMNS if name not in header]
    if missing:
        raise FormatError(f"CSV header lacks required columns: {', '.join(missing)}")
    unknown = [name for name in header if name not in CSV_HEADER]
    if unknown:
        raise FormatError(
            f"CSV header has unknown columns: {', '.join(unknown)}; "
            f"allowed: {', '.join(CSV_HEADER)}"
        )
    projects: dict[str, dict[str, Any]] = {}
    converted = Converted(bundle={})
    for line in _csv_lines(reader):
        converted.items += 1
        row = {key: (value or "").strip() for key, value in line.items() if key}
        slug = row.get("project_slug", "")
        if slug not in projects:
            projects[slug] = {
                "slug": slug,
                "name": row.get("project_name") or slug,
                "placements": [],
            }
            converted.origins[f"projects[{len(projects) - 1}]"] = f"line {reader.line_num}"
        project = projects[slug]
        for key in ("vendor", "homepage", "repository", "license", "description"):
            if row.get(key):
                project[key] = row[key]
        if row.get("project_name"):
            project["name"] = row["project_name"]
        if row.get("tags"):
            project["tags"] = _split(row["tags"], LIST_SEPARATOR)
        placement: dict[str, Any] = {
            "key": row.get("key", ""),
            "layer": row.get("layer", ""),
            "resource_units": _split(row.get("resource_units", ""), LIST_SEPARATOR),
            "enforcement_points": _split(row.get("enforcement_points", ""), LIST_SEPARATOR),
            "promise": row.get("promise", ""),
        }
        for key in ("component", "non_promise", "project_version", "reviewed"):
            if row.get(key):
                placement[key] = row[key]
        isolation = {
            aspect: row[f"isolation_{aspect}"]
            for aspect in ("memory", "compute", "fault")
            if row.get(f"isolation_{aspect}")
        }
        if isolation:
            placement["isolation"] = isolation
        costs = {
            aspect: {"level": row[f"cost_{aspect}"], "note": row.get(f"cost_{aspect}_note", "")}
            for aspect in ("performance", "reconfiguration", "intrusiveness", "compatibility")
            if row.get(f"cost_{aspect}")
        }
        if costs:
            placement["costs"] = costs
        if row.get("vendors"):  # vendor names as people type them: "NVIDIA;AMD"
            placement["vendors"] = [v.lower() for v in _split(row["vendors"], LIST_SEPARATOR)]
        for key in ("signals", "provides", "requires", "accepts", "exclusive"):
            if row.get(key):
                placement[key] = _split(row[key], LIST_SEPARATOR)
        for key in ("failure_modes", "unverified"):
            if row.get(key):
                placement[key] = _split(row[key], TEXT_SEPARATOR)
        if row.get("evidence"):
            placement["evidence"] = _evidence(row["evidence"])
        index = list(projects).index(slug)
        converted.origins[f"projects[{index}].placements[{len(project['placements'])}]"] = (
            f"line {reader.line_num}"
        )
        project["placements"].append(placement)
    converted.bundle = {
        "format": BUNDLE_FORMAT,
        "source": "CSV import",
        "projects": list(projects.values()),
    }
    return converted


@dataclass(frozen=True)
class KnownProject:
    """A project already in the catalog, as the landscape importer matches against it."""

    slug: str
    name: str
    repository: str
    placed: bool


_URL = re.compile(r"^https?://\S+$")


def slug_for(name: str) -> str:
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80].strip("-")
    return slug


def landscape_items(document: Mapping[str, Any]) -> Iterable[tuple[str, str, Mapping[str, Any]]]:
    """(category, subcategory, item) for every item of a landscape.yml."""
    for category in document.get("landscape") or []:
        for subcategory in category.get("subcategories") or []:
            for item in subcategory.get("items") or []:
                yield category.get("name", ""), subcategory.get("name", ""), item


def landscape_to_bundle(
    document: Mapping[str, Any], known: Iterable[KnownProject] = ()
) -> Converted:
    """Landscape items as unplaced projects; items that are already placed catalog entries
    (same slug, or same name once slugified) are linked to them and left as they are.

    Repositories are not matched: several catalog projects live in one repository (GFD and the
    device plugin; DRA in kubernetes/kubernetes), so a shared URL does not mean the same project.
    """
    placed_by: dict[str, str] = {}
    for project in known:
        if not project.placed:
            continue
        for key in (project.slug, slug_for(project.name)):
            if key:
                placed_by.setdefault(key, project.slug)
    projects: dict[str, dict[str, Any]] = {}
    converted = Converted(bundle={})
    for category, subcategory, item in landscape_items(document):
        converted.items += 1
        name = str(item.get("name", "")).strip()
        slug = slug_for(name) or f"item-{converted.items}"
        repository = str(item.get("repo_url") or "")
        linked = placed_by.get(slug)
        if linked:
            converted.linked.append((name, linked))
            continue
        tags = [tag for tag in (category, subcategory) if tag]
        if slug in projects:  # the same project listed under two subcategories
            merged = projects[slug]
            merged["tags"] = sorted(set(merged["tags"]) | set(tags))
            continue
        project: dict[str, Any] = {"slug": slug, "name": name[:200] or slug, "tags": sorted(tags)}
        homepage = str(item.get("homepage_url") or "")
        if _URL.match(homepage):
            project["homepage"] = homepage[:500]
        if _URL.match(repository):
            project["repository"] = repository[:500]
        if item.get("description"):
            project["description"] = str(item["description"]).strip()[:4000]
        converted.origins[f"projects[{len(projects)}]"] = f"landscape item {name!r}"
        projects[slug] = project
    converted.bundle = {
        "format": BUNDLE_FORMAT,
        "source": "CNCF landscape",
        "projects": list(projects.values()),
    }
    return converted
