"""Issue 30, item 3 (docs/engine-contract.md, "The result"): a tolerant ``params`` echo. A
program may echo ``run`` (the contract's own flag), which must then be the run it was given; a
name the description does not declare is refused as before; a declared parameter the echo
leaves out is stored with the value satsweep gave it, else its declared default.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from satsweep.engine import Program, SimulationError

DESCRIBE = {
    "name": "echo",
    "version": "1.0",
    "parameters": [
        {"name": "load", "type": "float", "default": 0.5, "help": "offered load"},
        {"name": "servers", "type": "int", "default": 2, "help": "servers"},
    ],
    "summary": [{"name": "y", "type": "float", "help": "a response"}],
}


def program(folder: Path, echo: str) -> Program:
    """A contract program whose ``params`` echo is the Python expression ``echo`` over
    ``given`` (the flags it got, as text) and ``run`` (its --run, an int)."""
    path = folder / "echo.py"
    path.write_text(
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"DESCRIBE = {DESCRIBE!r}\n"
        "if sys.argv[1:] == ['--describe']:\n    print(json.dumps(DESCRIBE)); sys.exit(0)\n"
        "given = dict(a[2:].split('=', 1) for a in sys.argv[1:])\n"
        "run = int(given.pop('run')); out = given.pop('out')\n"
        f"result = {{'params': {echo}, 'summary': {{'y': 1.0}}}}\n"
        "open(out, 'w').write(json.dumps(result))\n"
    )
    path.chmod(0o755)
    return Program.at(path)


def test_an_echo_of_run_is_accepted_when_it_is_the_run_given(tmp_path):
    echo = program(tmp_path, "{'load': float(given['load']), 'servers': 2, 'run': run}")
    result = echo.run({"load": 0.7}, 12345)
    assert result["params"] == {"load": 0.7, "servers": 2}  # run is the key's, not a parameter


@pytest.mark.parametrize("echoed", ["run + 1", "str(run) + 'x'", "True"])
def test_an_echo_of_another_run_is_refused(tmp_path, echoed):
    echo = program(tmp_path, f"{{'load': 0.5, 'servers': 2, 'run': {echoed}}}")
    with pytest.raises(SimulationError) as caught:
        echo.run({}, 7)
    assert "params: 'run' = " in caught.value.message
    assert "is not the run given (7)" in caught.value.message


def test_an_undeclared_name_is_still_refused(tmp_path):
    echo = program(tmp_path, "{'load': 0.5, 'servers': 2, 'seed': 3}")
    with pytest.raises(SimulationError) as caught:
        echo.run({}, 7)
    assert caught.value.message == (
        "result does not follow the contract: params: 'seed' is not declared by --describe"
    )


def test_a_parameter_left_out_of_the_echo_takes_its_given_value_else_its_default(tmp_path):
    echo = program(tmp_path, "{}")
    assert echo.run({"load": 0.9}, 7)["params"] == {"load": 0.9, "servers": 2}
    out = tmp_path / "result.json"
    echo.run({"servers": 4}, 7, out=out)
    assert json.loads(out.read_text())["params"] == {}  # the program's own file is left as written
