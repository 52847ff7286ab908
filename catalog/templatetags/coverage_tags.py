"""Lookups for the coverage table."""

from django import template

register = template.Library()


@register.simple_tag
def layer_unit_count(coverage, layer: str, unit: str) -> int:
    return coverage.rows_by_layer_unit.get((layer, unit), 0)


@register.filter
def get_item(mapping, key):
    return mapping.get(key, 0)
