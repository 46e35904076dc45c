"""The report as one list of blocks, rendered as Markdown and as HTML, and the text of its
numbers."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

from satsweep.analysis.formatting import significant

__all__ = ["Block", "confidence_label", "html_page", "markdown", "number", "percent", "table"]


def confidence_label(confidence: float) -> str:
    """A confidence level as a percentage: 0.9 -> ``90%``."""
    return f"{round(100 * confidence, 6):g}%"


def percent(value: float | None) -> str:
    """A percentage with two decimals, ``n/a`` when undefined."""
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.2f}"


def number(value: float | None) -> str:
    """A value shown alone (a standard error, a theory's prediction): six significant digits,
    no exponent (:func:`satsweep.analysis.formatting.significant`); ``n/a`` when undefined.
    A value with its interval: :func:`~satsweep.analysis.formatting.with_interval`."""
    return significant(value)


@dataclass(frozen=True)
class Block:
    """One block of a document: a heading, a paragraph, code, a table or an image."""

    kind: str  # "h1".."h4", "p", "code", "table", "img"
    text: str = ""
    header: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()
    align: str = ""  # per column: "l" or "r"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], align: str) -> Block:
    """A table block; ``align`` has one letter per column, ``l`` or ``r``."""
    return Block("table", header=tuple(header), rows=tuple(tuple(r) for r in rows), align=align)


def markdown(blocks: Sequence[Block]) -> str:
    """The blocks as Markdown (pipe tables, image links)."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    out: list[str] = []
    for b in blocks:
        if b.kind.startswith("h"):
            out += ["#" * int(b.kind[1]) + " " + b.text, ""]
        elif b.kind == "p":
            out += [b.text, ""]
        elif b.kind == "code":
            out += ["```", b.text, "```", ""]
        elif b.kind == "img":
            out += [f"![{b.header[0]}]({b.text})", ""]
        elif b.kind == "table":
            out.append("| " + " | ".join(cell(h) for h in b.header) + " |")
            out.append("|" + "|".join("---:" if a == "r" else "---" for a in b.align) + "|")
            out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in b.rows]
            out.append("")
    return "\n".join(out)


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 70em; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.4; }
h1 { border-bottom: 2px solid #444; } h2 { border-bottom: 1px solid #aaa; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; }
th { background: #f0f0f0; } td.r { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
img { max-width: 100%; border: 1px solid #ddd; margin: 0.3em 0 1em; }
pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; }
nav ul { list-style: none; padding-left: 0; columns: 2; }
nav li.d2 { padding-left: 1.2em; } nav li.d3 { padding-left: 2.4em; font-size: 0.92em; }
"""

#: What the table of contents lists: the sections (h2, h3) and the figures, by depth.
_CONTENTS_DEPTH = {"h2": 1, "h3": 2}


def _contents(blocks: Sequence[Block]) -> tuple[dict[int, str], list[str]]:
    """The anchors of the blocks the table of contents links (block index -> id) and its HTML:
    every section (h2, h3) and every figure, a figure one level under its section."""
    e = html.escape
    anchors: dict[int, str] = {}
    items: list[str] = []
    depth = 0
    for i, b in enumerate(blocks):
        if b.kind in _CONTENTS_DEPTH:
            depth, text = _CONTENTS_DEPTH[b.kind], b.text
        elif b.kind == "img":
            text = f"Figure: {b.header[0]}"
        else:
            continue
        anchors[i] = f"c{len(anchors) + 1}"
        level = depth if b.kind != "img" else min(depth + 1, 3)
        items.append(f'<li class="d{level}"><a href="#{anchors[i]}">{e(text)}</a></li>')
    if not items:
        return {}, []
    return anchors, ['<nav id="contents"><h2>Contents</h2><ul>', *items, "</ul></nav>"]


def html_page(title: str, blocks: Sequence[Block]) -> str:
    """The blocks as one self-contained HTML page: inline CSS, nothing fetched from elsewhere;
    a table of contents after the first heading (before everything without one) linking
    every section and figure."""
    e = html.escape
    anchors, contents = _contents(blocks)
    out = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{e(title)}</title>",
        f"<style>{_CSS}</style>",
        "</head>",
        "<body>",
    ]
    if not blocks or blocks[0].kind != "h1":
        out += contents
    for i, b in enumerate(blocks):
        anchor = f' id="{anchors[i]}"' if i in anchors else ""
        if b.kind.startswith("h"):
            out.append(f"<{b.kind}{anchor}>{e(b.text)}</{b.kind}>")
            if i == 0 and b.kind == "h1":
                out += contents
        elif b.kind == "p":
            out.append(f"<p>{e(b.text)}</p>")
        elif b.kind == "code":
            out.append(f"<pre><code>{e(b.text)}</code></pre>")
        elif b.kind == "img":
            out.append(f'<p{anchor}><img src="{e(b.text)}" alt="{e(b.header[0])}"></p>')
        elif b.kind == "table":
            out.append("<table>")
            out.append("<tr>" + "".join(f"<th>{e(h)}</th>" for h in b.header) + "</tr>")
            for row in b.rows:
                tds = (f'<td class="{a}">{e(c)}</td>' for c, a in zip(row, b.align, strict=False))
                out.append("<tr>" + "".join(tds) + "</tr>")
            out.append("</table>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)
