"""Reusable catalog filters and prefetches, chained by selectors and API views."""

from __future__ import annotations

from django.db import models
from django.db.models import Prefetch


class ProjectQuerySet(models.QuerySet):
    def in_layer(self, layer_key: str) -> ProjectQuerySet:
        return self.filter(placements__layer__key=layer_key).distinct()

    def with_unit(self, unit_key: str) -> ProjectQuerySet:
        return self.filter(placements__resource_units__key=unit_key).distinct()

    def with_enforcement_point(self, point_key: str) -> ProjectQuerySet:
        return self.filter(placements__enforcement_points__key=point_key).distinct()

    def tagged(self, tag_slug: str) -> ProjectQuerySet:
        return self.filter(tags__slug=tag_slug).distinct()

    def placed(self) -> ProjectQuerySet:
        return self.filter(placements__isnull=False).distinct()

    def unplaced(self) -> ProjectQuerySet:
        return self.filter(placements__isnull=True)

    def with_cards(self) -> ProjectQuerySet:
        """Everything a list or a card shows, in a fixed number of queries."""
        # The row model through the relation: models.py imports this module, not the reverse.
        rows = self.model._meta.get_field("placements").related_model
        return self.prefetch_related(
            "tags",
            Prefetch("placements", queryset=rows.objects.with_cards()),
        )

    def with_tiles(self) -> ProjectQuerySet:
        """What a catalog tile shows (name, tags, each row's layer and component), without the
        rows' contracts and documents that only a card shows."""
        rows = self.model._meta.get_field("placements").related_model
        # A project's rows share its name: ordering by key alone is the rows' own order.
        tiles = rows.objects.select_related("layer").only("project_id", "key", "component", "layer")
        return self.prefetch_related("tags", Prefetch("placements", queryset=tiles.order_by("key")))


class PlacementRowQuerySet(models.QuerySet):
    def with_cards(self) -> PlacementRowQuerySet:
        return self.select_related("project", "layer").prefetch_related(
            "resource_units", "enforcement_points", "contracts__interface"
        )

    def in_layer(self, layer_key: str) -> PlacementRowQuerySet:
        return self.filter(layer__key=layer_key)

    def with_unit(self, unit_key: str) -> PlacementRowQuerySet:
        return self.filter(resource_units__key=unit_key).distinct()

    def with_enforcement_point(self, point_key: str) -> PlacementRowQuerySet:
        return self.filter(enforcement_points__key=point_key).distinct()
