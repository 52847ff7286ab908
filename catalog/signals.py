"""Signals the catalog sends; other apps listen without the catalog importing them."""

from __future__ import annotations

from django.dispatch import Signal

# Sent once per committed catalog write, with `refs` (the "project/key" of every row created,
# updated or deleted, and "project/" for a project's own fields or its deletion) and
# `revision` (catalog.selectors.catalog_revision() after the write).
catalog_rows_changed = Signal()
