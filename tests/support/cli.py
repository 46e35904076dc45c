"""The `satsweep` command run in the test's own process."""

from __future__ import annotations

import pytest

from satsweep import cli


def run_cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """`satsweep ARGV` (each argument as text): its exit code, stdout and stderr."""
    capsys.readouterr()
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err
