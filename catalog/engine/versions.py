"""Project versions: a row's `versions` (what its claims were verified for) and contract spans.

A row's `versions` is a range (">=2.9", ">=0.15,<0.20") or a list of releases ("0.19.2, 0.19.3");
a contract's span is {"since": v, "until": v}: present from `since` on, gone from `until` on (the
first release without it). Releases compare by their numbers ("v0.16.4" = "0.16.4"; "2.10" =
"2.10.0"); anything after the numbers (a "-rc1", a build suffix) is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase

from catalog.engine.baseline import FEATURE_PREFIX, KUBERNETES_BASELINE, feature_interface
from catalog.engine.kubernetes import parse_version, unavailable_reason
from catalog.engine.rows import Row
from catalog.engine.text import Text, _

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")
_CONSTRAINT = re.compile(r"^\s*(>=|<=|==|!=|>|<|=)?\s*(\S+)\s*$")

Release = tuple[int, ...]


def parse_release(text: str) -> Release:
    """The numbers of a release ("v0.16.4-rc1" -> (0, 16, 4)), trailing zeros dropped."""
    match = _RELEASE.match(str(text))
    if match is None:
        raise ValueError(_("not a release version: %(text)s (expected e.g. 2.10.0)", text=text))
    numbers = [int(part) for part in match.group(1).split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def _holds(operator: str, pinned: Release, bound: Release) -> bool:
    return {
        ">=": pinned >= bound,
        "<=": pinned <= bound,
        ">": pinned > bound,
        "<": pinned < bound,
        "!=": pinned != bound,
    }.get(operator, pinned == bound)


def version_matches(spec: str, version: str) -> bool | None:
    """Whether `version` is within `spec`; None when the spec says nothing or cannot be read."""
    parts = [part for part in (spec or "").split(",") if part.strip()]
    if not parts:
        return None
    try:
        pinned = parse_release(version)
        constraints = []
        for part in parts:
            match = _CONSTRAINT.match(part)
            if match is None:
                return None
            constraints.append((match.group(1) or "==", parse_release(match.group(2))))
    except ValueError:
        return None
    if any(operator in (">=", "<=", ">", "<", "!=") for operator, _bound in constraints):
        return all(_holds(operator, pinned, bound) for operator, bound in constraints)
    return any(pinned == bound for _op, bound in constraints)  # a list of releases


def in_span(span: Mapping[str, str], version: str) -> bool:
    """Whether a contract with this since/until span exists in `version` (unreadable: yes)."""
    try:
        pinned = parse_release(version)
        if span.get("since") and pinned < parse_release(span["since"]):
            return False
        return not (span.get("until") and pinned >= parse_release(span["until"]))
    except ValueError:
        return True


def span_words(span: Mapping[str, str]) -> str:
    """A span as people say it: "since 0.16.4", "until 0.20", "since 0.15, until 0.20"."""
    words = []
    if span.get("since"):
        words.append(_("since %(version)s", version=span["since"]))
    if span.get("until"):
        words.append(_("until %(version)s", version=span["until"]))
    return ", ".join(words)


# Profile input: a cluster's Kubernetes version and the project versions it pins.
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,99}$")
VERSION_TEXT = re.compile(r"^v?[0-9][0-9A-Za-z.+_-]{0,39}$")
PINNED_MAX = 100


def profile_kubernetes_version(value: object) -> str | None:
    """A step-1 Kubernetes version, validated ("v1.34.2" is kept as written, trimmed)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str) or len(value) > 40 or "\x00" in value:
        raise ValueError("kubernetes_version: expected a Kubernetes version such as 1.34")
    try:
        parse_version(value.strip())
    except ValueError:
        raise ValueError(
            _("kubernetes_version: %(value)s is not a Kubernetes version such as 1.34", value=value)
        ) from None
    return value.strip()


def profile_component_versions(value: object) -> tuple[tuple[str, str], ...]:
    """Pinned versions per project slug, validated, in slug order (equal profiles compare equal)."""
    if not value:
        return ()
    if not isinstance(value, Mapping) or len(value) > PINNED_MAX:
        raise ValueError(
            f"component_versions: expected an object of at most {PINNED_MAX} "
            "project slug -> version"
        )
    pinned = []
    for slug, version in value.items():
        if not isinstance(slug, str) or not SLUG.match(slug):
            raise ValueError(_("component_versions: %(slug)r is not a project slug", slug=slug))
        if not isinstance(version, str) or not VERSION_TEXT.match(version.strip()):
            raise ValueError(
                _(
                    "component_versions: %(slug)s: %(version)r is not a version such as 2.10.0",
                    slug=slug,
                    version=version,
                )
            )
        pinned.append((slug, version.strip()))
    return tuple(sorted(pinned))


def feature_gap_messages(
    gaps: Iterable[tuple[str, str]], kubernetes_version: str | None
) -> list[Text]:
    """Gaps (row id, pattern) on Kubernetes feature gates in words: each gate's stage at that
    version and the release it is on by default from."""
    if kubernetes_version is None:
        return []
    gaps = list(gaps)
    gates = sorted(
        {p.removeprefix(FEATURE_PREFIX) for _row, p in gaps if p.startswith(FEATURE_PREFIX)}
    )
    messages = []
    for gate in gates:
        if feature_interface(gate) not in KUBERNETES_BASELINE:
            continue
        rows = sorted({row for row, p in gaps if p == feature_interface(gate)})
        messages.append(
            _(
                "%(reason)s (needed by %(rows)s)",
                reason=unavailable_reason(gate, kubernetes_version),
                rows=", ".join(rows),
            )
        )
    return messages


def pinned_rows(
    rows: Sequence[Row], pinned: Mapping[str, str], installed: Mapping[str, str] | None = None
) -> tuple[list[Row], list[Text]]:
    """Rows as their pinned versions have them (contracts outside their span dropped), and what
    the pins say: claims verified for other versions, contracts the pinned release lacks.

    `installed` (project -> the release the cluster runs) judges rows the same way where no pin
    is said, and says it once per row: the release is kept, an upgrade is a step of its own."""
    adjusted, messages = [], []
    for row in rows:
        version = pinned.get(row.project)
        kept = (installed or {}).get(row.project) if version is None else None
        if kept:
            row, dropped = _at_release(row, kept)
            if dropped or version_matches(row.versions, kept) is False:
                messages.append(
                    _(
                        "%(row)s: %(version)s is installed and kept; the catalog's claims are "
                        "verified for %(versions)s, and the contracts that release adds are not "
                        "counted (%(count)s): an upgrade is a step of its own",
                        row=row.id,
                        version=kept,
                        versions=row.versions or "?",
                        count=len(dropped),
                    )
                )
            adjusted.append(row)
            continue
        if version is None:
            adjusted.append(row)
            continue
        if version_matches(row.versions, version) is False:
            messages.append(
                _(
                    "%(row)s: claims verified for %(versions)s; you pin %(version)s",
                    row=row.id,
                    versions=row.versions,
                    version=version,
                )
            )
        absent = {
            ident for ident, span in row.contract_versions.items() if not in_span(span, version)
        }
        for ident in sorted(i for i in absent if _used_by_stack(i, row, rows)):
            messages.append(
                _(
                    "%(row)s: %(interface)s exists %(span)s; %(version)s is treated as without it",
                    row=row.id,
                    interface=ident,
                    span=span_words(row.contract_versions[ident]),
                    version=version,
                )
            )
        if absent:
            row = replace(
                row,
                **{
                    name: getattr(row, name) - absent
                    for name in ("provides", "requires", "accepts", "exclusive", "signals")
                },
            )
        adjusted.append(row)
    return adjusted, messages


def _used_by_stack(ident: str, row: Row, rows: Sequence[Row]) -> bool:
    """Whether a contract a pinned release lacks is worth saying: the row's own objects
    (`crd:`) always; another API (DRA's `api:resource.k8s.io/…`) only when another row of the
    stack provides, requires or accepts it."""
    if ident.startswith("crd:"):
        return True
    return any(
        ident in other.provides
        or any(fnmatchcase(ident, pattern) for pattern in (*other.requires, *other.accepts))
        for other in rows
        if other.id != row.id
    )


def _at_release(row: Row, version: str) -> tuple[Row, list[str]]:
    absent = sorted(
        ident for ident, span in row.contract_versions.items() if not in_span(span, version)
    )
    if not absent:
        return row, []
    return (
        replace(
            row,
            **{
                name: getattr(row, name) - set(absent)
                for name in ("provides", "requires", "accepts", "exclusive", "signals")
            },
        ),
        absent,
    )
