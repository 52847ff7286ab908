"""Fast inserts of many rows: COPY on PostgreSQL, bulk_create elsewhere (the SQLite demo).

Imports of thousands of placement rows spend most of their time creating model instances and
compiling INSERT statements; COPY streams plain tuples instead. COPY returns no ids: callers
that need them use insert_rows_with_ids, which takes them from the table's sequence first.
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


def insert_rows_with_ids(
    model: type[models.Model], columns: Sequence[str], rows: Iterable[tuple], *, count: int
) -> list[int]:
    """Insert the `count` `rows` like insert_rows; return their new primary keys in row order.

    On PostgreSQL the keys are drawn from the table's identity sequence in one query and written
    with the rows, so nothing is read back; elsewhere bulk_create returns them.
    """
    if not count:
        return []
    if connection.vendor != "postgresql":
        objects = [model(**dict(zip(columns, row, strict=True))) for row in rows]
        model.objects.bulk_create(objects, batch_size=500)
        return [obj.pk for obj in objects]
    pk = model._meta.pk
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(s.seq) FROM (SELECT pg_get_serial_sequence(%s, %s)::regclass AS seq) s,"
            " generate_series(1, %s)",
            [connection.ops.quote_name(model._meta.db_table), pk.column, count],
        )
        # Ascending, as the column default would have handed them out row after row.
        ids = sorted(value for (value,) in cursor.fetchall())
    insert_rows(
        model, (pk.attname, *columns), ((i, *row) for i, row in zip(ids, rows, strict=True))
    )
    return ids
