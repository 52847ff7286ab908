"""Imports of vendor data: parse, validate, record as a job, apply through the one write path."""
