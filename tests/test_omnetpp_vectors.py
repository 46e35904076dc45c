"""OMNeT++ vectors as the store's tables and statistics' fields as summary fields
(docs/omnetpp.md, "Vectors and statistics"): the declaration's checks, the reading and binning
of result files written here and read by the real opp_scavetool, and a real `satsweep run` of a
copy of the dumbbell study (docs/examples/omnetpp-dumbbell/) whose tables land in the store,
are queried with `satsweep sql` and drawn by the report's traces."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import yaml

from satsweep.design import load_design
from satsweep.engine import USAGE_ERROR
from satsweep.engine.omnetpp import (
    OmnetppAdapter,
    COMMAND,
    Declaration,
    installation,
    read_scalars,
    read_vectors,
    summarize,
    table_rows,
)
from tests.support import REPO

EXAMPLE = REPO / "docs" / "examples" / "omnetpp-dumbbell"
SATSWEEP = Path(sys.prefix) / "bin" / "satsweep"
ADAPTER = Path(sys.prefix) / "bin" / COMMAND

#: The dumbbell's declaration with tables and statistic fields: the bottleneck queue of the
#: left router (ppp[2] with 2 flows) records its queue length and its queueing times both as a
#: vector and as a histogram (INET's PacketQueue), vectors that the ini turns off.
BOTTLENECK = "Dumbbell.left.ppp[2].queue"
EXTRA = f"""\
  - name: queueing_mean
    type: float
    unit: s
    statistic: "queueingTime:histogram"
    field: mean
    module: "{BOTTLENECK}"
  - name: queueing_count
    type: int
    statistic: "queueingTime:histogram"
    field: count
    module: "{BOTTLENECK}"
  - name: queueing_sum
    type: float
    statistic: "queueingTime:histogram"
    field: sum
    module: "{BOTTLENECK}"
tables:
  queue:
    vector: "queueLength:vector"
    module: "**.ppp[*].queue"
    bin: 1.0
    unit: packets
  queue_samples:
    vector: "queueLength:vector"
    module: "**.ppp[*].queue"
  waits:
    vector: ["queueingTime:vector"]
    module: "{BOTTLENECK}"
    unit: s
"""


def scavetool() -> Path:
    return installation()[0] / "bin" / "opp_scavetool"


def study_with(tmp_path: Path, extra: str) -> Path:
    """A copy of the dumbbell study whose declaration ends with ``extra``; its ini."""
    study = tmp_path / "study"
    shutil.copytree(EXAMPLE, study)
    declaration = study / "satsweep.yaml"
    declaration.write_text(declaration.read_text() + extra)
    return study / "omnetpp.ini"


def describe(ini: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(ADAPTER), f"--ini={ini}", "--config=Bulk", "--describe"],
        capture_output=True,
        text=True,
    )


# -- the declaration ----------------------------------------------------------------------


def test_describe_declares_the_tables(tmp_path: Path) -> None:
    proc = describe(study_with(tmp_path, EXTRA))
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    columns = {t: [(c["name"], c["type"], c.get("unit")) for c in cs]
               for t, cs in said["tables"].items()}  # fmt: skip
    assert columns["queue"] == [
        ("module", "string", None),
        ("vector", "string", None),
        ("time", "float", "s"),
        ("value", "float", "packets"),
    ]
    assert list(columns) == ["queue", "queue_samples", "waits"]
    assert "start of the bin" in said["tables"]["queue"][2]["help"]
    summary = {f["name"]: f for f in said["summary"]}
    assert summary["queueing_mean"] == {"name": "queueing_mean", "type": "float", "unit": "s",
                                        "help": ""}  # fmt: skip
    assert "statistic" not in json.dumps(said) and "vector-recording" not in json.dumps(said)


STAT = '  - {name: q, type: float, statistic: "rtt:stats"'
TABLE = '\ntables:\n  queue: {vector: "queueLength:vector"'


@pytest.mark.parametrize(
    ("extra", "where", "allowed"),
    [
        (TABLE + ", vectr: x}\n", "tables.queue.vectr", "Extra inputs are not permitted"),
        (TABLE + ", bin: 0}\n", "tables.queue.bin", "greater than 0"),
        (TABLE + ", bin: -1.5}\n", "tables.queue.bin", "greater than 0"),
        (TABLE + ", bin: .inf}\n", "tables.queue.bin", "finite number"),
        ("\ntables:\n  queue: {module: x}\n", "tables.queue.vector", "Field required"),
        ("\ntables:\n  queue: {vector: []}\n", "tables.queue", "one or more vector names"),
        ("\ntables:\n  runs: {vector: v}\n", "table 'runs'", "allowed:"),
        ("\ntables:\n  1queue: {vector: v}\n", "table '1queue'", "allowed:"),
        (
            STAT + ", field: median}\n",
            "summary.2",
            "field 'median' is not one of statistic 'rtt:stats'; allowed: count, sum, mean, "
            "stddev, min, max",
        ),
        (STAT + "}\n", "summary.2", "field missing of statistic 'rtt:stats'; allowed: count"),
        (
            STAT + ', field: mean, scalar: "x"}\n',
            "summary.2",
            "needs exactly one of scalar and statistic",
        ),
        (
            '  - {name: q, type: float, scalar: "x", field: mean}\n',
            "summary.2",
            "field is a statistic's",
        ),
        (
            '  - {name: q, type: float, scalar: "x", modules: "**"}\n',
            "summary.2.modules",
            "Extra inputs are not permitted",
        ),
    ],
)
def test_a_bad_declaration_exits_2_naming_the_field(
    tmp_path: Path, extra: str, where: str, allowed: str
) -> None:
    proc = describe(study_with(tmp_path, extra))
    assert proc.returncode == USAGE_ERROR, proc.stdout
    line = proc.stderr.strip()
    assert "\n" not in line and where in line and allowed in line, line
    assert proc.stdout == ""


# -- reading result files: written here, read by the real opp_scavetool ---------------------

RUN_HEADER = "version 3\nrun General-0-20260101-00:00:00-1\nattr configname General\n\n"


@pytest.mark.omnetpp
def test_vectors_are_read_by_name_and_binned(tmp_path: Path) -> None:
    """Bins of 0.1 s: 0.3 (on a boundary) is in the bin starting at 0.3, a bin without samples
    has no row, a bin's value is the mean of its samples, NaN is null; names with the filter's
    special characters match only themselves."""
    vec = tmp_path / "r.vec"
    vec.write_text(
        RUN_HEADER
        + "vector 0 Net.a.queue queueLength:vector ETV\n"
        + "vector 1 Net.b.queue queueLength:vector ETV\n"
        + "vector 2 Net.b.queue rcvd:vector(packetBytes) ETV\n"
        + "vector 3 Net.b.queue rcvd:vector(packetXBytes) ETV\n"
        + "vector 4 Net.b.queue other ETV\n"
        + 'vector 5 Net.b.queue "q*x {1}" ETV\nvector 6 Net.b.queue "qYx {1}" ETV\n'
        + "".join(f"0\t{i}\t{t}\t{x}\n" for i, (t, x) in enumerate(
            [(0, 1), (0.05, 2), (0.3, 4), (0.35, 8), (0.72, 3), (0.75, "nan")]))
        + "1\t9\t0.1\t7\n2\t10\t0.1\t9\n3\t11\t0.1\t10\n4\t12\t0.1\t11\n"
        + "5\t13\t0.1\t1\n6\t14\t0.1\t2\n"
    )  # fmt: skip
    names = ["queueLength:vector", "rcvd:vector(packetBytes)", "q*x {1}"]
    vectors = read_vectors(vec, scavetool(), names)
    assert sorted((m, n) for m, n, _, _ in vectors) == [
        ("Net.a.queue", "queueLength:vector"),
        ("Net.b.queue", "q*x {1}"),
        ("Net.b.queue", "queueLength:vector"),
        ("Net.b.queue", "rcvd:vector(packetBytes)"),
    ]
    declaration = Declaration.model_validate(
        yaml.safe_load((EXAMPLE / "satsweep.yaml").read_text())
        | {
            "tables": {
                "q": {"vector": "queueLength:vector", "module": "**.queue", "bin": 0.1},
                "raw": {
                    "vector": ["queueLength:vector", "rcvd:vector(packetBytes)"],
                    "module": "*.b.*",
                },
            }
        }  # fmt: skip
    )
    binned = table_rows("q", declaration.tables["q"], vectors)
    assert [(r["module"], r["time"], r["value"]) for r in binned] == [
        ("Net.a.queue", 0.0, 1.5),
        ("Net.a.queue", 0.3, 6.0),
        ("Net.a.queue", 0.7, None),  # 3 and NaN
        ("Net.b.queue", 0.1, 7.0),
    ]
    raw = table_rows("raw", declaration.tables["raw"], vectors)
    assert raw == [
        {"module": "Net.b.queue", "vector": "queueLength:vector", "time": 0.1, "value": 7.0},
        {"module": "Net.b.queue", "vector": "rcvd:vector(packetBytes)", "time": 0.1,
         "value": 9.0},
    ]  # fmt: skip
    nothing = declaration.tables["q"].model_copy(update={"module": "**.nowhere"})
    with pytest.raises(ValueError, match="vector 'queueLength:vector' of modules '\\*\\*.nowh"):
        table_rows("q", nothing, vectors)


@pytest.mark.omnetpp
def test_statistic_fields_are_read_as_opp_scavetool_gives_them(tmp_path: Path) -> None:
    sca = tmp_path / "r.sca"
    sca.write_text(
        RUN_HEADER
        + "statistic Net.a rtt:stats\nfield count 3\nfield mean 0.2\nfield stddev 0.1\n"
        + "field min 0.1\nfield max 0.3\nfield sum 0.6\nfield sqrsum 0.14\n"
        + "statistic Net.b rtt:stats\nfield count 0\nfield mean nan\nfield stddev nan\n"
        + "field min nan\nfield max nan\nfield sum 0\nfield sqrsum 0\n"
        + "scalar Net.a x 0.12345678901234567\n"
    )
    scalars = read_scalars(sca, scavetool())
    queried = subprocess.run(
        [str(scavetool()), "export", "-T", "t", "-F", "JSON", "-x", "precision=17", "-o", "-",
         str(sca)], capture_output=True, text=True, check=True,
    )  # fmt: skip
    [run] = json.loads(queried.stdout).values()
    fields = {s["module"]: s for s in run["statistics"]}
    declaration = Declaration.model_validate(
        {
            "name": "s",
            "version": "1",
            "parameters": [],
            "summary": [
                {
                    "name": f"a_{f}",
                    "type": "float",
                    "statistic": "rtt:stats",
                    "field": f,
                    "module": "Net.a",
                }
                for f in ("count", "sum", "mean", "stddev", "min", "max")
            ]
            + [
                {
                    "name": "b_sum",
                    "type": "float",
                    "statistic": "rtt:stats",
                    "field": "sum",
                    "module": "Net.b",
                },
                {"name": "x", "type": "float", "scalar": "x"},
            ],
        }  # fmt: skip
    )
    summary = summarize(declaration, scalars)
    for f in ("count", "mean", "stddev", "min", "max"):
        assert summary[f"a_{f}"] == float(fields["Net.a"][f]), f
    assert summary["a_sum"] == pytest.approx(0.6, rel=1e-15)
    assert summary["b_sum"] == 0.0
    assert summary["x"] == 0.12345678901234566  # 17 digits, not the exporter's 14


# -- a real run of the dumbbell study -------------------------------------------------------


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two configurations (queue 10 and 100 packets), one run each, through `satsweep run`,
    then `satsweep report` with a trace of the binned queue table."""
    scavetool()
    tmp_path = tmp_path_factory.mktemp("vectors")
    ini = study_with(tmp_path, EXTRA)
    design = tmp_path / "dumbbell.yaml"
    design.write_text(
        f"study: dumbbell\nprogram: omnetpp\nini: {ini}\nconfig: Bulk\n"
        "factors: {queuePackets: [10, 100]}\nfixed: {flows: 2}\nreplications: 1\n"
        "analysis:\n  responses: [queueing_mean]\n  traces:\n"
        "    - {table: queue, x: time, y: [value], series: module, title: queue length}\n"
    )
    load_design(design)  # a trace of a table of the adapter's is a valid design
    results = tmp_path / "results"
    for command in ("run", "report"):
        proc = subprocess.run(
            [str(SATSWEEP), command, str(design) if command == "run" else "dumbbell",
             "--results", str(results), *(["--cores", "2"] if command == "run" else [])],
            capture_output=True, text=True, cwd=tmp_path, timeout=600,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
    return results / "dumbbell"


def sql(store: Path, query: str) -> list[tuple]:
    """``satsweep sql`` over the store: its rows, as CSV."""
    proc = subprocess.run(
        [str(SATSWEEP), "sql", "--study", "dumbbell", "--results", str(store.parent), "--csv",
         query], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return [tuple(line.split(",")) for line in proc.stdout.strip().splitlines()[1:]]


@pytest.mark.omnetpp
def test_vectors_land_in_the_store_binned_as_declared(store: Path) -> None:
    for table in ("queue", "queue_samples", "waits"):
        assert (store / f"{table}.parquet").is_file()
    # the ini turns vectors off: the declared ones are recorded all the same
    [(samples,)] = duckdb.sql(
        f"SELECT count(*) FROM '{store / 'queue_samples.parquet'}'"
    ).fetchall()
    assert samples > 1000
    # each bin: the mean of the raw samples of [t, t + 1), at t, per run and module
    raw = duckdb.sql(
        f"SELECT config_id, module, floor(time) AS t, avg(value) FROM "
        f"'{store / 'queue_samples.parquet'}' GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    binned = duckdb.sql(
        f"SELECT config_id, module, time, value FROM '{store / 'queue.parquet'}' ORDER BY ALL"
    ).fetchall()
    assert [r[:3] for r in raw] == [r[:3] for r in binned]
    assert all(math.isclose(a[3], b[3], rel_tol=1e-12) for a, b in zip(raw, binned, strict=True))
    assert {r[1] for r in binned} >= {BOTTLENECK}
    assert all(0 <= r[2] < 10 for r in binned)  # a 10 s run
    # through satsweep sql's view: the bottleneck's queue is longer with room for 100
    longest = dict(sql(store, "SELECT queuePackets, max(q.value) FROM queue q JOIN runs "
                              f"USING (config_id, replication) WHERE module = '{BOTTLENECK}' "
                              "GROUP BY ALL"))  # fmt: skip
    assert float(longest["10"]) <= 10 < float(longest["100"]) <= 100


@pytest.mark.omnetpp
def test_a_statistic_s_fields_agree_with_its_vector(store: Path) -> None:
    """INET's queue records its queueing times both as a histogram and as a vector: the
    histogram's count, mean and sum (summary fields) are the vector's (a table)."""
    rows = duckdb.sql(
        f"SELECT r.queueing_count, r.queueing_mean, r.queueing_sum, count(w.value), "
        f"avg(w.value), sum(w.value) FROM '{store / 'runs.parquet'}' r JOIN "
        f"'{store / 'waits.parquet'}' w USING (config_id, replication) GROUP BY ALL"
    ).fetchall()
    assert len(rows) == 2
    for count, mean, total, samples, average, added in rows:
        assert count == samples > 100
        assert mean == pytest.approx(average, rel=1e-12) and mean > 0
        assert total == pytest.approx(added, rel=1e-12)


@pytest.mark.omnetpp
def test_the_report_draws_the_trace_of_a_vector_table(store: Path) -> None:
    markdown = (store / "report" / "report.md").read_text()
    assert "![queue length](trace-1-queue.png)" in markdown
    figure = store / "report" / "trace-1-queue.png"
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and figure.stat().st_size > 5000


@pytest.mark.omnetpp
def test_a_bad_table_vector_fails_the_run_naming_it(tmp_path: Path) -> None:
    ini = study_with(tmp_path, '\ntables:\n  nope: {vector: "noSuch:vector"}\n')
    program = OmnetppAdapter.study(ini, "Bulk")
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [str(program.path), *program.args, "--run=1", f"--out={out}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode not in (0, USAGE_ERROR)
    assert "table 'nope': vector 'noSuch:vector' of modules '**' was not recorded" in proc.stderr
    assert not out.exists()
