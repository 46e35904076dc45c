"""The link presets (WAN, MEO, GEO) live in sim/helper/link-preset.h; satnet's --describe says
them (help texts built from the table, the cost hint). What repeats them for reading must say the
same: sim/README.md's table and the OMNeT++ declaration's help texts (omnetpp/goyal98/)."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.support import REPO

pytestmark = pytest.mark.programs

#: satnet's parameters whose help says a value per link: "(wan ..., meo ..., geo ...)"
PER_LINK = ("link", "delay", "mss", "window", "ssthresh", "bufferRtt")
LINKS = ("wan", "meo", "geo")


def per_link(help_text: str) -> dict[str, str]:
    """The values a help text gives per link, by link: '(wan 5 ms, meo 100 ms, geo 275 ms)'
    gives {'wan': '5 ms', ...}."""
    found = re.search(r"\((wan [^)]*)\)", help_text)
    assert found, help_text
    values = dict(part.split(" ", 1) for part in found.group(1).split(", "))
    assert tuple(values) == LINKS, help_text
    return values


def number(text: str) -> float:
    """A number as the texts write it: '2,097,120', '0.275 s' (the unit of the last link)."""
    return float(text.replace(",", "").removesuffix(" s"))


@pytest.fixture(scope="module")
def presets(satnet) -> dict[str, dict[str, object]]:
    """Each link's preset as satnet --describe says it."""
    helps = {p.name: per_link(p.help) for p in satnet.description.parameters if p.name in PER_LINK}
    cost = satnet.description.cost
    assert cost is not None and cost.by == "link"
    return {
        link: {
            "delay_s": number(helps["delay"][link]),
            "delay_ms": number(helps["link"][link].removesuffix(" ms")),
            "mss": int(helps["mss"][link]),
            "window": int(helps["window"][link]),
            "ssthresh": int(helps["ssthresh"][link]),
            "buffers": [int(cells) for cells in helps["bufferRtt"][link].split(" / ")],
            "cost": cost.seconds[link],
        }
        for link in LINKS
    }


def test_presets_as_satnet_says_them(presets):
    """The parse above reads what the table holds (a check of the check)."""
    assert presets["geo"]["delay_ms"] == 275 and presets["geo"]["delay_s"] == 0.275
    assert presets["wan"]["buffers"] == [531, 1062, 2300]


def test_readme_table_is_the_code(presets):
    readme = (REPO / "sim" / "README.md").read_text()
    section = readme[readme.index("### Link presets") :]
    rows = re.findall(r"^\| (wan|meo|geo) \|(.*)\|$", section, flags=re.M)
    assert [link for link, _ in rows] == list(LINKS)
    for link, cells in rows:
        delay, mss, window, ssthresh, buffers, cost = (c.strip() for c in cells.split("|"))
        window_bytes, scale = re.fullmatch(r"([\d,]+) B \((\d+)\)", window).groups()
        preset = presets[link]
        # the scale RFC 7323 needs for the window: the smallest s with 65535 x 2^s >= window
        needed = next(s for s in range(15) if 65535 << s >= preset["window"])
        assert {
            "delay_ms": number(delay.removesuffix(" ms")),
            "mss": int(mss.removesuffix(" B")),
            "window": int(number(window_bytes)),
            "scale": int(scale),
            "ssthresh": int(number(ssthresh.removesuffix(" B"))),
            "buffers": [int(b) for b in buffers.split(" / ")],
            "cost": float(cost),
        } == {
            "delay_ms": preset["delay_ms"],
            "mss": preset["mss"],
            "window": preset["window"],
            "scale": needed,
            "ssthresh": preset["ssthresh"],
            "buffers": preset["buffers"],
            "cost": preset["cost"],
        }, link


def test_omnetpp_declaration_says_satnets_presets(satnet):
    """omnetpp/goyal98/satsweep.yaml's help texts repeat the presets (the model itself reads the
    table through LinkPresets.cc): the same numbers as satnet's."""
    declared = yaml.safe_load((REPO / "omnetpp" / "goyal98" / "satsweep.yaml").read_text())
    ours = {p["name"]: per_link(p["help"]) for p in declared["parameters"] if p["name"] in PER_LINK}
    theirs = {p.name: per_link(p.help) for p in satnet.description.parameters if p.name in PER_LINK}
    assert ours == theirs
