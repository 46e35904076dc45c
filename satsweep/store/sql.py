"""SQL over stores: DuckDB views of their compacted tables, confined to the stores' folders,
and the check that a query only reads."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from satsweep.store.layout import Layout, StoreError, readable

if TYPE_CHECKING:
    import duckdb

#: What a query over a store may be, as DuckDB's StatementType names it: it reads (SELECT,
#: WITH, DESCRIBE, SHOW, SUMMARIZE, FROM ..., PRAGMA functions), or it explains a statement
#: that reads (EXPLAIN ANALYZE runs what it explains); anything else could change a store or
#: the files around it.
READ_ONLY = frozenset({"SELECT"})


def t_quantile(p: float | None, df: float | None) -> float | None:
    """Student's t quantile: the x with P(T <= x) = p for T with ``df`` degrees of freedom,
    e.g. ``t_quantile(0.95, 4)`` = 2.1318 for a 90% interval (:func:`add_functions`); None
    (NULL) for a NULL, outside 0 < p < 1 or for df <= 0 (one run: no interval)."""
    from scipy.stats import t  # imported at the first call: scipy is slow to import

    if p is None or df is None or not (0 < p < 1 and df > 0):
        return None
    return float(t.ppf(p, df))


def add_functions(con: duckdb.DuckDBPyConnection) -> None:
    """The SQL functions satsweep adds to DuckDB's, on every connection it queries through
    (`satsweep sql`, the analysis): ``t_quantile(p, df)``, Student's t quantile, which DuckDB
    lacks, so a confidence interval of a mean needs no printed table. Before a connection's
    configuration is locked."""
    from duckdb import sqltypes

    con.create_function(
        "t_quantile",
        t_quantile,
        [sqltypes.DOUBLE, sqltypes.DOUBLE],
        sqltypes.DOUBLE,
        null_handling="special",  # NULL, not an error, for an interval that has none
        side_effects=False,
    )


class Views(Layout):
    """A store's compacted tables as DuckDB sees them: readable, no link leading out."""

    def unreadable(self) -> str | None:
        """None when every compacted table reads as Parquet, else what is wrong."""
        return readable([self.table(name) for name in self.tables()])

    def link_out(self) -> str | None:
        """None when every symbolic link in the store leads to a place inside it, else the
        first that does not (or loops), as ``link -> target``: a query may read every file of
        the store, and DuckDB follows links."""
        root = self.root.resolve()
        folders = [root]
        while folders:
            try:
                entries = list(os.scandir(folders.pop()))
            except (FileNotFoundError, NotADirectoryError):  # gone meanwhile (a run moved it)
                continue
            for entry in entries:
                if entry.is_symlink():
                    target, inside = "?", False
                    try:
                        target = os.readlink(entry.path)
                        inside = Path(entry.path).resolve().is_relative_to(root)
                    except (OSError, RuntimeError):  # a loop (or gone meanwhile)
                        pass
                    if not inside:
                        return f"{entry.path} -> {target}"
                elif entry.is_dir(follow_symlinks=False):
                    folders.append(Path(entry.path))
        return None

    def connect(self) -> duckdb.DuckDBPyConnection:
        """An in-memory DuckDB database with one view per compacted table (``runs``, ...)."""
        return connect([self])


def check_read_only(query: str) -> None:
    """Refuses (StoreError) a query with a statement that does not only read, as DuckDB's own
    parser types them; the message names the statement."""
    import duckdb

    try:
        statements = duckdb.extract_statements(query)
    except duckdb.Error as e:
        raise StoreError(str(e).strip()) from None
    for statement in statements:
        kind: duckdb.StatementType | None = statement.type
        name = statement.type.name.replace("_", " ")
        if kind == duckdb.StatementType.EXPLAIN:
            kind = _explained(statement.query)
            name = "EXPLAIN of a " + (kind.name.replace("_", " ") if kind else "hidden")
        if kind is None or kind.name not in READ_ONLY:
            raise StoreError(
                f"{name} statement refused: {statement.query.strip()[:60]!r}; allowed: queries "
                "that read (SELECT, WITH, FROM, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN [ANALYZE] of "
                "one of them); to export a result use --out FILE.csv or FILE.parquet"
            )


def _explained(text: str) -> duckdb.StatementType | None:
    """The type of the statement that the EXPLAIN statement ``text`` explains, which EXPLAIN
    ANALYZE runs; None when it cannot be told. DuckDB's parser types what follows EXPLAIN at
    each place its statement may start (EXPLAIN [ANALYZE] [VERBOSE] or EXPLAIN (options): up to
    the options' closing parenthesis): any that is not a read is the answer, so that a
    misjudged start can only refuse a read, never let a write through."""
    import duckdb

    tokens = [position for position, _ in duckdb.tokenize(text)]
    starts = tokens[1:4]
    if len(tokens) > 1 and text[tokens[1]] == "(":
        close = next((i for i in range(2, len(tokens)) if text[tokens[i]] == ")"), len(tokens))
        starts = tokens[1 : close + 2]
    found = None
    for position in starts:
        try:
            statements = duckdb.extract_statements(text[position:])
        except duckdb.Error:
            continue
        for statement in statements:
            if statement.type.name not in READ_ONLY:
                return statement.type
            found = statement.type
    return found


def connect(
    stores: list[Views], references: dict[str, Path] | None = None, memory: str | None = None
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB database with one view per table name over ``stores`` (unioned by
    column name when there are several), confined by DuckDB itself: files only inside the
    stores' resolved folders (``allowed_directories``; a store with a link leading out of it
    is refused, :meth:`Store.link_out`), no other file, network or extension install
    (``enable_external_access`` off), no spilling to a temporary folder (DuckDB's default
    ``.tmp`` in the current directory would be allowed too), and no setting can be changed
    back (``lock_configuration``). Queries go through :func:`check_read_only` first: the
    confinement keeps a query inside the stores, the check keeps it from writing there.

    ``references``: name -> a CSV or Parquet file outside the stores (e.g. a paper's table to
    compare with), read into an in-memory table of that name before the confinement starts.
    ``memory``: DuckDB's ``memory_limit`` (e.g. ``2GB``; None: DuckDB's default), a hard cap
    since nothing spills.
    """
    import duckdb

    for store in stores:
        link = store.link_out()
        if link:
            raise StoreError(
                f"study '{store.study}': the link {link} leads out of its store; allowed: links "
                "inside the store only (remove it)"
            )
    config = {"autoinstall_known_extensions": False, "temp_directory": ""}
    con = duckdb.connect(config={**config, **({"memory_limit": memory} if memory else {})})
    add_functions(con)
    names = dict.fromkeys(name for store in stores for name in store.tables())
    for name, path in (references or {}).items():
        if name in names:
            raise StoreError(f"--table {name}: the store has a table of that name")
        if path.suffix.lower() not in (".csv", ".parquet"):
            raise StoreError(f"--table {name}={path}: allowed: a .csv or .parquet file")
        reader = "read_csv" if path.suffix.lower() == ".csv" else "read_parquet"
        quoted = '"' + name.replace('"', '""') + '"'
        try:
            con.execute(f"CREATE TABLE {quoted} AS SELECT * FROM {reader}(?)", [str(path)])
        except duckdb.IOException as e:
            raise StoreError(f"--table {name}={path}: cannot read it ({e})") from None
    for name in names:
        files = [str(s.table(name).resolve()) for s in stores if s.table(name).is_file()]
        listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
        quoted = '"' + name.replace('"', '""') + '"'
        con.execute(
            f"CREATE VIEW {quoted} AS SELECT * FROM read_parquet([{listed}], union_by_name = true)"
        )
    roots = [str(s.root.resolve()) + "/" for s in stores]
    allowed = ", ".join("'" + root.replace("'", "''") + "'" for root in roots)
    con.execute(f"SET allowed_directories = [{allowed}]")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con
