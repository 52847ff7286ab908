"""Cluster snapshots: what is really deployed, stored per team and compared with decisions."""
