"""setup.sh's options: the card's engine is built by default, the quick install leaves it out,
and an unknown option is refused before anything is installed."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_an_unknown_option_is_refused_in_one_line_naming_the_allowed_ones():
    done = subprocess.run(
        [REPO / "setup.sh", "--with-omnet"], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "[setup] error: unknown option --with-omnet; allowed: --without-omnetpp, --with-browser\n"
    )


def test_omnetpp_is_built_unless_the_quick_install_is_asked_for():
    # The option parsing is the script's own: run its first part, up to the choice.
    script = (REPO / "setup.sh").read_text()
    parsing = script[: script.index("PYTHON=")]
    for options, built in (((), "1"), (("--without-omnetpp",), "0"), (("--with-omnetpp",), "1")):
        done = subprocess.run(
            ["bash", "-c", parsing + 'echo "$with_omnetpp"', "setup.sh", *options],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=30,
        )
        assert (done.returncode, done.stdout.strip()) == (0, built), options
