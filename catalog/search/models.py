"""Search documents: one weighted tsvector per project and per placement row (PostgreSQL).

They live in tables of their own so the pages that read every row (the map, the matrix, the API)
never carry the documents along. The SQLite demo leaves them empty and matches words directly.
"""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models


class ProjectSearchDocument(models.Model):
    project = models.OneToOneField(
        "catalog.Project", on_delete=models.CASCADE, primary_key=True, related_name="search"
    )
    document = SearchVectorField()

    class Meta:
        indexes = [
            # search and /catalog/?q=: `document @@ query` over every project
            GinIndex(fields=["document"], name="project_search_gin"),
        ]

    def __str__(self) -> str:
        return f"search document of project {self.project_id}"


class RowSearchDocument(models.Model):
    row = models.OneToOneField(
        "catalog.PlacementRow", on_delete=models.CASCADE, primary_key=True, related_name="search"
    )
    document = SearchVectorField()

    class Meta:
        indexes = [
            # search: `document @@ query` over every placement row
            GinIndex(fields=["document"], name="row_search_gin"),
        ]

    def __str__(self) -> str:
        return f"search document of row {self.row_id}"
