"""Catalog forms: the list filters."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from catalog.selectors import CatalogFilters


class CatalogFilterForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=200)
    layer = forms.SlugField(label=_("Layer"), required=False)
    unit = forms.SlugField(label=_("Resource unit"), required=False)
    enforcement_point = forms.SlugField(label=_("Enforcement point"), required=False)
    tag = forms.SlugField(label=_("Tag"), required=False)
    unplaced = forms.BooleanField(label=_("Awaiting placement"), required=False)

    def filters(self) -> CatalogFilters:
        data = self.cleaned_data if self.is_valid() else {}
        return CatalogFilters(
            layer=data.get("layer") or "",
            unit=data.get("unit") or "",
            enforcement_point=data.get("enforcement_point") or "",
            tag=data.get("tag") or "",
            text=data.get("q") or "",
            unplaced=bool(data.get("unplaced")),
        )
