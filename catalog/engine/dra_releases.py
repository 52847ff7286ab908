"""DRA driver releases and the oldest Kubernetes each documents as supported, as catalog facts.

The facts live in catalog/data/facts/dra-drivers.yaml (format ecomap.dra-drivers/v1: per project
release, its minimum Kubernetes, its chart's kubeVersion, and the pages read at the release tag).
A release is looked up by the project slug and the row's project_version as written, so a decision
pinned at a release reads that release's facts. The minimum may name a patch release (the NVIDIA
driver v0.4.1 supports Kubernetes 1.34.2 and later), so a cluster version given as a minor only
("1.34") can be neither above nor below it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

RELEASES_PATH = Path(__file__).resolve().parents[1] / "data" / "facts" / "dra-drivers.yaml"
RELEASES_FORMAT = "ecomap.dra-drivers/v1"
# 1.34, v1.34.2, 1.34.2-eks-1a2b: major, minor and the patch when it is given.
_VERSION = re.compile(r"^v?(\d{1,9})\.(\d{1,9})(?:\.(\d{1,9}))?(?:[+-].*)?$")

_CHART_FLOOR = re.compile(r">=\s*(v?\d+\.\d+(?:\.\d+)?)")

Patch = tuple[int, int, int | None]  # (major, minor, patch or None when not given)

BELOW = "below"  # older than the release's minimum
UNSURE = "unsure"  # the same minor, but the patch the minimum needs is not given


@dataclass(frozen=True, slots=True)
class DriverRelease:
    project: str
    release: str
    kubernetes: str  # the documented minimum, as the facts write it
    chart_kube_version: str = ""
    note: str = ""
    sources: tuple[str, ...] = ()
    verified_at: str = ""

    @property
    def minimum(self) -> Patch:
        return parse_patch_version(self.kubernetes)

    @property
    def chart_minimum(self) -> Patch | None:
        """The oldest Kubernetes the chart's kubeVersion (">=1.34.0-0") lets helm install on."""
        match = _CHART_FLOOR.search(self.chart_kube_version)
        return parse_patch_version(match.group(1)) if match else None


def parse_patch_version(text: str) -> Patch:
    """(major, minor, patch) of a Kubernetes version as written; patch None when not given."""
    match = _VERSION.fullmatch(str(text).strip())
    if match is None:
        raise ValueError(f"not a Kubernetes version: {text!r} (expected e.g. 1.34 or 1.34.2)")
    patch = match.group(3)
    return int(match.group(1)), int(match.group(2)), int(patch) if patch is not None else None


def _release(entry: Mapping[str, Any]) -> DriverRelease:
    missing = [key for key in ("project", "release", "kubernetes", "sources") if not entry.get(key)]
    if missing:
        raise ValueError(f"{RELEASES_PATH.name}: an entry lacks {', '.join(missing)}: {entry}")
    release = DriverRelease(
        project=str(entry["project"]),
        release=str(entry["release"]),
        kubernetes=str(entry["kubernetes"]),
        chart_kube_version=str(entry.get("chart_kube_version") or ""),
        note=" ".join(str(entry.get("note") or "").split()),
        sources=tuple(str(url) for url in entry["sources"]),
        verified_at=str(entry.get("verified_at") or ""),
    )
    release.minimum  # noqa: B018 - an unreadable version fails on load, not when generating
    return release


@functools.cache
def driver_releases() -> Mapping[tuple[str, str], DriverRelease]:
    """Every release of the facts file, by (project slug, release as the row writes it)."""
    document = yaml.safe_load(RELEASES_PATH.read_text(encoding="utf-8")) or {}
    if document.get("format") != RELEASES_FORMAT:
        raise ValueError(f"{RELEASES_PATH.name}: format must be {RELEASES_FORMAT}")
    releases = [_release(entry) for entry in document.get("releases") or ()]
    return {(r.project, r.release): r for r in releases}


def driver_release(project: str, release: str) -> DriverRelease | None:
    """The facts of one project release; None when the catalog states none for it."""
    return driver_releases().get((project, release))


def kubernetes_support(release: DriverRelease, version: str) -> str | None:
    """BELOW when `version` is older than the release's minimum, UNSURE when it is the same
    minor without the patch the minimum names, None when it is supported."""
    return _older(parse_patch_version(version), release.minimum)


def chart_refuses(release: DriverRelease, version: str) -> bool:
    """Whether helm refuses to install the release's chart on `version` (its kubeVersion)."""
    floor = release.chart_minimum
    return floor is not None and _older(parse_patch_version(version), floor) == BELOW


def _older(have: Patch, need: Patch) -> str | None:
    major, minor, patch = have
    need_major, need_minor, need_patch = need
    if (major, minor) != (need_major, need_minor):
        return BELOW if (major, minor) < (need_major, need_minor) else None
    if not need_patch:
        return None
    if patch is None:
        return UNSURE
    return BELOW if patch < need_patch else None
