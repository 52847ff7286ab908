"""The compatibility matrix: snapshots computed by a job, the heatmap, pair pages and the API."""
