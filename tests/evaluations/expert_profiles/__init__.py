"""Recommendations checked against what a GPU-platform expert would sign (see README.md)."""
