"""Inline SVG bar charts: no script, no external request; colours come from the page's CSS so the
charts follow light mode, dark mode and print.

Each chart is a legend (what the colours mean) above one row per category: the category's label,
then its bar and value. The label sits above its bar so that it may use the chart's full width,
and the chart is narrow (WIDTH user units) so that, scaled to a phone's width, its text stays
readable. A label wider than the chart is shortened with an ellipsis; its full text is then in a
<title> (the tooltip) and in the bars' titles. The SVG has a viewBox and no fixed size: the page's
CSS makes it as wide as its container, at most WIDTH pixels (its natural size)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from html import escape

from pytorch_insight.report.model import ActivityGroup, AreaCoverage

WIDTH = 400  # user units; also the largest width on the page, in CSS pixels
LABEL_SIZE = 13  # font sizes in user units; the page's CSS sets the same (.chart .label ...)
VALUE_SIZE = 12
LEGEND_SIZE = 12
SWATCH = 11
LEGEND_GAP = 16
LEGEND_LINE = 20
LABEL_LINE = 17  # from a row's top to its label's baseline
BAR_TOP = 22  # from a row's top to its bar
BAR_HEIGHT = 14
ROW = 44  # one row: label, bar, gap
VALUE_ROOM = 44  # room right of the longest bar for its value
PLOT_WIDTH = WIDTH - VALUE_ROOM
PRIORITIES = ("high", "medium", "low")
ELLIPSIS = "…"


def _char_width(char: str) -> float:
    """A generous estimate of one character's advance, in ems, for the sans-serif fonts of the
    page's font stack: wide (CJK, full-width) characters are one em; Latin letters less."""
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 1.0
    if char in " .,:;!|'`ilIjtf()[]/\\":
        return 0.36
    if char in "MWmw@%&":
        return 0.92
    if char.isupper() or char.isdigit():
        return 0.7
    return 0.6


def text_width(text: str, size: float) -> float:
    """The estimated width of `text` at font size `size`, in the same units as `size`."""
    return sum(_char_width(char) for char in text) * size


def fit_text(text: str, size: float, budget: float) -> str:
    """`text` if it fits in `budget`, else its longest prefix that fits followed by an ellipsis."""
    if text_width(text, size) <= budget:
        return text
    room = budget - text_width(ELLIPSIS, size)
    used, end = 0.0, 0
    for end, char in enumerate(text):  # noqa: B007 (end is read after the loop)
        used += _char_width(char) * size
        if used > room:
            break
    return text[:end].rstrip() + ELLIPSIS


def _text(css: str, x: float, y: float, text: str, size: float, budget: float) -> str:
    """One line of text shortened to `budget`; a shortened line carries its full text as a tooltip."""
    shown = fit_text(text, size, budget)
    tooltip = f"<title>{escape(text)}</title>" if shown != text else ""
    return f'<text class="{css}" x="{x:.1f}" y="{y:.1f}">{tooltip}{escape(shown)}</text>'


def _legend(entries: Sequence[tuple[str, str]]) -> tuple[list[str], float]:
    """The legend, as many lines as the entries need: a colour swatch and its meaning each.
    Returns the SVG elements and the height they take."""
    body = ['<g class="legend">']
    x, line = 0.0, 0
    for css, text in entries:
        width = SWATCH + 5 + min(text_width(text, LEGEND_SIZE), WIDTH - SWATCH - 5)
        if x and x + width > WIDTH:
            x, line = 0.0, line + 1
        top = line * LEGEND_LINE
        body.append(f'<rect class="{css}" x="{x:.1f}" y="{top + 3}" width="{SWATCH}" height="{SWATCH}" rx="2"/>')
        body.append(_text("legend-text", x + SWATCH + 5, top + 13, text, LEGEND_SIZE, WIDTH - x - SWATCH - 5))
        x += width + LEGEND_GAP
    body.append("</g>")
    return body, (line + 1) * LEGEND_LINE + 6


def _frame(
    title: str, legend: Sequence[tuple[str, str]], rows: Sequence[tuple[str, list[tuple[str, int, str]], int]]
) -> str:
    """The chart: `rows` are (label, [(css class, count, tooltip)...], total), bars stacked left to right."""
    body, top = _legend(legend)
    scale = PLOT_WIDTH / max([total for _, _, total in rows] + [1])
    for index, (label, segments, total) in enumerate(rows):
        y = top + index * ROW
        body.append('<g class="row">')
        body.append(_text("label", 0, y + LABEL_LINE, label, LABEL_SIZE, WIDTH))
        x = 0.0
        for css, count, tooltip in segments:
            if count:
                width = count * scale
                body.append(
                    f'<rect class="{css}" x="{x:.1f}" y="{y + BAR_TOP}" width="{width:.1f}" height="{BAR_HEIGHT}">'
                    f"<title>{escape(tooltip)}</title></rect>"
                )
                x += width
        body.append(f'<text class="value" x="{x + 5:.1f}" y="{y + BAR_TOP + BAR_HEIGHT - 2}">{total}</text>')
        body.append("</g>")
    height = top + len(rows) * ROW
    return (
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height}" width="100%" style="max-width: {WIDTH}px" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>{"".join(body)}</svg>'
    )


def area_chart(areas: Sequence[AreaCoverage], title: str, legend: Mapping[str, str] | None = None) -> str:
    """One stacked bar per area: high, medium and low items; `legend` names each priority."""
    names = {priority: (legend or {}).get(priority, priority) for priority in PRIORITIES}
    rows = []
    for area in areas:
        if not area.items:
            continue
        counts = (len(area.high), area.medium, area.low)
        segments = [
            (f"bar-{priority}", count, f"{area.name}: {count} {names[priority]}")
            for priority, count in zip(PRIORITIES, counts, strict=True)
        ]
        rows.append((area.name, segments, area.items))
    return _frame(title, [(f"bar-{priority}", names[priority]) for priority in PRIORITIES], rows)


def activity_chart(groups: Sequence[ActivityGroup], title: str, legend: str = "items") -> str:
    """One bar per type of item; `legend` says what the bars count."""
    rows = [
        (group.label, [("bar-activity", group.count, f"{group.label}: {group.count}")], group.count) for group in groups
    ]
    return _frame(title, [("bar-activity", legend)], rows)
