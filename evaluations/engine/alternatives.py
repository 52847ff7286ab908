"""The head of a ranking: alternatives a review can weigh. What makes two stacks different in
kind and in data plane, the best stack of each of METHOD's shapes, then other data planes, and the
shape a stack is labelled with."""

from __future__ import annotations

from typing import Any

from catalog.engine.profile import Profile
from catalog.engine.rows import Row
from catalog.engine.stack import governed
from catalog.engine.units import SHARING_UNITS
from evaluations.engine.drafting import _Draft, _time_shared

# The head of every ranking: alternatives a review can weigh (best per shape, other data planes).
ALTERNATIVES = 3


def _kind(rec: Any, rows: dict[str, Row]) -> tuple[object, ...]:
    """What makes a stack different in kind: its shape, each pool's presenting project, units and
    tenant sharing, and its governor's project. Variants of one project (a MIG strategy), an
    exporter or a watcher do not."""
    # Pool names left out: the same presenters and units under other pool names are one answer.
    pools = tuple(
        sorted(
            (
                tuple(pool["units"]),
                pool["tenant_sharing"],
                tuple(
                    sorted(
                        {
                            rows[ref].project
                            for ref in rec.pools[name]
                            if rows[ref].layer == "data_plane"
                            and rows[ref].resource_units - {"none"}
                        }
                    )
                ),
            )
            for name, pool in rec.pool_details.items()
        )
    )
    governors = tuple(sorted({rows[ref].project for ref in rec.rows if governed(rows[ref])}))
    return (rec.shape, pools, governors)


def _with_alternatives(
    ranked: list[tuple[tuple[object, ...], Any, bool, tuple[object, ...], bool]],
    limit: int,
) -> list[Any]:
    """Best first, where the first three are alternatives a review can weigh: the best stack of
    each of METHOD's shapes that makes sense for the profile, then stacks whose data plane
    differs from those already shown (another governor alone is a smaller difference) and that
    can stand as an alternative (a plane that meters nothing is none for a profile that asks to
    observe), then the rest by score."""
    best_of_shape: dict[str, tuple[Any, tuple[object, ...]]] = {}
    for _order, rec, sound, plane, _alternative in ranked:
        # The same data plane is not another shape's answer (see `plane` in recommend).
        if (
            sound
            and rec.shape not in best_of_shape
            and plane not in {known for _rec, known in best_of_shape.values()}
        ):
            best_of_shape[rec.shape] = (rec, plane)
    top = sorted(best_of_shape.values(), key=lambda item: -item[0].score)[:ALTERNATIVES]
    rest = [(rec, plane) for _order, rec, _sound, plane, _alt in ranked if (rec, plane) not in top]
    sound = {id(rec) for _order, rec, is_sound, _plane, _alt in ranked if is_sound}
    alternatives = {id(rec) for _order, rec, _sound, _plane, alternative in ranked if alternative}
    while len(top) < ALTERNATIVES and rest:
        planes = {plane for _rec, plane in top}
        pick = next(
            (item for item in rest if id(item[0]) in alternatives and item[1] not in planes),
            next((item for item in rest if id(item[0]) in sound), rest[0]),
        )
        rest.remove(pick)
        top.append(pick)
    top.sort(key=lambda item: -item[0].score)
    return [rec for rec, _plane in top + rest][:limit]


def _shape_label(draft: _Draft, details: dict[str, dict[str, Any]], profile: Profile) -> str:
    """The method's shape the stack is: one pool that shares no GPU, by unit or by time window
    (training borrowing the serving GPUs at night), is shape A (whole GPUs or hard partitions
    with queues), never B, which is one *shared* pool for inference."""
    units = {unit for pool in details.values() for unit in pool["units"]}
    served = {kind for pool in details.values() for kind in pool["workloads"]}
    borrowed = set(_time_shared(profile)) & served
    if draft.shape == "B" and not units & SHARING_UNITS and not borrowed:
        return "A"
    return draft.shape


def _alternative_planes(kinds: dict[tuple[object, ...], Any]) -> set[object]:
    return {item[3] for item in kinds.values() if item[4]}
