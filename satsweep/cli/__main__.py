"""``python -m satsweep.cli``: the `satsweep` command."""

from satsweep.cli import command

command()
