"""Configuration generated from a decision (issue 30, first slice): node labels and taints per
pool, NVIDIA device plugin / GPU Operator values, mig-parted `mig-configs`, HAMi values and Kueue
queues, each document checked against a schema of the fields it sets (docs/configgen.md).

`generate` and `schemas` are plain Python; `selectors` reads a decision out of the database."""
