"""The detected stack drawn on the three-layer map, "deployed vs decided": the catalog's map
builder lays out the rows of either set, and one ring per row says which of the two it is in."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from catalog.figure_text import plain
from catalog.map.figure import build_map, map_catalog
from catalog.models import PlacementRow
from catalog.selectors import engine_rows

# Ring colours: deployed and decided agree (green), deployed only (amber), decided only (red).
STATE_STYLES = {
    "both": ("#16a34a", "circle-open"),
    "deployed": ("#d97706", "circle-open"),
    "decided": ("#dc2626", "circle-open-dot"),
}


def _state_names() -> dict[str, str]:
    return {
        "both": _("deployed and decided"),
        "deployed": _("deployed, not decided"),
        "decided": _("decided, not deployed"),
    }


def _rows_named(ids: Iterable[str]) -> Q:
    query = Q(pk__in=[])
    for row_id in ids:
        slug, _sep, key = row_id.partition("/")
        query |= Q(project__slug=slug, key=key)
    return query


def row_states(deployed: Iterable[str], decided: Iterable[str] | None) -> dict[str, str]:
    """Each row id's state; without a decision every deployed row is simply deployed."""
    deployed, decided_set = set(deployed), set(decided or ())
    states = {row: ("both" if row in decided_set else "deployed") for row in deployed}
    if decided is not None:
        states.update(dict.fromkeys(decided_set - deployed, "decided"))
    return states


def deployed_figure(states: dict[str, str]) -> dict[str, Any] | None:
    """Plotly JSON of the rows in `states` on the map, ringed by state; None when empty."""
    if not states:
        return None
    rows = engine_rows(rows=PlacementRow.objects.filter(_rows_named(states)))
    if not rows:
        return None
    catalog = map_catalog(rows=rows)
    view = build_map(catalog, highlight=[row.id for row in rows])
    figure = view.figure
    names = _state_names()
    for state, (colour, symbol) in STATE_STYLES.items():
        ids = [row.id for row in view.shown if states.get(row.id) == state]
        if not ids:
            continue
        nodes = [view.layout.node(row_id) for row_id in ids]
        figure["data"].append(
            {
                "type": "scatter",
                "mode": "markers",
                "x": [node.x for node in nodes],
                "y": [node.y for node in nodes],
                "name": plain(names[state]),
                "hoverinfo": "skip",
                "showlegend": True,
                "marker": {
                    "symbol": symbol,
                    "size": 30,
                    "color": colour,
                    "line": {"width": 3, "color": colour},
                },
            }
        )
    return figure
