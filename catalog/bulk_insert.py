"""Fast inserts of many rows: COPY on PostgreSQL, bulk_create elsewhere (the SQLite demo).

Imports of thousands of placement rows spend most of their time creating model instances and
compiling INSERT statements; COPY streams plain tuples instead. Ids are not returned: callers
read them back with one query on a natural key.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import orjson
from django.db import connection, models

# Column types that COPY's text format needs serialised by us.
_JSON_TYPES = (models.JSONField,)


def insert_rows(model: type[models.Model], columns: Sequence[str], rows: Iterable[tuple]) -> int:
    """Insert `rows` (tuples in the order of `columns`, attnames) into `model`'s table."""
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return 0
    rows = itertools.chain((first,), rows)
    fields = [model._meta.get_field(name) for name in columns]
    if connection.vendor != "postgresql":
        objects = [model(**dict(zip(columns, row, strict=True))) for row in rows]
        model.objects.bulk_create(objects, batch_size=500)
        return len(objects)
    json_positions = [i for i, field in enumerate(fields) if isinstance(field, _JSON_TYPES)]
    table = connection.ops.quote_name(model._meta.db_table)
    column_sql = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    count = 0
    with connection.cursor() as cursor:
        raw = cursor.cursor  # the psycopg cursor under Django's wrapper
        # Rows are produced while earlier ones are sent: PostgreSQL works on those meanwhile.
        with raw.copy(f"COPY {table} ({column_sql}) FROM STDIN") as copy:
            write_row = copy.write_row
            for row in rows:
                if json_positions:
                    row = list(row)
                    for i in json_positions:
                        row[i] = _json(row[i])
                write_row(row)
                count += 1
    return count


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()
