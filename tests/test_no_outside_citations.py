"""The project stands on its own: no tracked file cites the workspace's shared folder beside the
checkout (its study notes and reference data) or an absolute path of this machine. What the
studies need is written in docs/studies/; the one thing taken from the shared folder is the
vendor sources that omnetpp/build.sh builds OMNeT++/INET from, and only the build script, the
two READMEs that explain it and a checksum list may name them. The numbers a study page restates
from its paper are held to the data the tests use (goyal98's Tables 5 and 6)."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.support import REPO

# Built from pieces, so that this file does not cite what it forbids.
SHARED = "shared" + "/"
VENDOR = SHARED + "vendor"
#: The shared folder, except its vendor sources (its spec, reference, notes, ... folders).
OUTSIDE = re.compile(r"(?<![\w-])" + re.escape(SHARED) + r"(?!vendor\b)")
#: An absolute path under the machine's workspace root (not a URL's or a longer path's part).
WORKSPACE = re.compile(r"(?<![\w.~/-])" + re.escape("/" + "work" + "/"))
#: The only files that may name the vendor sources: the build that reads them, the READMEs
#: that say where it looks, and checksum lists of them.
VENDOR_ALLOWED = {"omnetpp/build.sh", "omnetpp/README.md", "README.md"}


def vendor_allowed(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return path in VENDOR_ALLOWED or name == "SHA256SUMS" or name.endswith(".sha256")


def tracked_text_files() -> dict[str, str]:
    """Every file git tracks here that is text (no NUL byte), by its path in the repository."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, timeout=60
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout ({e}): run the tests in a clone of the repository")
    files = {}
    for path in listed.decode().split("\0"):
        file = REPO / path
        if not path or file.is_symlink() or not file.is_file():
            continue  # a deletion not yet committed, or a link to something checked on its own
        data = file.read_bytes()
        if b"\0" not in data[:8192]:
            files[path] = data.decode("utf-8", errors="replace")
    return files


def test_the_listing_finds_the_text_files():
    files = tracked_text_files()
    assert {"README.md", "sim/README.md", "omnetpp/build.sh"} <= files.keys()
    assert "shared" + "/" + "vendor" in files["omnetpp/build.sh"]


def test_no_tracked_file_cites_outside_the_repository():
    found = []
    for path, text in sorted(tracked_text_files().items()):
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line) or WORKSPACE.search(line):
                found.append(f"{path}:{number}: {line.strip()}")
            elif VENDOR in line and not vendor_allowed(path):
                found.append(
                    f"{path}:{number}: {line.strip()} (the vendor sources: only in "
                    f"{', '.join(sorted(VENDOR_ALLOWED))} or a checksum list)"
                )
    assert not found, (
        "cite the project's own pages instead (docs/studies/<study>.md, a section by its "
        "title):\n" + "\n".join(found)
    )


#: A citation of a study page's section: docs/studies/<page>.md, "<title>" (the title may run on
#: over a line break of a comment).
SECTION_CITED = re.compile(r'docs/studies/([\w-]+\.md)`?,\s*"([^"]+)"')
COMMENT_BREAK = re.compile(r"\s*\n\s*(?:///|//|\*|#)?\s*")


def test_every_cited_section_of_a_study_page_is_there():
    studies = REPO / "docs" / "studies"
    headings = {
        page.name: {
            line[3:].strip() for line in page.read_text().splitlines() if line.startswith("## ")
        }
        for page in studies.glob("*.md")
    }
    missing = []
    for path, text in sorted(tracked_text_files().items()):
        for match in SECTION_CITED.finditer(text):
            page, title = match[1], COMMENT_BREAK.sub(" ", match[2])
            if title not in headings.get(page, ()):
                number = text.count("\n", 0, match.start()) + 1
                missing.append(f'{path}:{number}: {page}, "{title}"')
    assert not missing, "no such page or section in docs/studies/:\n" + "\n".join(missing)


# -- goyal98's Tables 5 and 6 on its page against tests/data/goyal98-wan-anova.json -------------

GOYAL98 = REPO / "docs" / "studies" / "goyal98.md"
ANOVA = REPO / "tests" / "data" / "goyal98-wan-anova.json"
SUMMARY_ROWS = {
    "runs n": "n",
    "overall mean": "mean",
    "total variation (SST)": "total_variation",
    "standard error s_e": "standard_error",
    "error degrees of freedom": "error_dof",
}


def page_tables(heading: str) -> list[list[list[str]]]:
    """The Markdown tables of the page's section ``heading``: per table its body rows' cells."""
    text = GOYAL98.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    tables, rows = [], []
    for line in section.splitlines() + [""]:
        if line.startswith("|"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            tables.append(rows[2:])  # without the header and the |---| line
            rows = []
    return tables


def test_goyal98_page_restates_the_papers_analysis_as_the_data_holds_it():
    """Every number of docs/studies/goyal98.md's Tables 5 and 6 is the full-precision value the
    analysis is tested against, rounded as printed: 4 decimals, percentages 2; none missing."""
    anova = json.loads(ANOVA.read_text())
    responses = ["efficiency", "fairness"]
    summary, allocation, effects = page_tables(
        "The paper's analysis of the WAN table (Tables 5 and 6)"
    )

    def near(printed: str, value: float, decimals: int) -> bool:
        return abs(float(printed) - value) <= 0.5 * 10**-decimals + 1e-12

    wrong = []
    assert sorted(row[0] for row in summary) == sorted(SUMMARY_ROWS)
    for label, *cells in summary:
        for response, cell in zip(responses, cells, strict=True):
            value = anova[response][SUMMARY_ROWS[label]]
            if not near(cell, value, 0 if isinstance(value, int) else 4):
                wrong.append(f"{label}, {response}: {cell} (the data: {value})")
    terms = {row[0].replace(" x ", ":"): row[1:] for row in allocation}
    assert terms.keys() == anova["efficiency"]["allocation_percent"].keys()
    for term, cells in terms.items():
        for response, cell in zip(responses, cells, strict=True):
            value = anova[response]["allocation_percent"][term]
            if not near(cell, value, 2):
                wrong.append(f"{term}, {response}: {cell} % (the data: {value})")
    levels = {(row[0], row[1]): row[2:] for row in effects}
    assert levels.keys() == {
        (factor, level) for factor, lv in anova["efficiency"]["effects"].items() for level in lv
    }
    for (factor, level), cells in levels.items():
        for response, (effect, ci) in zip(responses, zip(cells[::2], cells[1::2]), strict=True):
            value = anova[response]["effects"][factor][level]
            low, high = ci.strip("[]").split(",")
            for printed, expected in (
                (effect, value["effect"]),
                (low, value["ci"][0]),
                (high, value["ci"][1]),
            ):
                if not near(printed, expected, 4):
                    wrong.append(f"{factor} {level}, {response}: {printed} (the data: {expected})")
    assert not wrong, f"{GOYAL98.relative_to(REPO)} differs from {ANOVA.relative_to(REPO)}:\n" + (
        "\n".join(wrong)
    )
