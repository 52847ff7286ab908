"""Catalog coverage: which layers, units and rows are filled, sourced and recently verified."""
