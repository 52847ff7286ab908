"""Catalog search: the stored full-text documents of projects and rows, kept current by the one
write path, and the reads that rank them against a query in either language."""
