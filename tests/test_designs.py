"""Designs beyond the full factorial (issue 36): 2^(k-p) fractions by generators or by
resolution, ``exclude:`` and ``configurations:``; their validation against the program's
``--describe`` and their config ids, the same as the full factorial's for the same point."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from satsweep import cli
from satsweep.design import Design, DesignError, config_id, load_design
from satsweep.design.fraction import Fraction, FractionError, choose_generators

EFFECTS = Path(__file__).parent / "programs" / "effects.py"
NORMAL = Path(__file__).parent / "programs" / "normal.py"
FIVE = "factors: {a: [-1, 1], b: [-1, 1], c: [-1, 1], d: [-1, 1], e: [-1, 1]}\n"


def write(tmp_path: Path, body: str, program: Path = EFFECTS) -> Path:
    path = tmp_path / "design.yaml"
    path.write_text(f"study: s\nprogram: {program}\n{body}replications: 1\n")
    return path


def full_ids(tmp_path: Path) -> dict[str, dict]:
    """config_id -> parameters of the 2^5 full factorial."""
    design = load_design(write(tmp_path, FIVE))
    return {c.config_id: c.params for c in design.configurations}


def test_generators_give_the_defining_relation_and_resolution() -> None:
    fraction = Fraction.from_text(list("ABCDE"), ["D = AB", "E = -A:C"])
    assert fraction.defining_text() == ["I", "A:B:D", "-A:C:E", "-B:C:D:E"]
    assert fraction.resolution == 3
    rows = list(fraction.rows())
    assert len(rows) == 8 and len(set(rows)) == 8
    for a, b, c, d, e in rows:  # every row obeys its generators
        assert d == a * b and e == -a * c
    assert Fraction.from_text(list("ABCD"), ["D = A*B*C"]).resolution == 4
    with pytest.raises(FractionError, match="'ABX' is not a factor"):
        Fraction.from_text(list("ABCD"), ["D = ABX"])
    with pytest.raises(FractionError, match="D is generated itself"):
        Fraction.from_text(list("ABCDE"), ["D = AB", "E = AD"])


@pytest.mark.parametrize(
    ("k", "resolution", "runs"),
    [(4, 4, 8), (5, 3, 8), (5, 5, 16), (7, 3, 8), (7, 4, 16), (8, 4, 16), (11, 5, 128)],
)
def test_a_resolution_gets_the_smallest_fraction(k: int, resolution: int, runs: int) -> None:
    """The textbook's smallest fractions (Jain 1991, ch. 19; Box, Hunter and Hunter)."""
    fraction = choose_generators([f"f{i}" for i in range(k)], resolution)
    assert 2 ** (k - len(fraction.generators)) == runs
    assert fraction.resolution >= resolution


def test_the_next_expansion_takes_the_ids_of_the_first(tmp_path: Path, monkeypatch) -> None:
    """A design keeps its configurations' ids once it has expanded them all (its stream check
    does): the next expansion gives the same configurations, ids spelled as config_id spells
    them (12 hex digits, leading zeros too), without computing one again."""
    sd = ", sd: [0, 0.1, 0.2, 0.5, 1, 2, 5]}\n"  # 32 x 7 configurations
    design = load_design(write(tmp_path, FIVE.replace("}\n", sd)))
    expected = [(c.index, config_id(c.params), c.params) for c in design.iter_configurations()]
    assert len(expected) == 224 and any(cid.startswith("0") for _, cid, _ in expected)
    monkeypatch.setattr("satsweep.design.schema.config_id", None)  # called: a TypeError
    again = [(c.index, c.config_id, c.params) for c in design.iter_configurations()]
    assert again == expected
    assert [c.config_id for c in design.model_copy().configurations] == [e[1] for e in expected]


def test_a_fraction_runs_the_full_factorial_s_configurations_it_keeps(tmp_path: Path) -> None:
    full = full_ids(tmp_path)
    design = load_design(write(tmp_path, FIVE + 'fraction: {generators: ["d = a:b", "e = a:c"]}\n'))
    assert design.n_configurations == 8 == len(design.configurations)
    for config in design.configurations:
        assert full[config.config_id] == config.params  # the same point, the same id
        p = config.params
        assert p["d"] == p["a"] * p["b"] and p["e"] == p["a"] * p["c"]  # -1 first, +1 second
    recorded = design.resolved()["fraction"]
    assert recorded == {
        "generators": ["d = a:b", "e = a:c"],
        "resolution": 3,
        "defining_relation": ["I", "a:b:d", "a:c:e", "b:c:d:e"],
    }
    again = Design.model_validate(design.resolved())  # design.json reads back, same hash
    assert again.sha256() == design.sha256()
    by_resolution = load_design(write(tmp_path, FIVE + "fraction: {resolution: 3}\n"))
    assert by_resolution.n_configurations == 8
    assert by_resolution.resolved()["fraction"]["resolution"] == 3


def test_a_full_design_hashes_as_before(tmp_path: Path) -> None:
    """The new fields are left out of a design that does not use them: stores keep their hash."""
    design = load_design(write(tmp_path, FIVE))
    assert not {"configurations", "fraction", "exclude", "listed"} & set(design.resolved())


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (FIVE + 'fraction: {generators: ["d = a"]}\n', r"fraction: .*resolution 2 .*main effects"),
        (
            FIVE + 'fraction: {generators: ["d = a:b", "e = a:c"], resolution: 4}\n',
            r"fraction: .*resolution 3 .*below the resolution asked",
        ),  # fmt: skip
        (FIVE + 'fraction: {generators: ["d = a:x"]}\n', r"fraction: .*'x' is not a factor"),
        (FIVE + "fraction: {}\n", r"fraction: give generators"),
        (
            FIVE + "fraction: {resolution: 2}\n",
            r"fraction.resolution: .*allowed: an integer from 3",
        ),
        (
            "factors: {a: [lo, hi], b: [1, 2, 3]}\nfraction: {resolution: 3}\n",
            r"fraction: factor 'b' has 3 levels; allowed: two levels",
        ),  # fmt: skip
        (
            FIVE + 'fraction: {generators: ["d = a:b:c"]}\nexclude: [{a: 1}]\n',
            r"exclude: not with a fraction",
        ),  # fmt: skip
    ],
)
def test_bad_fractions_are_refused_naming_the_field(
    tmp_path: Path, body: str, message: str
) -> None:
    program = NORMAL if "b: [1, 2, 3]" in body else EFFECTS
    path = write(tmp_path, body, program)
    with pytest.raises(DesignError, match=message) as error:
        load_design(path)
    assert str(error.value).startswith(f"{path}: ")


def test_exclude_leaves_out_what_it_matches(tmp_path: Path) -> None:
    full = full_ids(tmp_path)
    design = load_design(write(tmp_path, FIVE + "exclude: [{a: 1, b: 1}, {c: [-1, 1], e: 1}]\n"))
    kept = [c.params for c in design.configurations]
    expected = [
        dict(zip("abcde", v, strict=True))
        for v in itertools.product((-1, 1), repeat=5)
        if not (v[0] == 1 and v[1] == 1) and v[4] != 1
    ]
    assert kept == expected and design.n_configurations == len(expected) == 12
    assert [c.index for c in design.configurations] == list(range(12))
    assert all(full[c.config_id] == c.params for c in design.configurations)
    assert Design.model_validate(design.resolved()).sha256() == design.sha256()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("exclude: [{x: 1}]\n", r"exclude: \[0\]: 'x' is not a factor; allowed: a, b, c, d, e"),
        ("exclude: [{a: 2}]\n", r"exclude: \[0\].a: 2 is not a level of a; allowed: -1, 1"),
        ("exclude: [{}]\n", r"exclude: \[0\] is empty"),
        ("exclude: [{a: [-1, 1]}]\n", r"exclude: every configuration is excluded"),
    ],
)
def test_bad_excludes_are_refused(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(DesignError, match=message):
        load_design(write(tmp_path, FIVE + body))


def test_a_list_of_configurations(tmp_path: Path) -> None:
    full = full_ids(tmp_path)
    body = (
        "configurations:\n"
        "  - {a: 1, b: -1, c: 1, d: 1, e: -1}\n"
        "  - {e: 1, d: -1, c: -1, b: 1, a: 1}\n"  # another key order: the same parameters
        "  - {a: -1, b: -1, c: -1, d: -1, e: -1}\n"
    )
    design = load_design(write(tmp_path, body))
    assert design.n_configurations == 3
    assert design.factors == {"a": [1, -1], "b": [-1, 1], "c": [1, -1], "d": [1, -1], "e": [-1, 1]}
    assert [full[c.config_id] for c in design.configurations] == [
        c.params for c in design.configurations
    ]
    resolved = design.resolved()
    assert "factors" not in resolved and len(resolved["configurations"]) == 3
    assert Design.model_validate(resolved).sha256() == design.sha256()
    assert json.dumps(resolved)  # design.json takes it


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("configurations: [{a: 1, b: 1}, {a: 1}]\n", r"configurations\[1\] sets a; allowed"),
        ("configurations: [{a: 1}, {a: 1.0}]\n", r"configurations\[1\] is configurations\[0\]"),
        (
            "configurations: [{a: 1, x: 2}]\n",
            r"configurations\[0\].x: unknown parameter 'x' of effects",
        ),  # fmt: skip
        ("configurations: [{a: 3}]\n", r"configurations\[0\].a: 3 is not"),
        ("configurations: [{a: 1}]\nfixed: {a: 1}\n", r"fixed.a: 'a' is also a factor"),
        (FIVE + "configurations: [{a: 1}]\n", r"give factors or configurations, not both"),
    ],
)
def test_bad_lists_are_refused(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(DesignError, match=message):
        load_design(write(tmp_path, body))


def test_plan_shows_the_fraction_and_a_bad_one_exits_2(tmp_path: Path, capsys) -> None:
    """`satsweep plan` prints the fraction's size against the full design, its generators and
    defining relation; generators of resolution II are one line, exit code 2, nothing made."""
    path = write(tmp_path, FIVE + "fraction: {resolution: 3}\n")
    results = tmp_path / "results"
    assert cli.main(["plan", str(path), "--results", str(results), "--rows", "1"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "8 configurations x 1 replication = 8 runs" in out
    assert (
        "a 2^(5-2) fraction of resolution 3; generators d = a:b:c, e = a:b; defining relation "
        "I = a:b:c:d = a:b:e = c:d:e (the full design: 32 configurations)"
    ) in out
    bad = write(tmp_path, FIVE + 'fraction: {generators: ["d = a"]}\n')
    assert cli.main(["plan", str(bad), "--results", str(results)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "main effects aliased with each other" in err
    assert not (results / "s").exists()
