"""What-if: swap one row of a decided stack for another and see the consequences first.

Plain Python (no Django). Given the decided rows and pools, a swap (row X → row Y, everywhere or
in one pool), the profile and the Kubernetes feature stages, it computes the stack check before
and after, the contracts (compose links) that break or appear, the Kubernetes version the swap
needs and, when the catalog knows one, the migration path with the versions its steps need.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from catalog.engine.oracle import links_between
from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import StackReport, check_stack
from catalog.engine.text import Text, _

FEATURE_PREFIX = "api:kubernetes/feature/"
# Interfaces that exist only where a feature is on: resource.k8s.io/v1 and the kubelet's DRA
# plugin API came with DynamicResourceAllocation (GA, resource.k8s.io/v1, in 1.34).
IMPLIED_FEATURES: tuple[tuple[str, str], ...] = (
    ("api:resource.k8s.io/v1/", "DynamicResourceAllocation"),
    ("api:kubelet/dra-plugin/v1", "DynamicResourceAllocation"),
)
_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)")

Minor = tuple[int, int]


def _minor(text: Any) -> Minor | None:
    match = _VERSION.match(str(text)) if text not in (None, "") else None
    return (int(match.group(1)), int(match.group(2))) if match else None


def _format(minor: Minor) -> str:
    return f"{minor[0]}.{minor[1]}"


@dataclass(frozen=True, slots=True)
class Swap:
    """Replace row `old` by row `new`; with `pool`, only in that node pool."""

    old: str
    new: str
    pool: str | None = None


@dataclass(frozen=True, slots=True)
class MigrationStep:
    text: str
    evidence: tuple[str, ...] = ()
    feature: str | None = None
    restores: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MigrationPath:
    """A known path from one row (or a glob of rows) to another, as the catalog states it."""

    key: str
    source: str  # row ref or glob
    target: str
    title: str
    install: str  # "new_per_pool" | "in_place"
    steps: tuple[MigrationStep, ...]
    companions: tuple[str, ...] = ()  # rows the path brings next to the target

    def matches(self, old: str, new: str) -> bool:
        return fnmatchcase(old, self.source) and new == self.target


@dataclass(frozen=True, slots=True)
class FeatureNeed:
    """A Kubernetes feature the swap (or a migration step) needs, and what it means here."""

    feature: str
    rows: tuple[str, ...]  # who needs it (row ids, or "step N" of the path)
    default_on_since: str | None
    stage_here: str | None = None  # the stage at the profile's version, when stated
    status: str = "unknown"  # ok | needs_gate | absent | unknown | no_version
    message: str = ""


@dataclass(frozen=True, slots=True)
class LinkChange:
    """Compose links from one provider to one consumer that broke or appeared, grouped."""

    provider: str
    consumer: str
    relation: str  # "requires" | "accepts"
    interfaces: tuple[str, ...]
    pools: tuple[str, ...]  # where they broke or appeared
    bridged_by: int | None = None  # the migration step (1-based) that gives them back

    @property
    def endpoints(self) -> tuple[str, str]:
        return self.provider, self.consumer


@dataclass(frozen=True)
class WhatIf:
    swap: Swap
    rows_before: tuple[str, ...]
    rows_after: tuple[str, ...]
    pools_after: Mapping[str, tuple[str, ...]]
    before: StackReport
    after: StackReport
    new_problems: tuple[Text, ...]
    resolved_problems: tuple[Text, ...]
    broken: tuple[LinkChange, ...]
    appeared: tuple[LinkChange, ...]
    features: tuple[FeatureNeed, ...]
    kubernetes_version: str | None  # the first minor where every feature the swap needs is on
    path: MigrationPath | None = None
    path_features: tuple[FeatureNeed, ...] = ()
    path_version: str | None = None  # the same, counting the migration steps' features too
    added: tuple[str, ...] = field(default=())  # rows added with the target (path companions)

    @property
    def worse(self) -> bool:
        return bool(self.new_problems) and len(self.new_problems) > len(self.resolved_problems)


# ---------------------------------------------------------------------------------------------
# The swapped stack


def swapped_stack(
    rows: Sequence[str],
    pools: Mapping[str, Sequence[str]] | None,
    swap: Swap,
    companions: Sequence[str] = (),
) -> tuple[list[str], dict[str, list[str]]]:
    """The stack after the swap: row ids and pools (an empty dict when the stack has none).

    Everywhere: X is replaced by Y where it stood (cluster-wide or in its pools). In one pool: Y
    joins that pool; X leaves it, and when X was cluster-wide it is pinned to the other pools.
    Companion rows stand next to Y (same pools). Raises ValueError for a swap that cannot apply.
    """
    pools = {name: list(ids) for name, ids in (pools or {}).items()}
    if swap.old not in rows:
        raise ValueError(_("%(row)s is not in the decided stack", row=swap.old))
    if swap.old == swap.new:
        raise ValueError(_("choose a different row to swap in"))
    if swap.pool is not None and swap.pool not in pools:
        raise ValueError(_("the decided stack has no node pool %(pool)s", pool=swap.pool))
    added = [swap.new, *(c for c in companions if c not in (swap.new, swap.old))]
    pooled = {ref for ids in pools.values() for ref in ids}
    if swap.pool is None:
        after_rows = _replace(rows, swap.old, added)
        for name, ids in pools.items():
            if swap.old in ids:
                pools[name] = _replace(ids, swap.old, added)
        return after_rows, pools
    # One pool only.
    if swap.old in pooled:
        holders = [name for name, ids in pools.items() if swap.old in ids]
    else:  # cluster-wide: it keeps serving every other pool
        holders = list(pools)
        for name in holders:
            if name != swap.pool:
                pools[name] = [*pools[name], swap.old]
    target = pools[swap.pool]
    pools[swap.pool] = (
        _replace(target, swap.old, added)
        if swap.old in target
        else [*target, *(a for a in added if a not in target)]
    )
    after_rows = [*rows, *(a for a in added if a not in rows)]
    still = any(swap.old in ids for ids in pools.values())
    if not still and holders == [swap.pool]:
        after_rows = [ref for ref in after_rows if ref != swap.old]
    return after_rows, pools


def _replace(ids: Sequence[str], old: str, added: Sequence[str]) -> list[str]:
    out: list[str] = []
    for ref in ids:
        for item in added if ref == old else (ref,):
            if item not in out:
                out.append(item)
    return out


# ---------------------------------------------------------------------------------------------
# Stack check and contracts before and after


def _problems(report: StackReport, pooled: bool) -> dict[tuple, Text]:
    """Every gap, conflict, missing layer and fit shortfall, keyed so two reports compare."""
    found: dict[tuple, Text] = {}
    for gap in report.gaps:
        where = _(" (pool %(pool)s)", pool=gap.pool) if gap.pool and pooled else ""
        # Keyed without the row: the same need left unmet by the new row is no new problem.
        found[("gap", gap.pattern, gap.pool)] = _(
            "%(row)s requires %(pattern)s: nothing in reach provides it%(where)s",
            row=gap.row,
            pattern=gap.pattern,
            where=where,
        )
    for conflict in report.conflicts:
        key = ("conflict", conflict.pool, *sorted((conflict.row_a, conflict.row_b)))
        found[key] = _(
            "%(a)s and %(b)s conflict in pool %(pool)s: %(tokens)s",
            a=conflict.row_a,
            b=conflict.row_b,
            pool=conflict.pool,
            tokens=", ".join(conflict.tokens),
        )
    for missing in report.missing_layers:
        message = missing.message
        found[("layer", missing.pool, missing.layer)] = (
            message if isinstance(message, Text) else Text(str(message))
        )
    for finding in report.fit:
        if finding.status != "ok":
            message = finding.message
            found[("fit", finding.aspect, finding.status, str(message))] = (
                message if isinstance(message, Text) else Text(str(message))
            )
    return found


def _links(rows: Sequence[Row], report: StackReport) -> dict[tuple, set[str]]:
    """Each compose link between rows that meet on a pool, with the pools where it holds."""
    by_id = {row.id: row for row in rows}
    held: dict[tuple, set[str]] = {}
    for pool, ids in report.pools.items():
        members = [by_id[i] for i in ids if i in by_id]
        for provider in members:
            for consumer in members:
                if provider.id == consumer.id:
                    continue
                for link in links_between(provider, consumer):
                    key = (link.provider, link.consumer, link.interface, link.relation)
                    held.setdefault(key, set()).add(pool)
    return held


def _link_changes(
    before: Mapping[tuple, set[str]], after: Mapping[tuple, set[str]], path: MigrationPath | None
) -> tuple[list[LinkChange], list[LinkChange]]:
    restored = {
        interface: index
        for index, step in enumerate(path.steps if path else (), start=1)
        for interface in step.restores
    }
    broken: dict[tuple, list[str]] = {}
    appeared: dict[tuple, list[str]] = {}
    for key in sorted(set(before) | set(after)):
        provider, consumer, interface, relation = key
        lost = tuple(sorted(before.get(key, set()) - after.get(key, set())))
        gained = tuple(sorted(after.get(key, set()) - before.get(key, set())))
        if lost:
            group = (provider, consumer, relation, lost, restored.get(interface))
            broken.setdefault(group, []).append(interface)
        if gained:
            appeared.setdefault((provider, consumer, relation, gained, None), []).append(interface)
    return [
        [
            LinkChange(provider, consumer, relation, tuple(interfaces), pools, bridged)
            for (provider, consumer, relation, pools, bridged), interfaces in groups.items()
        ]
        for groups in (broken, appeared)
    ]


# ---------------------------------------------------------------------------------------------
# Kubernetes features


def features_needed(row: Row) -> list[str]:
    """Feature gates a row cannot work without: its `api:kubernetes/feature/*` requires, and
    the features behind the DRA interfaces it requires or provides."""
    needed = [p.removeprefix(FEATURE_PREFIX) for p in row.requires if p.startswith(FEATURE_PREFIX)]
    for interface in sorted(row.requires | row.provides):
        for prefix, feature in IMPLIED_FEATURES:
            if interface.startswith(prefix) and feature not in needed:
                needed.append(feature)
    return sorted(set(needed))


def _stage_at(facts: Mapping[str, Any], minor: Minor) -> str | None:
    stages = {_minor(k): str(v) for k, v in (facts.get("stages") or {}).items()}
    stages.pop(None, None)
    if not stages:
        return None
    if minor in stages:
        return stages[minor]
    if minor < min(stages):
        return "absent"
    last = max(stages)
    return "GA" if minor > last and stages[last] == "GA" else None


def feature_need(
    name: str,
    who: Sequence[str],
    facts: Mapping[str, Mapping[str, Any]],
    kubernetes_version: str | None,
) -> FeatureNeed:
    """What feature `name` means for a cluster at `kubernetes_version` (None: not stated)."""
    entry = facts.get(name)
    since = _minor(entry.get("default_on_since")) if entry else None
    since_text = _format(since) if since else None
    if entry is None:
        return FeatureNeed(
            name, tuple(who), None, status="unknown", message=_("%(f)s: no stages known", f=name)
        )
    if since is None:
        message = _("%(f)s: not on by default in any verified release", f=name)
    else:
        message = _("%(f)s: on by default from Kubernetes %(v)s", f=name, v=since_text)
    here = _minor(kubernetes_version)
    if here is None:
        return FeatureNeed(name, tuple(who), since_text, status="no_version", message=message)
    stage = _stage_at(entry, here)
    version = _format(here)
    if since is not None and here >= since:
        status = "ok"
        message = _("%(f)s: on by default in your Kubernetes %(here)s", f=name, here=version)
    elif stage == "absent":
        status = "absent"
        message = _(
            "%(f)s: not yet in your Kubernetes %(here)s; upgrade to %(v)s",
            f=name,
            here=version,
            v=since_text or "?",
        )
    elif stage in ("alpha", "beta"):
        status = "needs_gate"
        message = _(
            "%(f)s: %(stage)s in your Kubernetes %(here)s: needs the gate switched on "
            "(on by default from %(v)s)",
            f=name,
            stage=_(stage),
            here=version,
            v=since_text or "?",
        )
    else:
        status = "unknown"
        message = _(
            "%(f)s: stage not verified for Kubernetes %(here)s (on by default from %(v)s)",
            f=name,
            here=version,
            v=since_text or "?",
        )
    return FeatureNeed(name, tuple(who), since_text, stage, status, message)


def _version_needed(needs: Iterable[FeatureNeed]) -> str | None:
    minors = [_minor(need.default_on_since) for need in needs if need.default_on_since]
    return _format(max(m for m in minors if m)) if minors else None


# ---------------------------------------------------------------------------------------------
# The what-if


def what_if(
    rows: Sequence[Row],
    pools: Mapping[str, Sequence[str]] | None,
    swap: Swap,
    catalog: Mapping[str, Row],
    *,
    profile: Profile | None = None,
    features: Mapping[str, Mapping[str, Any]] | None = None,
    kubernetes_version: str | None = None,
    paths: Sequence[MigrationPath] = (),
) -> WhatIf:
    """The consequences of `swap` on the decided stack, computed before anything changes.

    `catalog` maps row ids to rows (the replacement and any path companions must be in it);
    `features` maps gate names to their facts ({"stages": {"1.34": "beta"}, "default_on_since"}).
    """
    features = features or {}
    if swap.new not in catalog:
        raise ValueError(_("%(row)s is not in the catalog", row=swap.new))
    new_row = catalog[swap.new]
    old_row = next((row for row in rows if row.id == swap.old), None)
    if old_row is not None and old_row.layer != new_row.layer:
        raise ValueError(
            _(
                "%(new)s sits on another layer than %(old)s: swap a row for one of its layer",
                new=swap.new,
                old=swap.old,
            )
        )
    path = next((p for p in paths if p.matches(swap.old, swap.new)), None)
    companions = [ref for ref in (path.companions if path else ()) if ref in catalog]
    ids = [row.id for row in rows]
    companions = [ref for ref in companions if ref not in ids]
    after_ids, after_pools = swapped_stack(ids, pools, swap, companions)
    known = {**catalog, **{row.id: row for row in rows}}
    after_rows = [known[ref] for ref in after_ids]
    before = check_stack(list(rows), dict(pools) if pools else None, profile)
    after = check_stack(after_rows, after_pools or None, profile)
    pooled = bool(pools) or bool(after_pools)
    problems_before, problems_after = _problems(before, pooled), _problems(after, pooled)
    broken, appeared = _link_changes(_links(rows, before), _links(after_rows, after), path)
    needs: dict[str, list[str]] = {}
    for row in [new_row, *(known[ref] for ref in companions)]:
        for name in features_needed(row):
            if not any(name in features_needed(r) for r in rows):
                needs.setdefault(name, []).append(row.id)
    feature_needs = tuple(
        feature_need(name, who, features, kubernetes_version) for name, who in needs.items()
    )
    step_needs: list[FeatureNeed] = []
    for index, step in enumerate(path.steps if path else (), start=1):
        if step.feature and step.feature not in needs:
            step_needs.append(
                feature_need(step.feature, (str(index),), features, kubernetes_version)
            )
    return WhatIf(
        swap=swap,
        rows_before=tuple(ids),
        rows_after=tuple(after_ids),
        pools_after={name: tuple(refs) for name, refs in after_pools.items()},
        before=before,
        after=after,
        new_problems=tuple(v for k, v in problems_after.items() if k not in problems_before),
        resolved_problems=tuple(v for k, v in problems_before.items() if k not in problems_after),
        broken=tuple(broken),
        appeared=tuple(appeared),
        features=feature_needs,
        kubernetes_version=_version_needed(feature_needs),
        path=path,
        path_features=tuple(step_needs),
        path_version=_version_needed([*feature_needs, *step_needs]),
        added=tuple(companions),
    )
