"""Sweep designs: validation messages, expansion, config_id, seeds, and the run row's typing.

No simulation runs here (see test_sweep_workflow.py for the real ones).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest

from satsweep import cli
from satsweep.design import (
    MAX_REPLICATIONS,
    MAX_RNG,
    MAX_RUNS,
    DesignError,
    config_id,
    load_design,
    rng_run,
)
from satsweep.engine import value_text
from satsweep.store import PROVENANCE_COLUMNS
from satsweep.store.rows import rows_table, run_values, table_rows
from tests.support import REPO

GOOD = """\
study: demo
description: a demo
program: satnet
factors:
  flavor: [reno, sack]
  bufferRtt: [0.5, 1, 2]
fixed:
  clients: 2
  simTime: 2
replications: 2
base_seed: 7
"""


def write(tmp_path: Path, text: str, name: str = "sweep.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.programs
def test_expansion_is_the_full_factorial_times_r(tmp_path):
    design = load_design(write(tmp_path, GOOD))
    runs = list(design.runs())
    assert len(design.configurations) == 6 and len(runs) == design.n_runs == 12
    assert [c.params["flavor"] for c in design.configurations] == ["reno"] * 3 + ["sack"] * 3
    assert {(r.config_id, r.replication) for r in runs} == {
        (c.config_id, k) for c in design.configurations for k in (1, 2)
    }
    assert all(r.params["clients"] == 2 and r.seed == 7 for r in runs)
    assert len({c.config_id for c in design.configurations}) == 6


def test_config_id_ignores_key_order_and_spelling_of_the_same_flag():
    a = config_id({"flavor": "reno", "bufferRtt": 1, "clients": 5})
    assert a == config_id({"clients": "5", "bufferRtt": 1.0, "flavor": "reno"})
    assert a != config_id({"flavor": "reno", "bufferRtt": 2, "clients": 5})
    canonical = json.dumps({"bufferRtt": "1", "clients": "5", "flavor": "reno"}, sort_keys=True)
    assert a == hashlib.sha256(canonical.replace(" ", "").encode()).hexdigest()[:12]


@pytest.mark.programs
def test_config_ids_do_not_depend_on_order_of_keys_in_the_file(tmp_path):
    reordered = """\
    base_seed: 7
    program: satnet
    replications: 2
    fixed: {simTime: 2, clients: 2}
    factors:
      bufferRtt: [0.5, 1, 2]
      flavor: [reno, sack]
    study: demo
    """
    one = load_design(write(tmp_path, GOOD, "a.yaml"))
    two = load_design(write(tmp_path, reordered, "b.yaml"))
    assert {c.config_id for c in one.configurations} == {c.config_id for c in two.configurations}


@pytest.mark.programs
def test_seeds_are_documented_stable_when_r_grows_and_distinct(tmp_path):
    r1 = load_design(write(tmp_path, GOOD.replace("replications: 2", "replications: 1"), "a.yaml"))
    r3 = load_design(write(tmp_path, GOOD.replace("replications: 2", "replications: 3"), "b.yaml"))
    old = {(r.config_id, r.replication): r.run for r in r1.runs()}
    new = {(r.config_id, r.replication): r.run for r in r3.runs()}
    assert all(new[key] == run for key, run in old.items())
    assert len(set(new.values())) == len(new) == 18
    assert all(1 <= run < 2**63 for run in new.values())  # ns-3's RngRun, the store's int64
    cid = r1.configurations[0].config_id
    # streams 2: the replication in the low 15 bits under a keyed permutation of the config_id
    assert {rng_run(7, cid, k) >> 15 for k in (1, 2, MAX_REPLICATIONS)} == {
        rng_run(7, cid, 1) >> 15
    }
    assert [rng_run(7, cid, k) & 0x7FFF for k in (1, 2, MAX_REPLICATIONS)] == [1, 2, 2**15 - 1]
    assert rng_run(8, cid, 1) != rng_run(7, cid, 1)
    # streams 1, the first scheme, as documented
    digest = hashlib.sha256(f"satsweep:7:{cid}:1".encode()).digest()
    assert rng_run(7, cid, 1, streams=1) == 1 + int.from_bytes(digest[:8], "big") % (2**32 - 1)
    v1 = load_design(write(tmp_path, GOOD + "streams: 1\n", "c.yaml"))
    assert all(1 <= r.run <= MAX_RNG for r in v1.runs())
    assert [r.run for r in v1.runs()] == [
        rng_run(7, r.config_id, r.replication, streams=1) for r in v1.runs()
    ]


@pytest.mark.slow
def test_streams_2_never_collide_where_streams_1_did():
    """10^6 runs: with 32-bit hashes (streams 1) some two runs share a stream for every
    base_seed; streams 2 maps distinct (configuration, replication) to distinct numbers (a
    permutation of the config_id, so distinct ids stay distinct, and k in its own bits)."""
    cids = [hashlib.sha256(str(i).encode()).hexdigest()[:12] for i in range(1000)]
    for seed in (1, 12345):
        v1 = {rng_run(seed, cid, k, streams=1) for cid in cids for k in range(1, 1001)}
        assert len(v1) < 10**6
        high = {rng_run(seed, cid, 1) >> 15 for cid in cids}
        assert len(high) == len(cids)  # with k's own 15 bits: 10^6 distinct runs
    # the permutation is a bijection of 48 bits: every value of a small block maps apart
    block = [f"{i:012x}" for i in range(2**16)]
    assert len({rng_run(1, cid, 1) for cid in block}) == 2**16
    assert max(rng_run(1, cid, MAX_REPLICATIONS) for cid in block) < 2**63


@pytest.mark.programs
def test_a_huge_design_is_refused_with_its_size_before_it_is_expanded(tmp_path):
    # 10^4 levels x 10^4 replications = 10^8 runs: refused at once, nothing expanded
    levels = ", ".join(str(1 + i) for i in range(10_000))
    text = GOOD.replace("flavor: [reno, sack]\n  bufferRtt: [0.5, 1, 2]", f"clients: [{levels}]")
    text = text.replace("  clients: 2\n", "")
    path = write(tmp_path, text.replace("replications: 2", "replications: 10000"), "big.yaml")
    with pytest.raises(DesignError) as e:
        load_design(path)
    assert str(e.value) == (
        f"{path}: 10000 configurations x 10000 replications = 100000000 runs is more than "
        f"{MAX_RUNS}; allowed: a smaller design, or --max-runs 100000000 to take it (time and "
        "memory grow with it)"
    )
    design = load_design(path, max_runs=10**8)
    assert design.n_runs == 10**8 and "configurations" not in design.__dict__  # not expanded
    with pytest.raises(
        DesignError,
        match=r"replications: 100000 is not allowed; allowed: an "
        r"integer from 1 to 32767",
    ):
        load_design(write(tmp_path, GOOD.replace("replications: 2", "replications: 100000")))


@pytest.mark.programs
@pytest.mark.omnetpp
def test_shipped_sweeps_are_valid():
    designs = {p.stem: load_design(p) for p in (REPO / "sweeps").glob("*.yaml")}
    assert {"smoke", "goyal98-quick", "goyal98-quick-ns3", "goyal98"} <= set(designs)
    assert designs["smoke"].n_runs <= 10
    quick, quick_ns3, full = (designs[n] for n in ("goyal98-quick", "goyal98-quick-ns3", "goyal98"))
    # the main job runs on the card's engine, the same design as satnet's quick one
    assert (quick.program, quick_ns3.program, full.program) == ("omnetpp", "satnet", "satnet")
    assert (quick.factors, quick.fixed) == (quick_ns3.factors, quick_ns3.fixed)
    for design in (quick, full):
        assert design.factors == {
            "link": ["wan", "meo", "geo"],
            "flavor": ["vanilla", "reno", "newreno", "sack"],
            "drop": ["epd", "sd"],
            "bufferRtt": [0.5, 1, 2],
        }
    assert quick.replications == 2 and quick.fixed["simTime"] < 100
    assert len(full.configurations) == 72 and full.replications == 5
    assert full.fixed == {"clients": 100, "simTime": 100}


BAD = [
    # (what, text to write, field named, words of what is allowed)
    (
        "unknown factor",
        GOOD.replace("flavor: [reno, sack]", "flavour: [reno, sack]"),
        "factors.flavour",
        "unknown parameter 'flavour' of satnet; allowed: accessDelay",
    ),
    (
        "level not among the choices",
        GOOD.replace("[reno, sack]", "[reno, cubic]"),
        "factors.flavor",
        "'cubic' is not allowed; allowed: vanilla, reno, newreno, sack",
    ),
    (
        "level of the wrong type",
        GOOD.replace("clients: 2", "clients: two"),
        "fixed.clients",
        "'two' is not allowed; allowed: an integer >= 1",
    ),
    (
        "level out of range",
        GOOD.replace("simTime: 2", "simTime: 0"),
        "fixed.simTime",
        "0 is not allowed; allowed: a number >= 1e-09 and <= 2000000",
    ),
    (
        "level past satnet's upper bound (memory)",
        GOOD.replace("clients: 2", "clients: 10000000"),
        "fixed.clients",
        "10000000 is not allowed; allowed: an integer >= 1 and <= 10000",
    ),
    (
        "level past ns-3's time range",
        GOOD.replace("simTime: 2", "simTime: 1.0e+12"),
        "fixed.simTime",
        "1000000000000.0 is not allowed; allowed: a number >= 1e-09 and <= 2000000",
    ),
    (
        "no program",
        GOOD.replace("program: satnet\n", ""),
        "program",
        "missing; allowed: a program built by this project",
    ),
    (
        "unknown program",
        GOOD.replace("program: satnet", "program: satnett"),
        "program",
        "'satnett' is not a program built by this project",
    ),
    (
        "program path that does not exist",
        GOOD.replace("program: satnet", "program: ./bin/sim"),
        "program",
        "'./bin/sim': no such file",
    ),
    (
        "response that is not a summary field",
        GOOD + "analysis: {responses: [efficiency, speed]}\n",
        "analysis.responses",
        "'speed' is not a numeric summary field of satnet; allowed: efficiency",
    ),
    (
        "analysis by a parameter that is not a factor",
        GOOD + "analysis: {by: link}\n",
        "analysis.by",
        "'link' is not a factor of the design; allowed: flavor, bufferRtt",
    ),
    (
        "empty level list",
        GOOD.replace("flavor: [reno, sack]", "flavor: []"),
        "factors.flavor",
        "empty level list; allowed: one or more levels",
    ),
    (
        "r < 1",
        GOOD.replace("replications: 2", "replications: 0"),
        "replications",
        "allowed: an integer from 1 to 32767",
    ),
    (
        "unknown fixed parameter",
        GOOD.replace("clients: 2", "clients: 2\n  simtime: 3"),
        "fixed.simtime",
        "unknown parameter 'simtime' of satnet; allowed:",
    ),
    (
        "duplicate levels",
        GOOD.replace("[0.5, 1, 2]", "[0.5, 1, 1.0]"),
        "factors.bufferRtt",
        "duplicate level 1.0",
    ),
    (
        "reserved parameter",
        GOOD.replace("clients: 2", "clients: 2\n  run: 3"),
        "fixed.run",
        "reserved: satsweep derives each run's --run",
    ),
    (
        "flag both factor and fixed",
        GOOD.replace("clients: 2", "clients: 2\n  flavor: sack"),
        "fixed.flavor",
        "also a factor",
    ),
    ("unknown field", GOOD + "replicas: 3\n", "replicas", "unknown field; allowed: study"),
    ("missing study", GOOD.replace("study: demo\n", ""), "study", "missing; allowed: a name"),
    ("bad study name", GOOD.replace("demo", "a/b"), "study", "allowed: a name of letters"),
    ("level not a scalar", GOOD.replace("[reno, sack]", "[reno, [sack]]"), "factors.flavor.1", ""),
    ("not YAML", "study: [unclosed\n", "not valid YAML", ""),
    ("not a mapping", "- a\n- b\n", "(top level)", "allowed: a mapping"),
]


@pytest.mark.programs
@pytest.mark.parametrize(("what", "text", "field", "allowed"), BAD, ids=[b[0] for b in BAD])
def test_malformed_file_names_file_field_and_what_is_allowed(tmp_path, what, text, field, allowed):
    path = write(tmp_path, text)
    with pytest.raises(DesignError) as error:
        load_design(path)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and field in message and allowed in message, message


@pytest.mark.programs
@pytest.mark.parametrize("command", ["run", "plan", "status"])
def test_cli_refuses_a_malformed_file_before_anything_runs(tmp_path, capsys, command):
    path = write(tmp_path, GOOD.replace("flavor: [reno, sack]", "flavor: []"))
    results = tmp_path / "results"
    assert cli.main([command, str(path), "--results", str(results)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: factors.flavor: empty level list" in err
    assert not results.exists()


def test_missing_sweep_file_is_reported(tmp_path, capsys):
    assert cli.main(["plan", str(tmp_path / "nope.yaml")]) == 2
    assert "nope.yaml: cannot read the sweep file" in capsys.readouterr().err


@pytest.mark.programs
def test_plan_shows_the_run_table(tmp_path, capsys):
    path = write(tmp_path, GOOD)
    assert cli.main(["plan", str(path), "--results", str(tmp_path / "r"), "--cores", "2"]) == 0
    out = capsys.readouterr().out
    assert "6 configurations x 2 replications = 12 runs; 0 done, 12 to run" in out
    for c in load_design(path).configurations:
        assert c.config_id in out
    # before any run, from satnet's cost hint
    assert re.search(
        r"estimated cost: \d+:\d\d:\d\d on 2 cores \(the program's cost hint; no", out
    ), out


def contract_result(clients: int = 2) -> dict:
    """A satnet JSON result written by hand after its --describe."""
    summary = {
        "efficiency": 0, "fairness": 1, "capacity_bps": 37799835.93, "goodput_bps": 0,
        "offered_bps": 1200.5, "frames_dropped_epd": 0, "cells_dropped_epd": 0,
        "frames_lost_reassembly": 0, "retransmissions": 3, "timeouts": 1, "fast_retransmits": 0,
        "events": 1234, "wall_seconds": 0.01, "peak_rss_mb": 20,
        # every declared field is there (the contract): null where the run has no value
        "frames_dropped_sd": None, "cells_dropped_sd": None, "frames_dropped_full": None,
        "cells_dropped_full": None, "frames_dropped_partial": None,
        "cells_dropped_partial": None, "frames_dropped_tail": None, "cells_dropped_tail": None,
        "idle_restarts": None, "connections_opened": None, "sender_resets": None,
    }  # fmt: skip
    return {
        "params": {"link": "wan", "flavor": "reno", "bufferRtt": 1, "bufferCells": 1062,
                   "clients": clients, "simTime": 2, "delay": 0.005},
        "summary": summary,
        "connections": [
            {"id": i, "vc": i + 1, "throughput_bps": 0, "scheduled_bps": 10.5,
             "fair_share_bps": 10.5, "bytes_received": 0, "first_drop_s": None if i else 1,
             "cwnd_at_first_drop_segments": None if i else 3}
            for i in range(clients)
        ],
    }  # fmt: skip


@pytest.mark.programs
def test_run_row_is_typed_by_the_description_and_carries_provenance(tmp_path):
    design = load_design(write(tmp_path, GOOD))
    run = next(design.runs())
    result = contract_result()
    assert design.executable.check_result(result) is None
    started = dt.datetime(2025, 1, 2, 3, 4, 5)
    provenance = {name: f"<{name}>" for name in PROVENANCE_COLUMNS}
    provenance.update(git_dirty=True, started_at=started, elapsed_seconds=1.5)
    # the row as the run's record keeps it (JSON), then typed as the compaction types it
    kept = json.loads(json.dumps(run_values(design, run, result, provenance)))
    row, tables = rows_table(design, [kept]), table_rows(design, run, result)
    connections = tables["connections"]
    assert row.num_rows == 1 and connections.num_rows == 2
    schema = row.schema
    for name in ("efficiency", "fairness", "goodput_bps", "bufferRtt", "simTime", "delay"):
        assert schema.field(name).type == pa.float64(), name
    for name in ("replication", "seed", "run", "clients", "events", "retransmissions"):
        assert schema.field(name).type == pa.int64(), name
    values = row.to_pylist()[0]
    assert values["study"] == "demo" and values["config_id"] == run.config_id
    assert values["flavor"] == "reno" and values["bufferRtt"] == 0.5  # the design's level
    assert values["bufferCells"] == 1062  # satnet's effective parameter
    assert values["program"] == "<program>" and values["git_dirty"] is True
    assert values["started_at"] == started and values["elapsed_seconds"] == 1.5
    assert values["mss"] is None  # declared, not in this result: null, typed
    assert schema.field("mss").type == pa.int64()
    # every declared parameter and summary field is a column, in the description's order
    names = schema.names
    assert names[:8] == ["study", "config_id", "replication", "seed", "run", "flavor",
                         "bufferRtt", "clients"]  # fmt: skip
    assert names[-len(PROVENANCE_COLUMNS) :] == list(PROVENANCE_COLUMNS)
    cs = connections.schema
    assert cs.field("throughput_bps").type == pa.float64()
    assert cs.field("first_drop_s").type == pa.float64()
    assert connections.column("first_drop_s").to_pylist() == [1.0, None]
    assert connections.column("config_id").to_pylist() == [run.config_id] * 2


@pytest.mark.programs
@pytest.mark.parametrize(
    ("analysis", "field", "allowed"),
    [
        ("theory: nope", "analysis.theory", "allowed: barakat"),
        ("traces: [{table: nope, x: time, y: [cwnd]}]", "analysis.traces[0].table",
         "allowed: transfers, cwnd"),
        ("traces: [{table: cwnd, x: when, y: [cwnd]}]", "analysis.traces[0].x",
         "allowed: source, transfer, time, cwnd, ssthresh"),
        ("traces: [{table: cwnd, x: time, y: [cwnd, speed]}]", "analysis.traces[0].y",
         "allowed: source, transfer, time, cwnd, ssthresh"),
        ("traces: [{table: cwnd, x: time, y: [cwnd], replications: all}]",
         "analysis.traces[0].replications", "allowed: first (the first run of each "
         "configuration) or mean (the mean over the replications, with its confidence "
         "interval)"),
        ("traces: [{table: cwnd, x: buffer, y: [cwnd]}]", "analysis.traces[0].replications",
         "'first' with x a factor (buffer); allowed: mean, or x a numeric column of table cwnd "
         "(source, transfer, time, cwnd, ssthresh)"),
        ("traces: [{table: cwnd, x: buffer, y: [cwnd], replications: first}]",
         "analysis.traces[0].replications", "'first' with x a factor (buffer); allowed: mean"),
        ("traces: [{table: cwnd, x: delayedAck, y: [cwnd], replications: mean}]",
         "analysis.traces[0].x", "factor delayedAck has levels that are not numbers; allowed: a "
         "numeric column of table cwnd (source, transfer, time, cwnd, ssthresh) or a factor "
         "with numeric levels (buffer)"),
        ("traces: [{table: cwnd, x: speed, y: [cwnd], replications: mean}]",
         "analysis.traces[0].x", "'speed' is not a numeric column of table cwnd nor a factor; "
         "allowed: source, transfer, time, cwnd, ssthresh, buffer"),
    ],
)  # fmt: skip
def test_analysis_theory_and_traces_are_checked(tmp_path, capsys, analysis, field, allowed):
    design = tmp_path / "d.yaml"
    design.write_text(
        "study: d\nprogram: barakat\nfactors:\n  buffer: [10, 20]\n  delayedAck: [true, false]\n"
        f"replications: 1\nanalysis:\n  {analysis}\n"
    )
    assert cli.main(["plan", str(design)]) == 2
    err = capsys.readouterr().err
    assert f"{design}: {field}: " in err and allowed in err, err
    with pytest.raises(DesignError, match=re.escape(f"{field}: ")):
        load_design(design)


@pytest.mark.programs
def test_trace_x_a_factor_with_mean_or_a_column_of_a_factor_s_name(tmp_path):
    """x a factor with numeric levels takes replications: mean; a column of the table named
    like a factor (barakat's ssthresh) is the column, with either."""
    design = tmp_path / "d.yaml"
    for trace in (
        "{table: cwnd, x: buffer, y: [cwnd], series: transfer, replications: mean}",
        "{table: cwnd, x: ssthresh, y: [cwnd]}",
        "{table: cwnd, x: ssthresh, y: [cwnd], replications: mean}",
    ):
        design.write_text(
            "study: d\nprogram: barakat\nfactors:\n  buffer: [10, 20]\n  ssthresh: [20, 50]\n"
            f"replications: 2\nanalysis:\n  traces: [{trace}]\n"
        )
        loaded = load_design(design).analysis.traces[0]
        assert loaded.replications == ("mean" if "mean" in trace else "first")


def test_numbers_with_an_exponent_or_the_parameter_s_unit_are_numbers(tmp_path):
    """PyYAML reads YAML 1.1, where 1e8 and 1.0e8 are strings (it wants 1.0e+8); YAML 1.2, JSON
    and the user's other tools read numbers. And OMNeT++'s ini files write quantities with
    their unit (0.08s). A numeric parameter takes both as numbers, in factors, fixed,
    configurations and exclude alike (an int as a whole number), in its own unit only: units
    are not converted. A string parameter's value stays as written."""
    from tests.support.sweeps import MM1

    design = load_design(
        write(
            tmp_path,
            f"""\
            study: e
            program: {MM1}
            factors:
              load: [5e-1, 2.5E-1, .75 Erlang]
              customers: [1e3, 2e3]
            exclude:
              - {{load: 0.5Erlang, customers: 2e3}}
            fixed: {{service: exp}}
            replications: 1
            """,
        )
    )
    levels = [(c.params["load"], c.params["customers"]) for c in design.configurations]
    assert levels == [(0.5, 1000), (0.25, 1000), (0.25, 2000), (0.75, 1000), (0.75, 2000)]
    assert all(type(c) is int for _, c in levels)
    head = f"study: e\nprogram: {MM1}\nreplications: 1\n"
    plain = load_design(write(tmp_path, head + "factors: {load: [0.5]}\n"))
    for written in ["5e-1", "0.5Erlang", "'5e-1 Erlang'"]:
        spelled = load_design(write(tmp_path, head + f"factors: {{load: [{written}]}}\n"))
        assert spelled.configurations[0].config_id == plain.configurations[0].config_id
    for text, said in [
        ("factors: {service: [1e3]}", "factors.service: '1e3' is not allowed; allowed: exp, det"),
        ("fixed: {customers: 1.5e0}", "fixed.customers: 1.5 is not allowed; allowed: an integer"),
        ("fixed: {load: 500mErlang}", "fixed.load: '500mErlang' is not in Erlang, the unit of "
         "load (satsweep does not convert units); allowed: a number in Erlang, plain or with its "
         "unit (e.g. 2 or 2Erlang)"),
        ("fixed: {customers: 10 people}", "fixed.customers: '10 people' has a unit, customers "
         "none; allowed: a number"),
    ]:  # fmt: skip
        with pytest.raises(DesignError, match=re.escape(said)):
            load_design(write(tmp_path, f"{head}{text}\n"))


def _taken(design, configurations) -> set[tuple[str, str]]:
    return {(n, value_text(c.params[n])) for c in configurations for n in design.factors}


@pytest.mark.parametrize(
    ("program", "body", "trials"),
    [
        ("normal.py", "factors: {a: [lo, hi], b: [1, 2, 3]}", 3),  # the largest factor's levels
        ("normal.py", "factors: {a: [lo, hi], b: [1, 2, 3]}\nexclude: [{a: hi, b: 2}]", 3),
        (
            "effects.py",
            "factors: {a: [-1, 1], b: [-1, 1], c: [-1, 1], d: [-1, 1], e: [-1, 1]}\n"
            'fraction: {generators: ["d = a:b", "e = -a:c"]}',
            3,  # d = a:b is the same in a configuration and its opposite: two cannot do
        ),
        (
            "effects.py",
            "configurations:\n  - {a: 1, b: -1}\n  - {a: 1, b: 1}\n  - {a: -1, b: 1}",
            2,
        ),
    ],
)
def test_the_covering_configurations_take_every_level_the_design_takes(
    tmp_path, program, body, trials
):
    """plan --check's trials: configurations of the design, the first first, that together
    take every level each factor takes in the design, each adding no more new levels than the
    one before (--check-runs keeps the first); for a factorial, as many as its largest factor
    has levels, even with a cell excluded."""
    path = write(tmp_path, f"study: cover\nprogram: {REPO / 'tests' / 'programs' / program}\n"
                 f"{body}\nreplications: 1\n")  # fmt: skip
    design = load_design(path)
    covering = design.covering_configurations()
    every = design.configurations
    assert covering[0] == every[0]
    assert all(c == every[c.index] for c in covering)  # the design's own, ids included
    assert _taken(design, covering) == _taken(design, every)
    assert len(covering) == trials < len(every)
    taken, new = set(), []  # the levels each adds: never more than the one before it
    for configuration in covering:
        new.append(len(_taken(design, [configuration]) - taken))
        taken |= _taken(design, [configuration])
    assert new == sorted(new, reverse=True) and new[-1] > 0, new
