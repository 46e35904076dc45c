"""Issue 54, items 1, 2, 3, 7 and part of 14: programs whose output or self-description has no
bound, and what a killed run leaves, met with bounded memory and time and a one-line answer.

The ns-3 adapter's programs here are shell scripts given as ``script:`` (the adapter runs an
executable as it is): they need no ns-3 build, and their output is what the items are about.
Memory is bounded by an RLIMIT_AS on the process under test, times by generous limits.
"""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from satsweep import cli
from satsweep.engine import ns3
from satsweep.engine.program import TooMuchOutput, bounded_output

BIN = Path(sys.prefix) / "bin"
#: The address space the processes under test get: satsweep-ns3 and `satsweep plan` start in
#: well under it (256 MiB sufficed for satsweep-ns3, 1 GiB for plan), while output held whole
#: would not fit.
LIMIT = 512 << 20

#: An ns-3 program in shell: its --PrintHelp, and a run printing MB megabytes of lines to stdout
#: and to stderr between an early and the last match of the summary's pattern, one line of
#: 3 MB without an end, and no newline after the last line.
LOUD = r"""#!/bin/sh
mb=0
for a in "$@"; do
  case "$a" in
    --PrintHelp) HELP; exit 0;;
    --mb=*) mb=${a#--mb=};;
  esac
done
echo "value 1"
yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c $((mb << 20))
yes yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy | head -c $((mb << 20)) >&2
head -c 3000000 /dev/zero | tr '\0' z
printf '\nvalue 42'
sleep "${SLEEP:-0}"
"""
HELP = "printf 'loud [Program Options]\\n\\nProgram Options:\\n    --mb:  megabytes [0]\\n'"
DECLARATION = """\
name: loud
version: "1"
summary:
  - name: value
    type: int
    stdout: "value ([0-9]+)"
"""
DESIGN = """\
study: loud
program: ns3
script: model/loud.sh
factors:
  mb: [1]
replications: 1
"""


def ns3_program(folder: Path, help_text: str = HELP, pattern: str = "value ([0-9]+)") -> Path:
    """The shell ns-3 program (``--PrintHelp`` running ``help_text``), its declaration and a
    design of one run in ``folder``; returns the design."""
    (folder / "model").mkdir(parents=True)
    script = folder / "model" / "loud.sh"
    script.write_text(LOUD.replace("HELP", help_text))
    script.chmod(0o755)
    (folder / "model" / "satsweep.yaml").write_text(DECLARATION.replace("value ([0-9]+)", pattern))
    (folder / "loud.yaml").write_text(DESIGN)
    return folder / "loud.yaml"


def _limit_memory() -> None:  # in the child, before exec
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def limited(command: list[str], folder: Path, timeout: float = 300, **env: str):
    """``command`` run in ``folder`` under :data:`LIMIT` of address space."""
    return subprocess.run(
        command,
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_limit_memory,
        env={**os.environ, **env},
    )


# -- item 1: a run's output costs no memory ------------------------------------------------------


@pytest.mark.slow
def test_an_ns3_run_printing_300_mb_reads_its_last_match_within_a_memory_limit(tmp_path):
    """The adapter read the whole stdout back and captured stderr whole (200 MB each way: a
    793 MB peak). Now stdout goes to a file searched from its end and stderr to a bounded tail:
    150 MB each way pass under 512 MiB, and the summary is the last match."""
    ns3_program(tmp_path)
    out = tmp_path / "out.json"
    proc = limited(
        [str(BIN / "satsweep-ns3"), "--script=model/loud.sh", "--mb=150", "--run=1",
         f"--out={out}"],
        tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.read_text() == '{"params": {"mb": 150}, "summary": {"value": 42}}'


def test_an_adapters_simulation_keeps_only_a_tail_of_what_it_prints(tmp_path):
    """OMNeT++'s adapter captured opp_run's stdout and stderr whole: it now runs them through
    :func:`run_tailed`, one bounded tail of both, here under 512 MiB with 300 MB printed."""
    script = (
        "from satsweep.engine.program import run_tailed\n"
        "proc = run_tailed(['sh', '-c', 'yes abc | head -c 150000000; yes def | head -c "
        "150000000 >&2; echo last words; exit 3'])\n"
        "print(proc.returncode, len(proc.stderr), repr(proc.stderr.splitlines()[-1]))\n"
    )
    proc = limited([sys.executable, "-c", script], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["3", "65536", "'last", "words'"]


def test_lines_are_searched_from_the_end_as_the_whole_text_splits_them(tmp_path, monkeypatch):
    """The output read backwards in blocks gives the lines the whole text read as UTF-8 text
    and split gave (line ends \\n, \\r\\n and \\r alike; a last newline ends no line); a line
    longer than a block comes in pieces."""
    monkeypatch.setattr(ns3, "OUTPUT_BLOCK_BYTES", 4)
    path = tmp_path / ".stdout"
    chances = random.Random(54)
    texts = ["", "\n", "\n\n", "a", "a\n", "\r\n", "ab\r\nc\re\n", "é\nü"]
    for _ in range(200):  # lines no longer than a block: none comes in pieces
        lines = ["".join(chances.choices("ab\r", k=chances.randint(0, 3))) for _ in range(5)]
        texts.append("\n".join(lines) + chances.choice(["", "\n"]))
    for text in texts:
        path.write_bytes(text.encode())
        whole = path.read_text(encoding="utf-8", errors="replace").splitlines()
        assert list(ns3._lines_backwards(path)) == whole[::-1], repr(text)
    path.write_bytes(b"f\n" + b"x" * 11 + b"\nl")
    backwards = list(ns3._lines_backwards(path))
    assert backwards[0] == "l" and backwards[-1] == "f"
    assert "".join(backwards[1:-1][::-1]) == "x" * 11 and len(backwards) > 3


# -- item 2: what a program says of itself is bounded --------------------------------------------

ENDLESS_DESCRIBE = """\
#!/bin/sh
exec yes aaaa
"""


def test_an_endless_describe_is_refused_in_one_line_within_a_memory_limit(tmp_path):
    """`exec yes aaaa` as --describe made `plan` reach 4 GB and end in a MemoryError
    traceback: it stops past 16 MiB and says which program broke the contract."""
    program = tmp_path / "endless"
    program.write_text(ENDLESS_DESCRIBE)
    program.chmod(0o755)
    design = tmp_path / "d.yaml"
    design.write_text("study: e\nprogram: ./endless\nfactors: {a: [1]}\nreplications: 1\n")
    start = time.monotonic()
    proc = limited(
        [str(BIN / "satsweep"), "plan", "d.yaml", "--results", "r"], tmp_path, timeout=120,
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )  # fmt: skip
    assert time.monotonic() - start < 60
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    said = f"{program} --describe printed more than 16 MiB; allowed: at most 16 MiB of JSON "
    assert said + "within 60 s (docs/engine-contract.md)" in proc.stderr, proc.stderr


def test_an_endless_print_help_is_refused_in_one_line_within_a_memory_limit(tmp_path):
    """An ns-3 program whose --PrintHelp never ends the same (4 GB in 5 s): it stops past
    16 MiB, and the message names the program and what is allowed."""
    ns3_program(tmp_path, help_text="exec yes '    --mb:  megabytes'")
    proc = limited(
        [str(BIN / "satsweep"), "plan", "loud.yaml", "--results", "r"], tmp_path, timeout=120,
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    said = f"{tmp_path / 'model' / 'loud.sh'} --PrintHelp printed more than 16 MiB; allowed: at"
    assert said in proc.stderr, proc.stderr
    assert proc.stderr.endswith("most 16 MiB of ns-3's help within 30 s\n"), proc.stderr


def test_a_program_saying_too_much_or_too_long_is_stopped_with_its_children(tmp_path):
    """The bounds themselves: past the size or the time the program's whole process group is
    killed (a child holding the pipe would keep it open), and stderr keeps only its tail."""
    marker = tmp_path / "child"
    with pytest.raises(TooMuchOutput, match="printed more than 1 MiB"):
        bounded_output(["sh", "-c", f"(sleep 60; touch {marker}) & exec yes"], limit=1 << 20)
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        bounded_output(["sh", "-c", f"(sleep 60; touch {marker}) & sleep 60"], timeout=1)
    assert time.monotonic() - start < 10
    proc = bounded_output(["sh", "-c", "echo out; yes err | head -c 1000000 >&2; exit 4"])
    assert (proc.returncode, proc.stdout, len(proc.stderr)) == (4, b"out\n", 65536)
    time.sleep(0.5)
    assert not marker.exists()


# -- item 3: --PrintHelp is parsed in linear time ------------------------------------------------


def test_a_help_line_of_many_spaces_parses_at_once():
    """`--mode: x` + 2000 spaces + `y` made `plan` take 20 s (4000: minutes): the regex
    backtracked cubically. Now it splits the line by hand, with the same results."""
    line = "    --mode: x" + " " * 4000 + "y"
    start = time.monotonic()
    [(name, said, default)] = ns3.print_help(f"Program Options:\n{line}\n{line} [z]\n")[:1]
    assert time.monotonic() - start < 1
    assert (name, said, default) == ("mode", "x" + " " * 4000 + "y", None)
    assert ns3.print_help(f"Program Options:\n{line} [z]  \n")[0][2] == "z"
    cases = {
        "    --a:  help [1]": ("a", "help", "1"),
        "    --a:help[1]": ("a", "help", "1"),
        "    --a:  [1]": ("a", "", "1"),
        "    --a:  two [x] words [y]": ("a", "two", "x] words [y"),
        "    --a:  open [ only": ("a", "open [ only", None),
        "    --a:   ": ("a", "", None),
        "    --a=b: no": None,
    }
    for line, parsed in cases.items():
        assert ns3.print_help(f"Program Options:\n{line}\n") == ([parsed] if parsed else [])


# -- item 7: a killed run leaves no scratch behind -----------------------------------------------


@pytest.mark.slow
def test_a_run_killed_at_its_time_limit_leaves_no_scratch(tmp_path):
    """A run killed by `resources: timeout_s` left its scratch folder (its .stdout, 79 MB) in
    the temporary folder: SIGKILL runs no cleanup. The scratch is now the run's folder in the
    store (workers/scratch-<config_id>-r<k>/), which satsweep removes after the run; and a
    folder left there by a satsweep that was itself killed goes at the next pass."""
    design = ns3_program(tmp_path)
    design.write_text(DESIGN + "resources: {timeout_s: 2}\n")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    results = tmp_path / "results"
    left = results / "loud" / "workers" / "scratch-0123456789ab-r1"
    left.mkdir(parents=True)
    (left / ".stdout").write_text("a killed satsweep's")
    proc = subprocess.run(
        [str(BIN / "satsweep"), "run", "loud.yaml", "--results", str(results)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TMPDIR": str(temporary), "SLEEP": "60"},
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "timed out after 2 s" in proc.stdout + proc.stderr
    assert list(temporary.iterdir()) == []
    assert list((results / "loud" / "workers").glob("scratch-*")) == []
    # `plan --check` stops a trial still running after --check-seconds the same way
    proc = subprocess.run(
        [str(BIN / "satsweep"), "plan", "loud.yaml", "--results", str(results), "--check",
         "--check-seconds", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TMPDIR": str(temporary), "SLEEP": "60"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list(temporary.iterdir()) == []


#: An ns-3 program in shell writing a JSON file of 17 MB and a CSV file with a 200 kB field.
FILES = r"""#!/bin/sh
case "$1" in --PrintHelp) printf 'files\n\nProgram Options:\n'; exit 0;; esac
{ printf '{"a": '; head -c 17000000 /dev/zero | tr '\0' ' '; printf '1}'; } > big.json
{ echo "x"; echo 1; head -c 200000 /dev/zero | tr '\0' q; echo; } > long.csv
"""


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("file: big.json\n    key: a",
         "summary field 'x': big.json is larger than 16 MiB; allowed: a JSON file of at most that"),
        ("file: long.csv\n    column: x",
         "summary field 'x': long.csv does not read: field larger than field limit (131072)"),
    ],
)  # fmt: skip
def test_a_summary_file_too_large_or_unreadable_fails_the_run_in_one_line(tmp_path, source, said):
    """A summary read from a file the run wrote: a JSON file is read whole only up to 16 MiB,
    a CSV file row by row (its last row kept); one csv cannot read was a traceback."""
    (tmp_path / "model").mkdir()
    script = tmp_path / "model" / "files.sh"
    script.write_text(FILES)
    script.chmod(0o755)
    (tmp_path / "model" / "satsweep.yaml").write_text(
        f'name: files\nversion: "1"\nsummary:\n  - name: x\n    type: int\n    {source}\n'
    )
    out = tmp_path / "out.json"
    proc = subprocess.run(
        [str(BIN / "satsweep-ns3"), "--script=model/files.sh", "--run=1", f"--out={out}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stderr) == (1, said + "\n")
    assert not out.exists()


# -- item 14: messages that say what was meant ---------------------------------------------------


def test_simulating_a_cc_file_says_how_to_run_an_ns3_program(tmp_path, monkeypatch, capsys):
    """`satsweep simulate model/x.cc` advised "chmod +x it"; a design the same."""
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "x.cc").write_text("int main() {}\n")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["simulate", "model/x.cc"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "satsweep simulate: error: program: 'model/x.cc' is a C++ source file, not a program; "
        "allowed: an ns-3 program's source as satsweep simulate ns3 --option script=model/x.cc\n"
    )
    (tmp_path / "x.yaml").write_text(
        "study: x\nprogram: model/x.cc\nfactors: {a: [1]}\nreplications: 1\n"
    )
    assert cli.main(["plan", "x.yaml", "--results", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "'model/x.cc' is a C++ source file, not a program; allowed: an ns-3 program's " in err
    assert "as program: ns3 with script: model/x.cc (docs/ns3.md)" in err and "chmod" not in err


def test_a_summary_pattern_matching_nothing_says_so_with_the_last_lines(tmp_path, capsys):
    """A summary regex that matched nothing said "failed, exit code 1" and no more, though the
    program exited 0: it now says so, naming the field, and shows the last lines searched."""
    ns3_program(tmp_path, pattern="valu3 ([0-9]+)")
    out = tmp_path / "out.json"
    proc = subprocess.run(
        [str(BIN / "satsweep-ns3"), "--script=model/loud.sh", "--run=1", f"--out={out}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1 and not out.exists()
    said = (
        "the program exited 0 but the summary field 'value''s pattern 'valu3 ([0-9]+)' matched "
        "nothing in its output; the last lines: "
    )
    assert proc.stderr.startswith(said) and proc.stderr.count("\n") == 1, proc.stderr[-2000:]
    assert proc.stderr.endswith(f" | {'z' * 200!r}... | 'value 42'\n"), proc.stderr[-2000:]
