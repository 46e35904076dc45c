"""The report in a real browser (Debian's chromium, headless, driven by its command line):
every figure of a small study's index.html loads, the page logs nothing to the console, and a
screenshot is kept in the test's results folder (a CI artifact)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from satsweep import cli
from tests.support.sweeps import MM1, stored_study

pytestmark = pytest.mark.browser

#: A small study of the contract's example program: service x load (3 numbers, the columns: curves), r = 2.
STUDY = f"""\
study: queue
program: {MM1}
factors:
  service: [exp, det]
  load: [0.3, 0.5, 0.7]
fixed:
  customers: 50
replications: 2
"""


def reported(tmp_path: Path) -> Path:
    """The study run and reported with the defaults: its report's index.html."""
    results = stored_study(tmp_path, STUDY)
    assert cli.main(["report", "queue", "--results", str(results)]) == 0
    return results / "queue" / "report" / "index.html"


#: Put first in a copy of the page: records every failed load and script error (the capture
#: phase sees an <img>'s), and console.error/warn calls; after the load event, each image's
#: src, whether it finished and its natural width, as JSON in <pre id="probe"> for --dump-dom.
PROBE = """<script>
const problems = [];
addEventListener("error", e => problems.push(
  e.target && e.target.src ? "failed to load " + e.target.getAttribute("src") : String(e.message)
), true);
for (const level of ["error", "warn"]) {
  const original = console[level];
  console[level] = (...args) => { problems.push(level + ": " + args.join(" ")); original(...args); };
}
addEventListener("load", () => {
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify({
    images: [...document.images].map(i => [i.getAttribute("src"), i.complete, i.naturalWidth]),
    problems,
  });
  document.body.appendChild(pre);
});
</script>"""


def chromium(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    """Headless chromium with its own profile in ``tmp``, console messages on stderr."""
    return subprocess.run(
        [shutil.which("chromium") or "chromium", "--headless", "--no-sandbox", "--disable-gpu",
         f"--user-data-dir={tmp / 'profile'}", "--enable-logging=stderr", "--v=0",
         "--virtual-time-budget=10000", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def probed(page: Path, tmp: Path) -> dict:
    """What :data:`PROBE` saw of ``page``, loaded beside it (its images are relative)."""
    probe = page.with_name(f"probe-{page.name}")
    probe.write_text(page.read_text().replace("<head>", "<head>" + PROBE, 1))
    proc = chromium("--dump-dom", probe.as_uri(), tmp=tmp)
    probe.unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, f"the probe did not report (load event never came?): {proc.stderr[-2000:]}"
    return json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def test_every_figure_loads_without_console_errors(tmp_path: Path) -> None:
    page = reported(tmp_path)
    figures = re.findall(r'<img src="([^"]+)"', page.read_text())
    assert len(figures) >= 3 and any(f.endswith("-curves.png") for f in figures)

    seen = probed(page, tmp_path)
    assert seen["problems"] == []
    assert [src for src, _, _ in seen["images"]] == figures
    for src, complete, width in seen["images"]:
        assert complete and width > 0, src

    # the page as it is (no probe): nothing on the console, and its screenshot kept
    screenshot = page.parent.parent / "report-screenshot.png"  # in the test's results folder
    proc = chromium(f"--screenshot={screenshot}", "--window-size=1280,3000", page.as_uri(),
                    tmp=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [line for line in proc.stderr.splitlines() if ":CONSOLE" in line] == []
    data = screenshot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000  # a page drawn, not blank


def test_the_probe_sees_a_figure_that_does_not_load(tmp_path: Path) -> None:
    """The check above can fail: a page whose figure is missing is caught by it."""
    page = reported(tmp_path)
    missing = re.findall(r'<img src="([^"]+-curves.png)"', page.read_text())[0]
    (page.parent / missing).unlink()
    seen = probed(page, tmp_path)
    assert seen["problems"] == [f"failed to load {missing}"]
    assert [src for src, _, width in seen["images"] if width == 0] == [missing]


def test_the_results_table_shows_the_digits_that_tell_the_cells_apart(tmp_path: Path) -> None:
    """A study with a large mean and a small effect (tests/programs/bulk.py: 72647912 bytes,
    -300 and +300 by flavor, noise 50, r = 3): the page as the browser renders it shows each
    cell's mean with every digit and its interval to two significant digits (the cells differ
    in their fourth digit: 7.265e+07 would hide the effect), no exponent anywhere; every
    figure, its trace of the window included, loads."""
    from tests.test_report_truth import bulk_design

    results = stored_study(tmp_path, bulk_design("bulk", 3, 50, traces=True))
    assert cli.main(["report", "bulk", "--results", str(results)]) == 0
    page = results / "bulk" / "report" / "index.html"
    proc = chromium("--dump-dom", page.as_uri(), tmp=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tables = re.findall(r"<table>(.*?)</table>", proc.stdout, re.S)
    (results_table,) = [t for t in tables if "flavor = reno" in t]
    cells = re.findall(r'<td class="r">([^<]*)</td>', results_table)
    assert len(cells) == 2
    shown = [re.fullmatch(r"(\d{8}) ± (\d{2,3})", cell) for cell in cells]
    assert all(shown), cells
    (reno, reno_half), (cubic, cubic_half) = (
        (int(a), int(b)) for a, b in (m.groups() for m in shown)
    )
    assert 500 < cubic - reno < 700 and reno_half == cubic_half  # the effect, in plain sight
    assert "e+" not in "".join(re.findall(r"<td[^>]*>([^<]*)</td>", proc.stdout))
    seen = probed(page, tmp_path)
    assert seen["problems"] == [] and all(width > 0 for _, _, width in seen["images"])
