"""Fast inserts of many rows: COPY on PostgreSQL, bulk_create elsewhere (the SQLite demo).

Imports of thousands of placement rows spend most of their time creating model instances and
compiling INSERT statements; COPY streams plain tuples instead. Ids are not returned: callers
read them back with one query on a natural key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson
from django.db import connection, models

# Column types that COPY's text format needs serialised by us.
_JSON_TYPES = (models.JSONField,)


def insert_rows(model: type[models.Model], columns: Sequence[str], rows: Iterable[tuple]) -> int:
    """Insert `rows` (tuples in the order of `columns`, attnames) into `model`'s table."""
    rows = list(rows)
    if not rows:
        return 0
    fields = [model._meta.get_field(name) for name in columns]
    if connection.vendor != "postgresql":
        model.objects.bulk_create(
            [model(**dict(zip(columns, row, strict=True))) for row in rows], batch_size=500
        )
        return len(rows)
    json_positions = [i for i, field in enumerate(fields) if isinstance(field, _JSON_TYPES)]
    table = connection.ops.quote_name(model._meta.db_table)
    column_sql = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    with connection.cursor() as cursor:
        raw = cursor.cursor  # the psycopg cursor under Django's wrapper
        with raw.copy(f"COPY {table} ({column_sql}) FROM STDIN") as copy:
            for row in rows:
                if json_positions:
                    row = list(row)
                    for i in json_positions:
                        row[i] = _json(row[i])
                copy.write_row(row)
    return len(rows)


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()
