"""Design files that eat memory or nest without end, and YAML merge keys (issue 28, items 9 and
10): a "billion laughs" file, an alias inside its own anchor, deep nesting and huge values are
refused in one line with exit code 2; ``<<:`` merges are taken, a key given twice in one
mapping still is not."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from satsweep import cli
from satsweep.design import load_design
from satsweep.design.loading import _read_yaml, _UniqueKeyLoader
from tests.support import REPO

MM1 = Path(__file__).resolve().parents[1] / "docs" / "examples" / "mm1.py"
HEAD = f"study: toy\nprogram: {MM1}\nreplications: 1\n"


def billion_laughs() -> str:
    """Nine levels of nine aliases each: under 512 bytes, 9^9 strings when expanded."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\nfactors: {load: *l8}\n"


def one_line_error(command: str, path: Path, capsys) -> str:
    """What `satsweep COMMAND path` said: it must be one line and exit code 2."""
    assert cli.main([command, str(path), "--results", str(path.parent / "results")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"satsweep {command}: error: {path}: ") and err.count("\n") == 1, err
    assert not (path.parent / "results").exists()
    return err


CLI = "import sys; from satsweep import cli; sys.exit(cli.main(sys.argv[1:]))"


def _limit_memory() -> None:  # in the child: 1 GiB of address space, enough for satsweep plan
    resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))


def test_a_billion_laughs_is_refused_within_a_memory_limit(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(HEAD + billion_laughs())
    assert path.stat().st_size <= 512 + len(str(MM1))
    proc = subprocess.run(
        [sys.executable, "-c", CLI, "plan", str(path), "--results", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_limit_memory,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    assert (
        f"satsweep plan: error: {path}: aliases (*name) expand the file's " in proc.stderr
        and "allowed: aliases adding at most 10000 nodes" in proc.stderr
    ), proc.stderr


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("l: &l [1, *l]\nfactors: {load: *l}\n", "line 4: an alias inside what it names"),
        ("factors: &f {load: [0.3], x: *f}\n", "line 4: an alias inside what it names"),
        ("factors: {load: " + "[" * 5000 + "]" * 5000 + "}\n", "nested too deeply to read"),
        # libyaml's parser would recurse in C until it crashed: PyYAML's reads it
        ("factors: {load: " + "[" * 100_000 + "]" * 100_000 + "}\n", "nested too deeply"),
        ("factors: {load: [0.3]\n", "not valid YAML: line 5, column 1: while parsing a flow"),
    ],
    ids=["list in itself", "mapping in itself", "deep nesting", "deeper", "unclosed mapping"],
)
@pytest.mark.parametrize("command", ["plan", "status"])
def test_a_design_that_nests_without_end_is_one_line(tmp_path, capsys, command, content, said):
    path = tmp_path / "bad.yaml"
    path.write_text(HEAD + content)
    assert said in one_line_error(command, path, capsys)


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (f"study: {'s' * 100_000}\nfactors: {{load: [0.3]}}\n", "study: 'sssssss"),
        (f"factors: {{load: ['{'x' * 100_000}']}}\n", "factors.load: 'xxxxx"),
        (f"factors: {{load: [0.3]}}\nfixed: {{customers: '{'c' * 100_000}'}}\n", "fixed.custo"),
        (f"factors:\n  ? {'p' * 100_000}\n  : [1]\n", "factors.ppppp"),  # a long key: ?
    ],
    ids=["long study", "long level", "long fixed value", "long parameter name"],
)
def test_a_huge_value_is_quoted_short(tmp_path, capsys, content, said):
    path = tmp_path / "bad.yaml"
    path.write_text(f"program: {MM1}\nreplications: 1\n" + content)
    if "study:" not in content:
        path.write_text(path.read_text() + "study: toy\n")
    err = one_line_error("plan", path, capsys)
    assert said in err and "..." in err and len(err) < len(str(path)) + 700, err


MERGED = f"""\
study: toy
program: {MM1}
factors:
  load: [0.3, 0.6]
fixed:
  <<: {{customers: 20, service: exp}}
  service: det
replications: 1
analysis:
  traces:
    - &first {{table: waits, x: customer, y: [wait], title: first}}
    - {{<<: *first, title: second}}
    - {{<<: [{{title: third, x: wait}}, *first], y: [customer]}}
"""


def test_merge_keys_are_taken_and_the_mappings_own_key_wins(tmp_path, capsys):
    path = tmp_path / "merged.yaml"
    path.write_text(MERGED)
    design = load_design(path)
    assert design.fixed == {"customers": 20, "service": "det"}
    traces = [(t.title, t.x, t.y) for t in design.analysis.traces]
    assert traces == [
        ("first", "customer", ["wait"]),
        ("second", "customer", ["wait"]),
        ("third", "wait", ["customer"]),  # of two merged, the first wins (YAML 1.1)
    ]
    assert cli.main(["plan", str(path), "--results", str(tmp_path / "results")]) == 0
    assert "--customers=20 --service=det" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (("  service: det\n", "  service: det\n  service: exp\n"), "line 8: key 'service'"),
        (("{customers: 20, ", "{customers: 20, customers: 30, "), "line 6: key 'customers'"),
        (("title: second}", "title: second, title: again}"), "line 12: key 'title'"),
    ],
    ids=["beside a merge", "in a merged mapping", "in a mapping with an alias merged"],
)
def test_a_key_given_twice_beside_a_merge_is_refused(tmp_path, capsys, edit, said):
    path = tmp_path / "merged.yaml"
    path.write_text(MERGED.replace(*edit))
    err = one_line_error("plan", path, capsys)
    assert f"{said} is given twice" in err and "allowed: each key once" in err, err


def test_libyaml_and_pyyaml_read_the_designs_alike():
    """Design files are read by libyaml's parser when it is there (ten times faster on long
    level lists), PyYAML's when it cannot: the same data either way."""
    texts = [path.read_text() for path in sorted((REPO / "sweeps").glob("*.yaml"))]
    for text in [*texts, MERGED]:
        assert _read_yaml(text) == yaml.load(text, Loader=_UniqueKeyLoader), text[:200]
