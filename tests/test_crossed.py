"""A design that crosses simulators (``simulators:``, docs/designs.md): the factor
``simulator`` whose levels are programs, each run made by its own program and recorded as its
own, analysed and reported as any factor; programs that disagree on a design parameter
refused in one line; a crossed store verified in place and from its archive.

The two simulators are the contract's M/M/1 example (docs/examples/mm1.py, its service fixed
to exponential) and tests/programs/md1.py, the same queue with deterministic service: by
Pollaczek-Khinchine the M/D/1 queue's mean wait is half the M/M/1 queue's, so the simulator's
effect is known before the runs."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from satsweep.design import DesignError, load_design
from satsweep.engine import Description, Program
from satsweep.engine.crossed import merged
from satsweep.store import Store
from satsweep.workflow import run as sweep_run
from tests.support import REPO
from tests.support.cli import run_cli
from tests.support.sweeps import MM1, stored_study

MD1 = REPO / "tests" / "programs" / "md1.py"

CROSSED = f"""\
study: queues
simulators:
  mm1: {{program: {MM1}, fixed: {{service: exp}}}}
  md1: {{program: {MD1}}}
factors:
  load: [0.3, 0.6]
fixed:
  customers: 3000
replications: 3
analysis: {{responses: [mean_wait]}}
"""


@pytest.fixture(scope="module")
def crossed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The crossed design's store: 2 simulators x 2 loads x 3 replications."""
    return stored_study(tmp_path_factory.mktemp("crossed"), CROSSED)


def test_each_run_is_made_and_recorded_by_its_simulators_program(crossed: Path) -> None:
    runs = pq.read_table(crossed / "queues" / "runs.parquet").to_pylist()
    assert len(runs) == 12
    identity = {"mm1": Program.at(MM1).sha256, "md1": Program.at(MD1).sha256}
    for run in runs:
        assert run["program"] == run["simulator"]  # the programs name themselves mm1, md1
        assert run["program_sha256"] == identity[run["simulator"]]
        # the simulator's own fixed parameter, a column NULL for the program without it
        assert run["service"] == ("exp" if run["simulator"] == "mm1" else None)
    assert len({r["config_id"] for r in runs}) == 4
    recorded = json.loads((crossed / "queues" / "design.json").read_text())
    assert recorded["design"]["factors"]["simulator"] == ["mm1", "md1"]
    assert set(recorded["simulators"]) == {"mm1", "md1"}
    assert recorded["simulators"]["md1"]["sha256"] == identity["md1"]


def test_the_stored_design_is_the_crossed_one(crossed: Path, tmp_path: Path) -> None:
    """design.json gives the design back, its configurations the same (their ids hash the
    simulator and its own fixed parameters)."""
    path = tmp_path / "queues.yaml"
    path.write_text(CROSSED)
    loaded = load_design(path)
    stored = Store.of(loaded, crossed).design()
    assert stored is not None and stored.simulators is not None
    assert [c.config_id for c in stored.configurations] == [
        c.config_id for c in loaded.configurations
    ]
    mm1 = next(c for c in loaded.configurations if c.params["simulator"] == "mm1")
    assert mm1.params == {"simulator": "mm1", "load": 0.3, "customers": 3000, "service": "exp"}
    assert loaded.describe.parameter("simulator").choices == ["mm1", "md1"]


def test_analyze_gives_the_simulators_effect_with_its_interval(crossed: Path, capsys) -> None:
    code, out, err = run_cli(capsys, "analyze", "queues", "--results", crossed)
    assert code == 0, err
    share = re.search(r"\n\| simulator \| [0-9.]+ \| 1 \| ([0-9.]+) \|", out)
    assert share is not None and 10 < float(share.group(1)) < 90, out
    effects = {}
    for level in ("mm1", "md1"):
        found = re.search(
            rf"\n\| simulator \| {level} \| (\S+) \| \[(\S+), (\S+)\] \| (\*?) \|", out
        )
        assert found is not None, out
        effects[level] = [float(found.group(i)) for i in (1, 2, 3)] + [found.group(4)]
    # M/D/1 waits half as long as M/M/1: md1's effect is negative, its interval without 0
    assert effects["md1"][0] < 0 and effects["md1"][2] < 0 and effects["md1"][3] == "*"
    assert effects["mm1"][0] == pytest.approx(-effects["md1"][0])
    means = pq.read_table(crossed / "queues" / "runs.parquet").group_by("simulator").aggregate(
        [("mean_wait", "mean")]
    ).to_pylist()  # fmt: skip
    wait = {row["simulator"]: row["mean_wait_mean"] for row in means}
    assert 0.35 < wait["md1"] / wait["mm1"] < 0.65  # Pollaczek-Khinchine's half


def test_report_draws_the_simulators_side_by_side(crossed: Path, capsys) -> None:
    code, out, err = run_cli(capsys, "report", "queues", "--results", crossed)
    assert code == 0, err
    report = (crossed / "queues" / "report" / "report.md").read_text()
    assert "mm1 1.0 (6 runs); md1 1.0 (6 runs)" in report  # each run's own program
    assert "| simulator | load = 0.3 | load = 0.6 |" in report
    assert (crossed / "queues" / "report" / "mean_wait-interactions.png").stat().st_size > 0


def test_a_crossed_store_verifies_in_place(crossed: Path, capsys) -> None:
    code, out, err = run_cli(capsys, "status", "queues", "--results", crossed)
    assert code == 0 and "12 done" in out, out + err
    assert "other build" not in out + err  # each run's identity is one of its simulators'
    code, out, err = run_cli(capsys, "verify", "queues", "--results", crossed, "--sample", 4)
    assert code == 0, out + err
    assert out.count(": reproduced") == 4 and "environment:" not in out


def test_a_crossed_archive_carries_every_program_and_verifies_without_them(
    tmp_path: Path, capsys
) -> None:
    """The design beside copies of both programs: the archive holds the design file and each
    simulator's program (program.json: their kinds and versions by simulator); with the
    folder gone, `verify ARCHIVE` reruns every run from the archived programs, each by its
    own. A program.json whose simulators were taken out is refused in one line."""
    import shutil
    import tarfile

    folder = tmp_path / "model"
    folder.mkdir()
    for program in (MM1, MD1):
        shutil.copy2(program, folder / program.name)
    text = CROSSED.replace(str(MM1), "./mm1.py").replace(str(MD1), "./md1.py")
    results = stored_study(folder, text.replace("customers: 3000", "customers: 300"))
    target = tmp_path / "q.tar.gz"
    code, out, err = run_cli(capsys, "archive", "queues", "--results", results, "-o", target)
    assert code == 0, err
    with tarfile.open(target) as tar:
        names = set(tar.getnames())
        record = json.load(tar.extractfile("queues/program.json"))
    assert {"queues/source/mm1.py", "queues/source/md1.py", "queues/source/queues.yaml"} <= names
    assert record["kind"] == "crossed" and set(record["simulators"]) == {"mm1", "md1"}
    assert record["simulators"]["md1"]["kind"] == "file"
    assert record["simulators"]["mm1"]["sha256"] == Program.at(MM1).sha256
    shutil.rmtree(folder)
    code, out, err = run_cli(capsys, "verify", target)
    assert code == 0, out + err
    assert out.count(": reproduced") == 12 and "12 of 12 runs reproduce exactly" in out

    # the same archive with program.json's simulators taken out, or a build step naming a
    # simulator by a list
    step = {"folder": ".", "command": ["true"], "makes": "mm1.py", "simulator": ["mm1"]}
    for damage, said in (
        ({"simulators": None}, "program.json: simulators: allowed: an object"),
        ({"builds": [step]}, "program.json: builds: simulator ['mm1'] is not one of the design's"),
    ):
        bad = tmp_path / "bad.tar.gz"
        with tarfile.open(target) as tar, tarfile.open(bad, "w:gz") as out_tar:
            for member in tar.getmembers():
                data = tar.extractfile(member).read() if member.isfile() else None
                if member.name == "queues/program.json":
                    data = json.dumps({**record, **damage}).encode()
                    member.size = len(data)
                out_tar.addfile(member, io.BytesIO(data) if data is not None else None)
        code, out, err = run_cli(capsys, "verify", bad)
        assert code == 2 and said in err, out + err
        assert err.count("error:") == 1 and "Traceback" not in err


#: A copy of mm1 whose description changes one thing (Python run after its import).
WRAPPER = """\
#!/usr/bin/env python3
import sys
sys.path.insert(0, {folder!r})
import mm1
mm1.DESCRIPTION["name"] = "other"
{change}
sys.exit(mm1.main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ('mm1.PARAMETERS[0]["unit"] = "load"', "parameter 'load': unit differs (Erlang in a "
         "(mm1); load in b (other))"),
        ('mm1.PARAMETERS[1]["type"] = "float"', "parameter 'customers': type differs (int in a "
         "(mm1); float in b (other))"),
        ('mm1.PARAMETERS[2]["choices"] = ["exp"]', "parameter 'service': choices differ (exp, "
         "det in a (mm1); exp in b (other))"),
    ],
)  # fmt: skip
def test_programs_that_disagree_on_a_design_parameter_are_refused_in_one_line(
    change: str, said: str, tmp_path: Path, capsys
) -> None:
    other = tmp_path / "other.py"
    other.write_text(WRAPPER.format(folder=str(MM1.parent), change=change))
    other.chmod(0o755)
    design = tmp_path / "bad.yaml"
    design.write_text(
        f"study: bad\nsimulators:\n  a: {{program: {MM1}}}\n  b: {{program: ./other.py}}\n"
        "factors:\n  load: [0.3, 0.6]\nfixed:\n  customers: 20\n  service: exp\nreplications: 1\n"
    )
    code, out, err = run_cli(capsys, "run", design, "--results", tmp_path / "results")
    assert code == 2
    assert err.count("\n") == 1 and said in err, err
    assert "allowed: programs that agree on the type, unit and choices" in err
    assert not (tmp_path / "results").exists()


def test_a_crossed_designs_parameters_are_checked_against_every_program(tmp_path: Path) -> None:
    """A design parameter is one of every program; a simulator's own fixed parameter is its
    program's and not the design's too; the factor simulator takes the simulators' names."""
    design = tmp_path / "bad.yaml"
    design.write_text(
        f"study: bad\nsimulators:\n  mm1: {{program: {MM1}, fixed: {{load: 0.5, servce: exp}}}}\n"
        f"  md1: {{program: {MD1}}}\nfactors:\n  load: [0.3, 0.6]\nfixed:\n  customers: 20\n"
        "  service: exp\nreplications: 1\n"
    )
    with pytest.raises(DesignError) as refused:
        load_design(design)
    lines = str(refused.value).splitlines()
    assert any("fixed.service: unknown parameter 'service' of md1" in line for line in lines)
    assert any("simulators.mm1.fixed.load: 'load' is also a parameter of the design" in line
               for line in lines)  # fmt: skip
    assert any("simulators.mm1.fixed.servce: unknown parameter 'servce' of mm1" in line
               for line in lines)  # fmt: skip
    design.write_text(
        f"study: bad\nsimulators:\n  mm1: {{program: {MM1}}}\n  md1: {{program: {MD1}}}\n"
        "factors:\n  simulator: [mm1, mg1]\n  load: [0.3]\nreplications: 1\n"
    )
    with pytest.raises(DesignError, match=r"factors.simulator: 'mg1' is not a simulator; "
                       r"allowed: mm1, md1"):  # fmt: skip
        load_design(design)
    design.write_text(
        f"study: bad\nprogram: {MM1}\nsimulators:\n  mm1: {{program: {MM1}}}\n"
        f"  md1: {{program: {MD1}}}\nfactors:\n  load: [0.3]\nreplications: 1\n"
    )
    with pytest.raises(DesignError, match="give program or simulators"):
        load_design(design)


def test_a_list_of_configurations_names_each_ones_simulator(tmp_path: Path) -> None:
    design = tmp_path / "listed.yaml"
    head = f"study: listed\nsimulators:\n  mm1: {{program: {MM1}, fixed: {{service: det}}}}\n"
    head += f"  md1: {{program: {MD1}}}\nreplications: 1\nconfigurations:\n"
    design.write_text(head + "  - {simulator: md1, load: 0.3}\n  - {simulator: mm1, load: 0.6}\n")
    params = [c.params for c in load_design(design).configurations]
    assert params == [
        {"simulator": "md1", "load": 0.3},
        {"simulator": "mm1", "load": 0.6, "service": "det"},
    ]
    design.write_text(head + "  - {load: 0.3}\n  - {load: 0.6}\n")
    with pytest.raises(DesignError, match="configurations: every entry sets simulator; allowed: "
                       "mm1, md1"):  # fmt: skip
        load_design(design)


def test_the_merged_description_keeps_what_every_program_declares_alike() -> None:
    """Choices 1 and 1.0 of a float are one; a default the programs do not share is none; a
    summary field of another unit, and a table of one program, are left out (the field said
    among the differences)."""

    def described(name: str, unit: str, default: float, tables: dict) -> Description:
        return Description.model_validate({
            "name": name, "version": "1",
            "parameters": [{"name": "b", "type": "float", "choices": [0.5, default, 2],
                            "default": default}],
            "summary": [{"name": "y", "type": "float", "unit": unit},
                        {"name": "z", "type": "int"}],
            "tables": tables,
        })  # fmt: skip

    a = described("a", "s", 1, {"t": [{"name": "c", "type": "int"}]})
    b = described("b", "ms", 1.0, {})
    merged_description, differences = merged({"x": a, "y": b})
    assert [p.name for p in merged_description.parameters] == ["simulator", "b"]
    assert merged_description.parameter("b").default == 1
    assert [f.name for f in merged_description.summary] == ["z"]
    assert differences == {"y": "summary field 'y': unit differs (s in x (a); ms in y (b))"}
    assert merged_description.tables == {}
    c = described("c", "s", 2, {})
    assert merged({"x": a, "z": c})[0].parameter("b") is None  # its choices differ


def test_a_rebuilt_simulator_is_named_by_its_own_path_and_hash(tmp_path: Path) -> None:
    """A crossed design's program has no path of its own: the rebuilt notice names each
    simulator's program, its path and its sha256 now."""
    md1 = tmp_path / "md1.py"
    (tmp_path / "mm1.py").write_text(MM1.read_text())  # the queue md1 imports beside it
    md1.write_text(MD1.read_text())
    md1.chmod(0o755)
    results = stored_study(tmp_path, CROSSED.replace(str(MD1), str(md1)))
    design_file = tmp_path / "queues.yaml"
    store = Store.of(load_design(design_file), results)
    old = Program.at(md1).sha256
    md1.write_text(MD1.read_text() + "\n# rebuilt\n")  # another build, the same version
    design = store.bind(load_design(design_file))
    assert store.other_builds(design) == {old: 6}
    said: list[str] = []
    sweep_run.warn_rebuilt(design, store, said.append)
    assert len(said) == 1, said
    new = Program.at(md1).sha256
    assert f"{md1} has sha256 {new}" in said[0], said
    assert f"{MM1} has sha256 {Program.at(MM1).sha256}" in said[0], said
    assert f"(sha256 {old})" in said[0] and " at ., " not in said[0], said
