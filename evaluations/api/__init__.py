"""The evaluations REST API."""
