"""Diffs between two revisions of an evaluation: the engine, the reads, the words."""
