"""Kubernetes feature gates as catalog facts: each gate's stage per minor release, sourced.

The facts live in catalog/data/facts/kubernetes-features.yaml (one entry per gate: its stage in
each verified minor, the minor from which it is on by default, and the page that says so). A
feature is *available* at a release when it is on by default there (beta with the default on, or
GA); an alpha feature, or a beta one still off by default, needs its gate switched on in the API
server, the scheduler and every kubelet, which a stack check does not assume.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from catalog.engine.text import Text, _

FEATURES_PATH = Path(__file__).resolve().parents[1] / "data" / "facts" / "kubernetes-features.yaml"

# "1.34", "v1.34.2", "v1.30.4-eks-1a2b3c", "1.31+": the minor release is what the gates follow.
# A Kubernetes version as people and clusters write it: v1.34, 1.34.2, v1.34.2-eks-1…; the API
# documents the same pattern (VERSION_PATTERN) so what the schema allows is what is accepted.
VERSION_PATTERN = r"^v?([0-9]{1,9})\.([0-9]{1,9})(?:[.+-][^\x00]*)?$"
_VERSION = re.compile(VERSION_PATTERN)

Minor = tuple[int, int]


def parse_version(text: str) -> Minor:
    """The (major, minor) of a Kubernetes version as people and clusters write it."""
    match = _VERSION.fullmatch(str(text)) if text is not None else None
    if match is None:
        raise ValueError(_("not a Kubernetes version: %(text)s (expected e.g. 1.34)", text=text))
    return int(match.group(1)), int(match.group(2))


def format_minor(minor: Minor) -> str:
    return f"{minor[0]}.{minor[1]}"


@dataclass(frozen=True, slots=True)
class Feature:
    """One feature gate: its stage per verified minor and the minor it is on by default from."""

    name: str
    title: str = ""
    kep: int | None = None
    stages: Mapping[Minor, str] = field(default_factory=dict, hash=False)
    default_on_since: Minor | None = None
    note: str = ""
    source: str = ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Feature:
        since = data.get("default_on_since")
        return cls(
            name=str(data["feature"]),
            title=str(data.get("title") or ""),
            kep=data.get("kep"),
            stages={parse_version(k): str(v) for k, v in (data.get("stages") or {}).items()},
            default_on_since=parse_version(str(since)) if since else None,
            note=str(data.get("note") or ""),
            source=str(data.get("source") or ""),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "feature": self.name,
            "title": self.title,
            "kep": self.kep,
            "stages": {format_minor(m): s for m, s in sorted(self.stages.items())},
            "default_on_since": format_minor(self.default_on_since)
            if self.default_on_since
            else None,
            "note": self.note,
            "source": self.source,
        }


@functools.cache
def builtin_feature_entries() -> tuple[Mapping[str, Any], ...]:
    """The entries of the features file as written (the cluster check reads them so)."""
    return tuple(yaml.safe_load(FEATURES_PATH.read_text(encoding="utf-8")) or ())


@functools.cache
def features() -> Mapping[str, Feature]:
    """Every feature of the built-in facts, by gate name, in file order."""
    return {entry["feature"]: Feature.from_dict(entry) for entry in builtin_feature_entries()}


def feature(name: str) -> Feature:
    """The gate called `name`; KeyError names the known gates."""
    try:
        return features()[name]
    except KeyError:
        known = ", ".join(features())
        raise KeyError(f"unknown Kubernetes feature {name!r}; known: {known}") from None


def feature_stage(name: str, version: str | Minor) -> str | None:
    """The gate's stage at `version`: "alpha", "beta", "GA", "absent" (before its first
    release), or None when that minor was not verified (a GA gate stays GA after it)."""
    gate = feature(name)
    minor = parse_version(version) if isinstance(version, str) else version
    if not gate.stages:
        return None
    if minor in gate.stages:
        return gate.stages[minor]
    if minor < min(gate.stages):
        return "absent"
    last = max(gate.stages)
    if minor > last and gate.stages[last] == "GA":
        return "GA"
    return None


def available(name: str, version: str | Minor) -> bool:
    """Whether the feature is on by default at `version` (no gate to switch on)."""
    gate = feature(name)
    minor = parse_version(version) if isinstance(version, str) else version
    return gate.default_on_since is not None and minor >= gate.default_on_since


def since(name: str) -> str | None:
    """The first minor release where the feature is on by default, if any verified."""
    gate = feature(name)
    return format_minor(gate.default_on_since) if gate.default_on_since else None


def unavailable_reason(name: str, version: str | Minor) -> Text:
    """Why `name` is not on by default at `version`, naming the release that brings it."""
    minor = parse_version(version) if isinstance(version, str) else version
    here = format_minor(minor)
    stage = feature_stage(name, minor)
    first = since(name)
    if stage == "absent":
        what = _("not yet in Kubernetes %(version)s", version=here)
    elif stage is None:
        what = _("stage not verified for Kubernetes %(version)s", version=here)
    else:
        what = _("%(stage)s in Kubernetes %(version)s", stage=_(stage), version=here)
    if first:
        return _(
            "%(feature)s: %(what)s, on by default from %(since)s",
            feature=name,
            what=what,
            since=first,
        )
    return _(
        "%(feature)s: %(what)s, not on by default in any verified release", feature=name, what=what
    )
