"""Validation and normalisation of `ecomap.bundle/v1` documents (JSON Schema + live vocabulary).

Pure Python: the import service, the API, the shell commands and the tests of the built-in
catalog files all call `validate_bundle` and `normalize_bundle` from here.
"""

from __future__ import annotations

import copy
import datetime
import functools
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import jsonschema_rs

from catalog.engine.functions import FUNCTION_LAYERS, infer_functions
from catalog.engine.rows import GPU_VENDORS

BUNDLE_FORMAT = "ecomap.bundle/v1"
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "bundle-v1.schema.json"

# Order of keys in a normalised placement: also the order of the exported document.
# The key under which a normalised placement lists the fields its bundle stated (not a field).
GIVEN = "_given"
PLACEMENT_KEYS = (
    "key",
    "component",
    "layer",
    "resource_units",
    "enforcement_points",
    "functions",
    "functions_inferred",
    "vendors",
    "isolation",
    "promise",
    "non_promise",
    "costs",
    "signals",
    "provides",
    "requires",
    "accepts",
    "exclusive",
    "failure_modes",
    "evidence",
    "project_version",
    "reviewed",
    "verified_at",
    "unverified",
    "detect",
    "config",
    "versions",
    "contract_versions",
)
# The lists a placement's `detect` mapping may hold, in export order (then evidence, note).
DETECT_KEYS = (
    "helm_charts",
    "crds",
    "images",
    "daemonsets",
    "deployments",
    "node_labels",
    "unless_node_labels",
    "extended_resources",
    "dra_drivers",
    "webhooks",
)
PROJECT_KEYS = (
    "slug",
    "name",
    "vendor",
    "homepage",
    "repository",
    "license",
    "description",
    "tags",
)
MESSAGE_LIMIT = 500
INTERFACE_RELATIONS = ("signals", "provides", "requires", "accepts", "exclusive")
ISOLATION_ASPECTS = ("memory", "compute", "fault")
VENDOR_ORDER = {vendor: index for index, vendor in enumerate(GPU_VENDORS)}
COST_ASPECTS = ("performance", "reconfiguration", "intrusiveness", "compatibility")


@dataclass(frozen=True)
class Vocabulary:
    layers: tuple[str, ...]
    resource_units: tuple[str, ...]
    enforcement_points: tuple[str, ...]
    # (function key, layer key) pairs: a function answers a question of one layer.
    functions: tuple[tuple[str, str], ...] = tuple(FUNCTION_LAYERS.items())

    @property
    def function_keys(self) -> tuple[str, ...]:
        return tuple(key for key, _layer in self.functions)


@dataclass(frozen=True)
class BundleError:
    path: str
    message: str
    allowed: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        # Validator messages quote the offending value; a hostile bundle's value can be huge.
        if len(self.message) > MESSAGE_LIMIT:
            object.__setattr__(self, "message", self.message[: MESSAGE_LIMIT - 1] + "…")

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"path": self.path, "message": self.message}
        if self.allowed:
            data["allowed"] = list(self.allowed)
        return data


class BundleInvalid(ValueError):
    """The document is not a valid bundle; `errors` says where and why, item by item."""

    def __init__(self, errors: list[BundleError]):
        self.errors = errors
        super().__init__(
            f"{len(errors)} error(s) in bundle: "
            + "; ".join(f"{e.path}: {e.message}" for e in errors[:3])
        )


@functools.cache
def base_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def schema_with_vocabulary(vocabulary: Vocabulary) -> dict[str, Any]:
    """The bundle schema with the vocabulary enums replaced by the live vocabulary."""
    schema = copy.deepcopy(base_schema())
    defs = schema["$defs"]
    defs["layer"] = {"enum": list(vocabulary.layers)}
    defs["resource_unit"] = {"enum": list(vocabulary.resource_units)}
    defs["enforcement_point"] = {"enum": list(vocabulary.enforcement_points)}
    defs["function"] = {"enum": list(vocabulary.function_keys)}
    return schema


@functools.lru_cache(maxsize=8)
def _fast_check(vocabulary: Vocabulary) -> jsonschema_rs.Validator:
    """The fast verdict: jsonschema-rs answers "valid?" for 10,000 rows in ~20 ms, formats
    included (`uri` per RFC 3986, `date`), with the engine schemathesis checks the API with.
    The Python validator then explains what is wrong, path by path."""
    return jsonschema_rs.validator_for(schema_with_vocabulary(vocabulary), validate_formats=True)


@functools.lru_cache(maxsize=8)
def _validator(vocabulary: Vocabulary) -> jsonschema.protocols.Validator:
    schema = schema_with_vocabulary(vocabulary)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def json_path(parts: Iterable[Any]) -> str:
    """`["projects", 3, "placements", 0, "layer"]` → `projects[3].placements[0].layer`."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "$"


_VOCABULARY_FIELDS = {
    "layer": ("layer", "layers"),
    "resource_units": ("resource unit", "resource_units"),
    "enforcement_points": ("enforcement point", "enforcement_points"),
    "functions": ("function", "function_keys"),
}


def _describe(error: jsonschema.ValidationError, vocabulary: Vocabulary) -> BundleError:
    path = list(error.absolute_path)
    where = json_path(path)
    if error.validator == "enum":
        # Vocabulary fields: name the term and every allowed value.
        owner = next((p for p in reversed(path) if isinstance(p, str)), "")
        allowed = tuple(str(value) for value in error.validator_value)
        if owner in _VOCABULARY_FIELDS:
            label, attr = _VOCABULARY_FIELDS[owner]
            allowed = getattr(vocabulary, attr)
            return BundleError(where, f"unknown {label} {error.instance!r}", allowed)
        if owner == "vendors":
            return BundleError(where, f"unknown GPU vendor {error.instance!r}", GPU_VENDORS)
        return BundleError(where, f"{error.instance!r} is not allowed", allowed)
    if error.validator == "required":
        return BundleError(where, error.message)
    if error.validator == "additionalProperties":
        return BundleError(where, error.message)
    if error.validator == "pattern" and isinstance(error.instance, str):
        return BundleError(where, f"{error.instance!r} does not match {error.validator_value}")
    if error.validator == "const":
        return BundleError(where, f"must be {error.validator_value!r}")
    return BundleError(where, error.message)


def validate_bundle(document: Any, vocabulary: Vocabulary) -> list[BundleError]:
    """Every problem in `document`, each with its JSON path; an empty list means valid."""
    if not isinstance(document, dict):
        return [BundleError("$", "a bundle must be an object with 'format' and 'projects'")]
    try:
        valid = _fast_check(vocabulary).is_valid(document)
    except ValueError:
        valid = False  # a value JSON has no word for (a YAML date, set or binary)
    errors = [] if valid else _explain(document, vocabulary)
    errors.extend(_duplicate_identities(document))
    if not errors:
        errors.extend(_impossible_dates(document))
        errors.extend(_functions_of_other_layers(document, vocabulary))
    return errors


def _functions_of_other_layers(
    document: dict[str, Any], vocabulary: Vocabulary
) -> list[BundleError]:
    """A function answers a question of one layer: `quota` on a data-plane row is a mistake."""
    layer_of = dict(vocabulary.functions)
    errors: list[BundleError] = []
    for index, project in enumerate(document.get("projects") or []):
        for row_index, placement in enumerate(project.get("placements") or []):
            layer = placement.get("layer")
            for f_index, function in enumerate(placement.get("functions") or []):
                if layer_of.get(function, layer) != layer:
                    errors.append(
                        BundleError(
                            f"projects[{index}].placements[{row_index}].functions[{f_index}]",
                            f"function {function!r} belongs to the {layer_of[function]} layer, "
                            f"not to {layer}",
                            tuple(key for key, owner in vocabulary.functions if owner == layer),
                        )
                    )
    return errors


def _explain(document: Any, vocabulary: Vocabulary) -> list[BundleError]:
    """Every schema error with its path; what only the fast validator checks (URI syntax) is
    added for the paths the Python one found nothing wrong with."""
    validator = _validator(vocabulary)
    errors = [_describe(error, vocabulary) for error in validator.iter_errors(document)]
    seen = {error.path for error in errors}
    try:
        for error in _fast_check(vocabulary).iter_errors(document):
            path = json_path(error.instance_path)
            if path not in seen:
                seen.add(path)
                errors.append(BundleError(path, _fast_message(error)))
    except ValueError:
        pass  # a non-JSON value, already named by the Python validator
    return sorted(errors, key=lambda error: error.path)


def _fast_message(error: jsonschema_rs.ValidationError) -> str:
    """jsonschema-rs's word for it, except where a URL is what failed: then say what a URL needs."""
    instance = error.instance
    url = instance.get("url") if isinstance(instance, dict) else instance
    if isinstance(url, str) and (url.startswith(("http://", "https://")) or "uri" in error.message):
        return (
            f"{url!r} is not a valid URL (RFC 3986: no spaces; characters outside ASCII "
            "percent-encoded as %XX)"
        )
    return error.message


def _impossible_dates(document: dict[str, Any]) -> list[BundleError]:
    """`reviewed` dates that match YYYY-MM-DD but name no day (2026-02-30, 0000-01-01).

    The compiled validator skips formats for speed, so the pattern alone let them through.
    """
    errors: list[BundleError] = []
    for index, project in enumerate(document.get("projects") or []):
        for row_index, placement in enumerate(project.get("placements") or []):
            for name in ("reviewed", "verified_at"):
                value = placement.get(name)
                if not value:
                    continue
                try:
                    datetime.date.fromisoformat(value)
                except ValueError:
                    errors.append(
                        BundleError(
                            f"projects[{index}].placements[{row_index}].{name}",
                            f"{value!r} is not a calendar date (YYYY-MM-DD)",
                        )
                    )
    return errors


def _duplicate_identities(document: dict[str, Any]) -> list[BundleError]:
    errors: list[BundleError] = []
    projects = document.get("projects")
    if not isinstance(projects, list):
        return errors
    seen_slugs: dict[str, int] = {}
    for index, project in enumerate(projects):
        if not isinstance(project, dict):
            continue
        slug = project.get("slug")
        if isinstance(slug, str):
            if slug in seen_slugs:
                errors.append(
                    BundleError(
                        f"projects[{index}].slug",
                        f"duplicate slug {slug!r} (also projects[{seen_slugs[slug]}])",
                    )
                )
            seen_slugs.setdefault(slug, index)
        seen_keys: dict[str, int] = {}
        for row_index, placement in enumerate(project.get("placements") or []):
            key = placement.get("key") if isinstance(placement, dict) else None
            if isinstance(key, str):
                if key in seen_keys:
                    errors.append(
                        BundleError(
                            f"projects[{index}].placements[{row_index}].key",
                            f"duplicate key {key!r} in project {slug!r}",
                        )
                    )
                seen_keys.setdefault(key, row_index)
    return errors


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


@functools.lru_cache(maxsize=8)
def _term_orders(
    vocabulary: Vocabulary,
) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Units, points and functions are kept in vocabulary order (then by key, for unknown ones)."""
    return (
        {key: i for i, key in enumerate(vocabulary.resource_units)},
        {key: i for i, key in enumerate(vocabulary.enforcement_points)},
        {key: i for i, key in enumerate(vocabulary.function_keys)},
    )


def normalize_placement(placement: dict[str, Any], vocabulary: Vocabulary) -> dict[str, Any]:
    """The canonical form of a valid placement: every key present, defaults filled, order fixed."""
    isolation = placement.get("isolation") or {}
    costs = placement.get("costs") or {}
    unit_order, point_order, function_order = _term_orders(vocabulary)
    functions = _unique(placement.get("functions") or [])
    inferred = not functions
    if inferred:
        functions = infer_functions(
            layer=placement["layer"],
            enforcement_points=placement["enforcement_points"],
            provides=placement.get("provides") or [],
            resource_units=placement["resource_units"],
        )
    evidence = []
    for item in placement.get("evidence") or []:
        if isinstance(item, str):
            evidence.append({"url": item, "claim": ""})
        else:
            evidence.append({"url": item["url"], "claim": item.get("claim", "")})
    normal = {
        "key": placement["key"],
        "component": placement.get("component", ""),
        "layer": placement["layer"],
        "resource_units": sorted(
            _unique(placement["resource_units"]), key=lambda u: (unit_order.get(u, 99), u)
        ),
        "enforcement_points": sorted(
            _unique(placement["enforcement_points"]), key=lambda p: (point_order.get(p, 99), p)
        ),
        "functions": sorted(functions, key=lambda f: (function_order.get(f, 99), f)),
        "functions_inferred": inferred,
        "vendors": normalize_vendors(placement.get("vendors") or []),
        "isolation": {aspect: isolation.get(aspect, "none") for aspect in ISOLATION_ASPECTS},
        "promise": placement["promise"],
        "non_promise": placement.get("non_promise", ""),
        "costs": {
            aspect: {"level": costs[aspect]["level"], "note": costs[aspect].get("note", "")}
            for aspect in COST_ASPECTS
            if aspect in costs
        },
        **{relation: _unique(placement.get(relation) or []) for relation in INTERFACE_RELATIONS},
        "failure_modes": list(placement.get("failure_modes") or []),
        "evidence": evidence,
        "project_version": placement.get("project_version", ""),
        "reviewed": placement.get("reviewed", ""),
        "verified_at": placement.get("verified_at", ""),
        "unverified": list(placement.get("unverified") or []),
        "detect": normalize_detect(placement.get("detect") or {}),
        "config": normalize_config(placement.get("config") or {}),
        "versions": placement.get("versions", ""),
        "contract_versions": {
            identifier: {bound: value for bound, value in sorted(span.items()) if value}
            for identifier, span in sorted((placement.get("contract_versions") or {}).items())
        },
    }
    ordered = {key: normal[key] for key in PLACEMENT_KEYS}
    # Which fields the bundle stated: an import in merge mode keeps the stored value of the rest.
    ordered[GIVEN] = sorted(key for key in placement if key in PLACEMENT_KEYS)
    return ordered


def normalize_vendors(vendors: Iterable[str]) -> list[str]:
    """GPU vendors without duplicates in the fixed GPU_VENDORS order, so that the same set always
    reads, exports and diffs the same (an empty list: the row is vendor-neutral)."""
    return sorted(_unique(vendors), key=lambda vendor: (VENDOR_ORDER.get(vendor, 99), vendor))


def normalize_detect(detect: dict[str, Any]) -> dict[str, Any]:
    """A `detect` mapping with its lists de-duplicated in a fixed key order; empty parts left out
    (an empty mapping means the row states no signatures)."""
    normal: dict[str, Any] = {key: _unique(detect[key]) for key in DETECT_KEYS if detect.get(key)}
    if detect.get("evidence"):
        normal["evidence"] = _unique(detect["evidence"])
    if detect.get("note"):
        normal["note"] = detect["note"]
    return normal


HELM_KEYS = ("chart", "repository", "release", "namespace", "version_prefix")


def normalize_config(config: dict[str, Any]) -> dict[str, Any]:
    """A `config` mapping (how generated configuration installs the row's component) in a fixed
    key order, empty values left out; an empty mapping: the row names no chart."""
    helm = config.get("helm") or {}
    if not helm:
        return {}
    return {
        "helm": {key: helm[key] for key in HELM_KEYS if helm.get(key)},
        "evidence": _unique(config.get("evidence") or []),
    }


def normalize_project(project: dict[str, Any], vocabulary: Vocabulary) -> dict[str, Any]:
    """Canonical project with only the fields the bundle gave: absent ones stay as they are."""
    normal: dict[str, Any] = {}
    for key in PROJECT_KEYS:
        if key in project:
            normal[key] = project[key]
    if "tags" in normal:
        normal["tags"] = sorted(_unique(tag.strip() for tag in normal["tags"] if tag.strip()))
    normal["placements"] = [
        normalize_placement(placement, vocabulary) for placement in project.get("placements") or []
    ]
    return normal


def normalize_bundle(document: dict[str, Any], vocabulary: Vocabulary) -> list[dict[str, Any]]:
    """Validate then normalise; raises BundleInvalid listing every error."""
    errors = validate_bundle(document, vocabulary)
    if errors:
        raise BundleInvalid(errors)
    return [normalize_project(project, vocabulary) for project in document["projects"]]


def vocabulary_errors(projects: list[dict[str, Any]], vocabulary: Vocabulary) -> list[BundleError]:
    """Vocabulary problems of already-normalised projects (the vocabulary is admin-editable, so
    a bundle validated earlier may name a term that has since been removed)."""
    errors = []
    fields = (
        ("layer", "layer", vocabulary.layers),
        ("resource_units", "resource unit", vocabulary.resource_units),
        ("enforcement_points", "enforcement point", vocabulary.enforcement_points),
        ("functions", "function", vocabulary.function_keys),
    )
    allowed_sets = {name: set(allowed) for name, _label, allowed in fields}
    for p, project in enumerate(projects):
        for r, placement in enumerate(project["placements"]):
            for name, label, allowed in fields:
                values = placement[name] if isinstance(placement[name], list) else [placement[name]]
                for value in values:
                    if value not in allowed_sets[name]:
                        errors.append(
                            BundleError(
                                f"projects[{p}].placements[{r}].{name}",
                                f"unknown {label} {value!r}",
                                allowed,
                            )
                        )
    return errors


def tag_slug(name: str) -> str:
    """The identity of a tag: "Container Runtime" and "container-runtime" are one tag."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80].strip("-") or "tag"


def list_delta(old: Any, new: Any) -> tuple[list[Any], list[Any]] | None:
    """The items a list field gained and lost (in their order), or None when the values are
    not both lists; two empty lists mean only the order changed."""
    if not isinstance(old, list) or not isinstance(new, list):
        return None
    return [v for v in new if v not in old], [v for v in old if v not in new]


def diff_fields(old: dict[str, Any], new: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Field-by-field differences between two normalised dicts: {field: {"old", "new"}}."""
    changes: dict[str, dict[str, Any]] = {}
    for key, value in new.items():
        if key == "placements":
            continue
        if key == "tags" and {tag_slug(t) for t in old.get(key) or []} == {
            tag_slug(t) for t in value
        }:
            continue
        if old.get(key) != value:
            changes[key] = {"old": old.get(key), "new": value}
    return changes
