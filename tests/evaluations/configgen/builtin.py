"""The built-in catalog as the round trip reads it, without a database: engine rows, decided
rows as pinned (RowFacts), `detect` signatures; and a recommended stack decided with its pools."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from evaluations.configgen.model import Chart, DecisionFacts, RowFacts
from tests.factories import builtin_rows


@functools.cache
def _placements() -> dict[str, dict[str, Any]]:
    return {
        f"{project['slug']}/{placement['key']}": {**placement, "homepage": project["homepage"]}
        for path in sorted(Path(settings.CATALOG_DATA_DIR).glob("*.yaml"))
        for project in yaml.safe_load(path.read_text(encoding="utf-8"))["projects"]
        for placement in project["placements"]
    }


@functools.cache
def catalog_rows() -> list[Row]:
    return list(builtin_rows().values())


@functools.cache
def signatures() -> dict[str, dict[str, Any]]:
    return {ref: p["detect"] for ref, p in _placements().items() if p.get("detect")}


def row_facts(ref: str) -> RowFacts:
    placement = _placements()[ref]
    return RowFacts(
        ref=ref,
        layer=placement["layer"],
        units=tuple(placement.get("resource_units") or ()),
        provides=tuple(placement.get("provides") or ()),
        version=str(placement.get("project_version") or ""),
        docs=str(placement.get("homepage") or ""),
        # As decision_facts reads them (the row's detect signature names its DRA drivers).
        dra_drivers=tuple((placement.get("detect") or {}).get("dra_drivers") or ()),
        chart=Chart.of(placement.get("config")),
    )


def decided(recommendation, profile: Profile, evaluation_id: int = 1) -> DecisionFacts:
    """A recommended stack decided as the recommender gives it: its rows, its pools (pool rows
    per pool, cluster-wide rows in none), each pool's tenant sharing and node group, and step 1's
    named tenants (as decision_facts reads them)."""
    pools = {name: list(ids) for name, ids in recommendation.pools.items()}
    sharing = {
        name: str(detail.get("tenant_sharing") or "")
        for name, detail in recommendation.pool_details.items()
        if detail.get("tenant_sharing")
    }
    return DecisionFacts(
        evaluation_id=evaluation_id,
        rows=tuple(row_facts(ref) for ref in recommendation.rows),
        profile=profile,
        pools=pools if len(pools) > 1 or pools.keys() != {"default"} else pools,
        pool_tenant_sharing=sharing,
        # Each pool on the node group the ranking placed it on, as adopting it keeps it.
        pool_groups={
            name: str(detail["node_group"])
            for name, detail in recommendation.pool_details.items()
            if profile.node_groups and detail.get("node_group")
        },
        tenants=tuple(tenant.name for tenant in profile.tenants) or None,
    )
