"""The README's promise to a fresh machine: exactly two commands, the second of which is what CI
runs (.ci/run), so the command a reader copies is the one that was tested."""

from __future__ import annotations

import re

from tests.support import REPO


def two_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("\n## Two commands\n", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.S)]


def test_the_readme_gives_two_commands_and_ci_runs_the_second():
    commands = two_commands()
    assert len(commands) == 2 and all("\n" not in c for c in commands), commands
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci == commands[1], f".ci/run runs {ci!r}, the README says {commands[1]!r}"
