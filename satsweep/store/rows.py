"""A run's rows in the store, typed by the program's ``--describe``.

The run table (``runs``) has one row per run: the key columns, the design's parameters (its
factors, then its fixed parameters), the rest of the program's effective parameters, its
summary and the run's provenance. Each table the program declares (``connections``, ...) gets
the key columns and the declared columns. JSON does not tell 0 from 0.0; the declared types do.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pyarrow as pa

from satsweep.design import Design, Run
from satsweep.engine import KEY_COLUMNS, PROVENANCE_COLUMNS, TABLE_KEY_COLUMNS, value_text

__all__ = [
    "KEY_COLUMNS",
    "PROVENANCE_COLUMNS",
    "rows_table",
    "run_schema",
    "run_values",
    "table_rows",
    "table_schema",
]

_ARROW = {
    "bool": pa.bool_(),
    "int": pa.int64(),
    "float": pa.float64(),
    "string": pa.string(),
    "timestamp": pa.timestamp("us"),  # the store's own started_at
}
_KEY_TYPES = {name: _ARROW[kind] for name, kind in KEY_COLUMNS.items()}


def run_schema(design: Design) -> pa.Schema:
    """The run table's columns, in order (see the module's docstring)."""
    if _last_schema[0] is not design:  # a worker asks again for every run of one design
        _last_schema[:] = [design, _run_schema(design)]
    return _last_schema[1]


_last_schema: list[Any] = [None, None]


def _run_schema(design: Design) -> pa.Schema:
    describe = design.describe
    own = set(design.parameters())
    fields = dict(_KEY_TYPES)
    for name in [*design.parameters(), *(p.name for p in describe.parameters if p.name not in own)]:
        fields[name] = _ARROW[describe.parameter(name).type]  # type: ignore[union-attr]
    for field in describe.summary:
        fields.setdefault(field.name, _ARROW[field.type])
    for name, kind in PROVENANCE_COLUMNS.items():
        fields.setdefault(name, _ARROW[kind])
    return pa.schema(fields)


def table_schema(design: Design, table: str) -> pa.Schema:
    """The columns of one of the program's tables: study, config_id, replication, its own."""
    fields = {name: _KEY_TYPES[name] for name in TABLE_KEY_COLUMNS}
    for column in design.describe.tables[table]:
        fields.setdefault(column.name, _ARROW[column.type])
    return pa.schema(fields)


def _typed(value: Any, kind: pa.DataType) -> Any:
    if value is None:
        return None
    if pa.types.is_floating(kind):
        return float(value)
    if pa.types.is_string(kind) and not isinstance(value, str):
        return value_text(value)
    return value


def run_values(
    design: Design, run: Run, result: dict, provenance: dict[str, Any]
) -> dict[str, Any]:
    """The run's row as its record keeps it: each column of the run table in order, its value
    typed by the column, a timestamp as ISO text (JSON has none).

    ``result`` has been checked against the program's description (Program.run);
    ``provenance`` has the PROVENANCE_COLUMNS, no more and no less.
    """
    if set(provenance) != set(PROVENANCE_COLUMNS):  # else a column would be NULL or dropped
        raise ValueError(
            f"the provenance has {sorted(provenance)}, the store {sorted(PROVENANCE_COLUMNS)}"
        )
    values: dict[str, Any] = {name: getattr(run, name) for name in KEY_COLUMNS}
    values.update(run.params)  # the design's values, typed by the parameter
    for name, value in result["params"].items():  # the program's effective parameters
        values.setdefault(name, value)
    values.update(result["summary"])
    values.update(provenance)
    row = {}
    for f in run_schema(design):
        value = _typed(values.get(f.name), f.type)
        row[f.name] = value.isoformat() if isinstance(value, dt.datetime) else value
    return row


def rows_table(design: Design, rows: list[dict[str, Any]]) -> pa.Table:
    """The run table of these rows (:func:`run_values`), typed by the design's run schema;
    pyarrow's error for a value its column cannot take."""
    schema = run_schema(design)
    stamps = [f.name for f in schema if pa.types.is_timestamp(f.type)]
    if stamps:
        rows = [{**r, **{n: _timestamp(r.get(n)) for n in stamps}} for r in rows]
    # from_pylist: one conversion for every row (a pa.array per column costs 4x as much)
    return pa.Table.from_pylist(rows, schema=schema)


def _timestamp(value: Any) -> Any:
    return dt.datetime.fromisoformat(value) if isinstance(value, str) else value


def table_rows(design: Design, run: Run, result: dict) -> dict[str, pa.Table]:
    """The run's rows of each of the program's tables."""
    tables = {}
    for table in design.describe.tables:
        columns = table_schema(design, table)
        keys = {name: getattr(run, name) for name in TABLE_KEY_COLUMNS}
        tables[table] = pa.Table.from_pylist(
            [
                {f.name: _typed(keys.get(f.name, r.get(f.name)), f.type) for f in columns}
                for r in result.get(table, [])
            ],
            schema=columns,
        )
    return tables
