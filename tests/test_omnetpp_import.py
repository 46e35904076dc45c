"""`satsweep import` (satsweep/engine/omnetpp_import.py, docs/omnetpp.md "Importing an ini's
parameter study"): an OMNeT++ configuration's iteration variables and `repeat` as a design and a
declaration. The parsing, generation and refusal tests need no OMNeT++; the comparisons with
OMNeT++'s own expansion (`opp_run -s -q rundetails`) and the trial run need the build of
`./setup.sh` and are skipped without its .venv/omnetpp.env (or OMNETPP_ROOT
and INET_ROOT)."""

from __future__ import annotations

import collections
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from satsweep.cli import main as satsweep_main
from satsweep.design import load_design
from satsweep.engine.omnetpp import (
    OmnetppAdapter,
    Declaration,
    OmnetppStudy,
    installation,
    option_value,
)
from satsweep.engine.omnetpp_import import (
    IniError,
    declaration_text,
    import_config,
    read_study,
    own_statistics,
    selection,
)
from tests.support import REPO

DUMBBELL = REPO / "docs" / "examples" / "omnetpp-dumbbell"


#: Ini files of the comparison with OMNeT++: lists, ranges with step, units, several variables,
#: repeat, inheritance (a variable in a base configuration and in General).
INIS = {
    "lists": """
[General]
network = Dumbbell
[Config Study]
**.ppp[*].queue.packetCapacity = ${queue=10,20,50}
**.tcp.tcpAlgorithmClass = ${algorithm="TcpReno", "TcpNewReno"}
**.tcp.sackSupport = ${sack=false,true}
""",
    "ranges": """
[General]
network = Dumbbell
repeat = 3
[Config Study]
**.x = ${x=1..10 step 3}
**.y = ${1..5}
**.z = ${z=0..1 step 0.3}
**.w = ${w=10..1 step -4}
""",
    "units": """
[Config Study]
network = Dumbbell
repeat = 2
**.datarate = ${rate=1Mbps,10Mbps, 100Mbps}
**.delay = ${delay=1..3}ms
**.name = "${peer=alpha,beta}"
""",
    "syntax": """
# a comment ${x=1,2}
[Study]
network = Dumbbell
**.a = ${a=1,\\
 2}  # ${b=3,4}
**.s = ${s="x#y", "z"}
**.c = ${c=5,
    6}
""",
    "inherited": """
[General]
network = Dumbbell
**.buffer = ${buffer=10,20}
description = "buffer ${buffer}"
[Config Base]
repeat = 4
**.rate = ${rate=1, 2.5}
[Config Study]
extends = Base
**.flows = ${flows=1..4 step 2}
""",
    "expressions": """
[Config Study]
network = Dumbbell
repeat = 2
**.a = truncnormal(${mean=1.5s, 2.5s},1s)
**.b = exponential(${b=1,2}s)
**.c = 2 * ${c=3..5}
""",
}

#: The example of docs/omnetpp.md's "Importing an ini's parameter study".
INIS["documented"] = (
    (REPO / "docs" / "omnetpp.md")
    .read_text()
    .split("## Importing an ini's parameter study")[1]
    .split("```ini\n", 1)[1]
    .split("```", 1)[0]
)


def write_ini(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    ini = folder / "omnetpp.ini"
    ini.write_text(text)
    return ini


def test_lists_ranges_and_units_become_levels(tmp_path):
    both = INIS["ranges"] + INIS["units"].replace("[Config Study]", "").replace("network", "#")
    study = read_study(write_ini(tmp_path, both), "Study")
    got = {v.name: (v.levels, v.unit, v.type, v.entry.key) for v in study.variables}
    assert got == {
        "x": ([1, 4, 7, 10], None, "int", "**.x"),
        "v_y": ([1, 2, 3, 4, 5], None, "int", "**.y"),  # unnamed: the key's last word, not
        # the reserved y
        "z": ([0.0, 0.3, 0.6, 0.9], None, "float", "**.z"),
        "w": ([10, 6, 2], None, "int", "**.w"),
        "rate": ([1, 10, 100], "Mbps", "int", "**.datarate"),
        "delay": ([1, 2, 3], "ms", "int", "**.delay"),
        "peer": (["alpha", "beta"], None, "string", "**.name"),
    }
    assert study.replications == 2  # the Study section's repeat comes first


def test_inheritance_follows_extends_down_to_general(tmp_path):
    study = read_study(write_ini(tmp_path, INIS["inherited"]), "Study")
    assert [(v.name, v.levels) for v in study.variables] == [
        ("flows", [1, 3]),
        ("rate", [1.0, 2.5]),
        ("buffer", [10, 20]),
    ]
    assert study.replications == 4


def test_the_documented_example_gives_the_documented_factors(tmp_path):
    study = read_study(write_ini(tmp_path, INIS["documented"]), "Study")
    assert [(v.name, v.levels, v.unit) for v in study.variables] == [
        ("rate", [1, 10], "Mbps"),
        ("delay", [1, 5, 9], "ms"),
        ("count", [1, 2, 3], None),
        ("algorithm", ["TcpReno", "TcpNewReno"], None),
        ("buffer", [10, 20, 50], None),
    ]
    assert study.replications == 3


def test_continued_lines_comments_and_sections_are_read_as_omnetpp_reads_them(tmp_path):
    ini = write_ini(
        tmp_path,
        "# a comment ${x=1,2}\n[Study]\n**.a = ${a=1,\\\n 2}  # ${b=3,4}\n"
        '**.s = ${s="x#y", "z"}\n**.c = ${c=5,\n    6}\n',
    )
    study = read_study(ini, "Study")
    assert [(v.name, v.levels, v.entry.line) for v in study.variables] == [
        ("a", [1, 2], 3),
        ("s", ["x#y", "z"], 5),
        ("c", [5, 6], 6),
    ]


def test_a_variable_inside_an_expression_fills_its_place(tmp_path):
    variables = read_study(write_ini(tmp_path, INIS["expressions"]), "Study").variables
    assert [(v.name, v.levels, v.unit, v.attach, v.expression) for v in variables] == [
        ("mean", [1.5, 2.5], "s", True, "truncnormal(${mean},1s)"),
        ("b", [1, 2], "s", False, "exponential(${b}s)"),
        ("c", [3, 4, 5], None, True, "2 * ${c}"),
    ]
    declared = {p.name: p for p in imported_study(tmp_path).declaration.parameters}
    assert option_value(declared["mean"], 2.5) == "truncnormal(2.5s,1s)"
    assert option_value(declared["b"], 2) == "exponential(2s)"
    assert option_value(declared["c"], 4) == "2 * 4"


def imported_study(folder: Path) -> OmnetppStudy:
    import_config(folder / "omnetpp.ini", "Study", trial_time=None)
    return OmnetppStudy(folder / "omnetpp.ini", "Study")


def test_import_writes_a_design_and_a_declaration_that_load(tmp_path):
    ini = write_ini(tmp_path / "model", INIS["units"])
    design_path, declaration_path, _ = import_config(
        ini, "Study", tmp_path / "designs", trial_time=None
    )
    assert declaration_path == ini.parent / "satsweep.yaml"
    declared = OmnetppStudy(ini, "Study").declaration  # the adapter's own loader
    by_name = {p.name: p for p in declared.parameters}
    assert (by_name["rate"].type, by_name["rate"].unit, by_name["rate"].set) == (
        "int",
        "Mbps",
        "**.datarate",
    )
    assert option_value(by_name["delay"], 2) == "2ms"
    assert option_value(by_name["peer"], "beta") == '"beta"'
    design = load_design(design_path)
    assert design.factors == {"rate": [1, 10, 100], "delay": [1, 2, 3], "peer": ["alpha", "beta"]}
    assert design.replications == 2 and design.program == "omnetpp"
    assert design.adapter_options["config"] == "Study"


#: What a trial run of an INET network records, as OMNeT++ 6.1 writes its .sca (format 3): the
#: run's attributes and parameters, scalars and statistics with their attributes.
SCA = r"""version 3
run Study-0-20261202-12:00:00-77
attr configname Study
attr network Net
attr unit ignored
itervar queue 10
par Net.client.app[0] typename "\"TcpSessionApp\""
attr unit s
scalar Net.client.app[0] bytesSent 1048576
scalar Net.client.app[0] "packetSent:sum(packetBytes)" 1048576
attr recordingmode sum(packetBytes)
attr title "packets sent, sum(packetBytes)"
attr unit B
scalar Net.client.app[0] packetReceived:count 0
attr recordingmode count
statistic Net.client.app[0] endToEndDelay:histogram
field count 0
field mean nan
attr unit s
bin -inf 0
statistic Net.server.app[0] endToEndDelay:histogram
field count 700
field mean 0.0125
attr unit s
bin -inf 0
bin 0 700
scalar Net.server.app[0] "packetReceived:sum(packetBytes)" 1048576
attr recordingmode sum(packetBytes)
scalar Net.client.lo[0].lo rcvdPkFromHl:count 5
attr unit pk
scalar Net.server.lo[0].lo rcvdPkFromHl:count 5
attr unit pk
scalar Net.client.ppp[0].ppp rcvdPkFromHl:count 720
attr unit pk
scalar Net.client.ppp[1].ppp rcvdPkFromHl:count 3
attr unit pk
scalar Net.server.ppp[0].ppp rcvdPkFromHl:count 700
attr unit pk
statistic Net.client.ppp[0].queue queueingTime:stats
field count 720
field mean 0.001
attr unit s
scalar Net throughput 8.3e6
attr unit bps
scalar Net.sink lifetime:mean 2.5
attr unit s
"""
VEC = r"""version 3
run Study-0-20261202-12:00:00-77
attr configname Study
vector 0 Net.server.app[0] "packetReceived:vector(packetBytes)" ETV
attr interpolationmode none
attr recordingmode vector(packetBytes)
0	12	0.41	1452
0	13	0.42	1452
vector 1 Net.client.ppp[0].queue queueLength:vector ETV
attr unit pk
1	12	0.41	1
"""


def test_result_files_are_read_with_each_result_s_unit_and_count():
    from satsweep.engine.omnetpp import Recorded, recorded_results

    rows = recorded_results(iter((SCA + VEC).splitlines()))
    assert rows[:4] == [
        Recorded("scalar", "Net.client.app[0]", "bytesSent", None, 1048576.0),
        Recorded("scalar", "Net.client.app[0]", "packetSent:sum(packetBytes)", "B", 1048576.0,
                 "sum(packetBytes)"),
        Recorded("scalar", "Net.client.app[0]", "packetReceived:count", None, 0.0, "count"),
        Recorded("histogram", "Net.client.app[0]", "endToEndDelay:histogram", "s", 0.0),
    ]  # fmt: skip
    by_name = {(r.module, r.name): r for r in rows}
    assert by_name[("Net.client.ppp[0].queue", "queueingTime:stats")].kind == "statistic"
    assert by_name[("Net.server.app[0]", "packetReceived:vector(packetBytes)")] == Recorded(
        "vector", "Net.server.app[0]", "packetReceived:vector(packetBytes)", None, None,
        "vector(packetBytes)",
    )  # fmt: skip
    assert len(rows) == 16  # the run's and the parameter's "attr unit" are nobody's


@pytest.mark.parametrize(
    ("mode", "unit"),
    [("sum(packetBytes)", "B"), ("vector(removeRepeats(packetBits))", "b"),
     ("timeavg(sum(packetBytes))", "B"), ("count(packetBytes)", None),
     ("rate(packetBytes)", None), ("count", None), (None, None)],
)  # fmt: skip
def test_a_result_without_a_unit_has_its_filter_s(mode, unit):
    """INET's statistics declare no unit; what their packetBytes filter gives is in bytes, as
    long as what comes after it keeps the unit (a count does not)."""
    from satsweep.engine.omnetpp import Recorded
    from satsweep.engine.omnetpp_import import unit_of

    assert unit_of(Recorded("scalar", "N.a", "x", None, 1.0, mode)) == unit
    assert unit_of(Recorded("scalar", "N.a", "x", "pk", 1.0, mode)) == "pk"  # its own first


def test_module_patterns_are_as_specific_as_the_recording_modules_allow():
    from satsweep.engine.omnetpp_import import module_groups

    assert module_groups(
        ["N.h[0].app[0]", "N.h[1].app[0]", "N.s.app[0]", "N.h[0].app[1]", "N.h[1].app[1]"]
    ) == [
        ("N.h[*].app[*]", ["N.h[0].app[0]", "N.h[1].app[0]", "N.h[0].app[1]", "N.h[1].app[1]"]),
        ("N.s.app[0]", ["N.s.app[0]"]),
    ]
    assert module_groups(["N.h[2].ppp[0]", "N.h[3].ppp[0]"]) == [
        ("N.h[*].ppp[0]", ["N.h[2].ppp[0]", "N.h[3].ppp[0]"])
    ]


def test_the_default_selection_is_the_network_s_and_the_applications_results(tmp_path):
    """Active: what the network module and the application modules record (with their units,
    each module its own field), and a statistic the model's own NED declares; a result that
    recorded nothing stays commented, as does everything else: never one field adding up the
    loopback's and the PPP interfaces' counts of both hosts. Uncommented, every listed field
    and table loads."""
    from satsweep.engine.omnetpp import recorded_results

    rows = recorded_results(iter((SCA + VEC).splitlines()))
    ini = write_ini(tmp_path, INIS["lists"])
    (tmp_path / "Sink.ned").write_text(
        "simple Sink { @statistic[lifetime](record=mean; unit=s); }\n"
    )
    chosen = selection(rows, own_statistics(tmp_path), ["queue"])
    text = declaration_text(read_study(ini, "Study"), "s", chosen.summary, "trial",
                            tables=chosen.tables)  # fmt: skip
    active = Declaration.model_validate(yaml.safe_load(text))
    assert [(f.name, f.unit, f.scalar or f.statistic, f.module, f.reduce)
            for f in active.summary] == [  # fmt: skip
        ("client_app0_bytessent", None, "bytesSent", "Net.client.app[0]", "one"),
        ("client_app0_packetsent_sum_packetbytes", "B", "packetSent:sum(packetBytes)",
         "Net.client.app[0]", "one"),
        ("client_app0_packetreceived_count", None, "packetReceived:count",
         "Net.client.app[0]", "one"),
        ("server_app0_endtoenddelay_histogram_mean", "s", "endToEndDelay:histogram",
         "Net.server.app[0]", "one"),
        ("server_app0_packetreceived_sum_packetbytes", "B", "packetReceived:sum(packetBytes)",
         "Net.server.app[0]", "one"),
        ("throughput", "bps", "throughput", "Net", "one"),
        ("sink_lifetime_mean", "s", "lifetime:mean", "Net.sink", "one"),
    ]  # fmt: skip
    assert {n: (t.vector, t.module, t.unit, t.bin) for n, t in active.tables.items()} == {
        "server_app0_packetreceived": (
            "packetReceived:vector(packetBytes)", "Net.server.app[0]", "B", 1.0
        )
    }  # fmt: skip
    traces = OmnetppAdapter().default_traces(active.description())
    assert traces == [{"table": "server_app0_packetreceived", "x": "time", "y": ["value"],
                       "series": "module"}]  # fmt: skip
    picked = re.sub(r"^# (  |tables:|more tables:)", r"\1", text, flags=re.MULTILINE)
    picked = picked.replace("more tables:\n", "")
    everything = Declaration.model_validate(yaml.safe_load(picked))
    rest = {f.name: (f.module, f.reduce, f.unit) for f in everything.summary[len(active.summary) :]}
    assert rest == {
        "client_app0_endtoenddelay_histogram_mean": ("Net.client.app[0]", "one", "s"),  # empty
        "client_lo0_lo_rcvdpkfromhl_count": ("Net.client.lo[0].lo", "one", "pk"),
        "server_lo0_lo_rcvdpkfromhl_count": ("Net.server.lo[0].lo", "one", "pk"),
        "client_ppp_ppp_rcvdpkfromhl_count": ("Net.client.ppp[*].ppp", "sum", "pk"),
        "server_ppp0_ppp_rcvdpkfromhl_count": ("Net.server.ppp[0].ppp", "one", "pk"),
        "client_ppp0_queue_queueingtime_stats_mean": ("Net.client.ppp[0].queue", "one", "s"),
    }
    assert set(everything.tables) == {"server_app0_packetreceived", "client_ppp0_queue_queuelength"}
    assert all(f.module != "**" for f in everything.summary)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[Config Study]\n**.a = ${x=1,2}\n**.b = ${y=1,2 ! x}\n", ":3: **.b: parallel iteration"),
        ("[Config Study]\nconstraint = $x < 2\n**.a = ${x=1,2}\n", ":2: constraint: constraints"),
        ("[Config Study]\n**.a = ${x=1,2} * ${y=3}\n", ":2: **.a: = ${x=1,2} * ${y=3}: several"),
        ("[Config Study]\n**.d = ${d=1ms,1s}\n", ":2: **.d: ${d}: levels in several units"),
        ("[Config Study]\n**.a = ${x=1,2}\n**.b = ${x}\n", ":3: **.b: = ${x}: uses variable"),
        ("[Config Study]\nextends = Nope\n**.a = ${x=1,2}\n", ":2: extends: 'Nope' is not"),
        ("[Config Study]\n**.a = 5\n[General]\n**.a = ${x=1,2}\n", ":4: **.a: its variable"),
        ("[Config Study]\nrepeat = many\n**.a = ${x=1,2}\n", ":2: repeat: = many: allowed"),
        ("[Config Study]\n**.a = ${x=1,uniform(0,1)}\n", ":2: **.a: ${x}: level 'uniform(0,1)'"),
        ("[Config Study]\n**.a = 1\n", ": config: 'Study' has no iteration variables"),
        ("[Config Study]\nthis is no entry\n", ":2: 'this is no entry': not a 'key = value'"),
    ],
)
def test_what_a_design_cannot_say_exits_2_naming_file_line_and_key(tmp_path, capsys, text, said):
    ini = write_ini(tmp_path, text)
    code = satsweep_main(["import", str(ini), "--config", "Study", "--no-trial"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{ini}{said}" in err and "satsweep import: error:" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["omnetpp.ini"]  # nothing written


def test_an_unknown_configuration_is_named_with_those_allowed(tmp_path, capsys):
    ini = write_ini(tmp_path, INIS["inherited"])
    assert satsweep_main(["import", str(ini), "--config", "Nope", "--no-trial"]) == 2
    assert (
        "config: 'Nope' is not a configuration of omnetpp.ini; allowed: General, Base, Study"
        in (capsys.readouterr().err)
    )


def test_a_bad_trial_time_is_refused_before_anything(tmp_path, capsys):
    ini = write_ini(tmp_path, INIS["lists"])
    assert satsweep_main(["import", str(ini), "--config", "Study", "--trial-time", "soon"]) == 2
    assert "--trial-time: 'soon': allowed: a simulated time" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["omnetpp.ini"]


def test_existing_files_are_kept_unless_forced(tmp_path, capsys):
    ini = write_ini(tmp_path, INIS["lists"])
    declaration = tmp_path / "satsweep.yaml"
    declaration.write_text("mine\n")
    argv = ["import", str(ini), "--config", "Study", "--no-trial"]
    assert satsweep_main(argv) == 2
    assert f"{declaration}: exists; allowed: --force" in capsys.readouterr().err
    assert declaration.read_text() == "mine\n" and not (tmp_path / "study.yaml").exists()
    assert satsweep_main([*argv, "--force"]) == 0
    assert "**.tcp.tcpAlgorithmClass" in declaration.read_text()
    assert (tmp_path / "study.yaml").is_file()


def test_a_reserved_factor_name_is_refused_in_one_line(tmp_path):
    ini = write_ini(tmp_path, "[Config Study]\n**.a = ${host=1,2}\n")
    with pytest.raises(IniError, match=r"omnetpp.ini:2: \*\*.a: \$\{host\}: not a name a factor"):
        import_config(ini, "Study", trial_time=None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["omnetpp.ini"]


# ---- against OMNeT++ itself ------------------------------------------------------------------


def _normal(text: str) -> object:
    """A value as OMNeT++ prints it or the adapter passes it, comparable: numbers as floats."""
    text = text.strip()
    number = re.fullmatch(r"([+-]?[\d.]+(?:[eE][+-]?\d+)?)([A-Za-z]*)", text)
    return (float(number.group(1)), number.group(2)) if number else text


def omnetpp_runs(ini: Path, config: str) -> list[dict[str, object]]:
    """The assignments of each run of the configuration, from `opp_run -s -q rundetails`."""
    omnetpp, _ = installation()
    proc = subprocess.run(
        [str(omnetpp / "bin" / "opp_run"), "-c", config, "-s", "-q", "rundetails", ini.name],
        cwd=ini.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    runs: list[dict[str, object]] = []
    for line in proc.stdout.splitlines():
        if line.startswith("Run "):
            runs.append({})
        elif line.startswith("\t") and runs:
            key, _, value = line.strip().partition(" = ")
            runs[-1][key] = _normal(value)
    return runs


@pytest.mark.omnetpp
@pytest.mark.parametrize("name", list(INIS))
def test_the_design_runs_what_opp_runall_runs(tmp_path, name):
    ini = write_ini(tmp_path, INIS[name])
    design_path, _, _ = import_config(ini, "Study", trial_time=None)
    design = load_design(design_path)
    declared = OmnetppStudy(ini, "Study").declaration.parameters
    ours = collections.Counter()
    for config in design.configurations:
        for _ in range(design.replications):
            ours[
                frozenset(
                    (p.set, _normal(option_value(p, config.params[p.name]))) for p in declared
                )
            ] += 1
    keys = {p.set for p in declared}
    theirs = collections.Counter(
        frozenset((k, v) for k, v in run.items() if k in keys) for run in omnetpp_runs(ini, "Study")
    )
    assert sum(theirs.values()) == design.n_runs > 1
    assert ours == theirs


@pytest.mark.omnetpp
def test_the_trial_run_lists_what_run_0_records_and_the_declaration_runs(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "Dumbbell.ned").write_text((DUMBBELL / "Dumbbell.ned").read_text())
    text = (DUMBBELL / "omnetpp.ini").read_text().replace("sim-time-limit = 10s", "")
    ini = write_ini(
        model,
        text + "sim-time-limit = 1s\n**.ppp[*].queue.packetCapacity = ${queue=10,100}\n",
    )
    _, declaration_path, _ = import_config(ini, "Bulk", trial_time="0.5s")
    said = declaration_path.read_text()
    assert "what run 0 recorded in a 0.5s trial run" in said
    assert 'scalar: "packetReceived:sum(packetBytes)"' in said  # listed, commented or not
    assert re.search(r'^#   - \{name: .*, statistic: ".*", field: mean, ', said, re.MULTILINE)
    declared = OmnetppStudy(ini, "Bulk").declaration
    assert [p.name for p in declared.parameters] == ["queue"]
    # the senders' and receivers' applications, each a group of its own: never both added up
    modules = {f.module for f in declared.summary} | {t.module for t in declared.tables.values()}
    assert modules == {"Dumbbell.sender[*].app[0]", "Dumbbell.receiver[*].app[0]"}
    program = OmnetppAdapter.study(ini, "Bulk")  # the adapter runs the imported declaration
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [str(program.path), *program.args, "--queue=10", "--run=1", f"--out={out}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["params"] == {"queue": 10}
    assert list(result["summary"]) == [f.name for f in declared.summary]
    assert set(declared.tables) <= set(result) and any(result[t] for t in declared.tables)


@pytest.mark.omnetpp
def test_a_trial_run_that_fails_ends_the_import_with_omnetpp_s_message(tmp_path, capsys):
    """A model that does not run here gets no declaration of placeholders: exit 2, OMNeT++'s
    error line, nothing written (and nothing in the model's folder: the trial runs in a
    working folder of its own)."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "Dumbbell.ned").write_text((DUMBBELL / "Dumbbell.ned").read_text())
    text = (DUMBBELL / "omnetpp.ini").read_text().replace('"TcpSessionApp"', '"NoSuchApp"')
    ini = write_ini(model, text + "**.ppp[*].queue.packetCapacity = ${queue=10,100}\n")
    before = sorted(model.rglob("*"))
    argv = ["import", str(ini), "--config", "Bulk", "--trial-time", "0.5s"]
    assert satsweep_main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "trial run of run 0 failed" in err and "NoSuchApp" in err, err
    assert sorted(model.rglob("*")) == before  # no declaration, no design, no results


def test_each_table_s_value_is_labelled_with_its_own_unit():
    """The import declares a table per vector, each column `value` in its vector's unit: a
    trace's axis says its own table's unit, not the last table's."""
    from satsweep.analysis import StudyDesign
    from satsweep.design.schema import TraceSettings
    from satsweep.report.figures import trace_labels

    study = StudyDesign(
        units={"time": "s", "value": "s"},  # by column name, across tables: the last one's
        table_units={"sent": {"time": "s", "value": "B"}, "delay": {"time": "s", "value": "s"}},
    )
    sent = TraceSettings(table="sent", x="time", y=["value"])
    assert trace_labels(sent, study) == ("time (s)", "sent (B)")
    delay = TraceSettings(table="delay", x="time", y=["value"])
    assert trace_labels(delay, study) == ("time (s)", "delay (s)")
