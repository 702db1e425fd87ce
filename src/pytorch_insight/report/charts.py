"""Inline SVG bar charts: no script, no external request; colours come from the page's CSS so the
charts follow light mode, dark mode and print."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from pytorch_insight.report.model import ActivityGroup, AreaCoverage

BAR_HEIGHT = 18
GAP = 6
LABEL_WIDTH = 190
PLOT_WIDTH = 360
PRIORITIES = ("high", "medium", "low")


def _frame(title: str, rows: int, body: list[str]) -> str:
    height = rows * (BAR_HEIGHT + GAP) + GAP
    width = LABEL_WIDTH + PLOT_WIDTH + 60
    return (
        f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>{"".join(body)}</svg>'
    )


def _label(y: float, text: str) -> str:
    return f'<text class="label" x="{LABEL_WIDTH - 8}" y="{y + BAR_HEIGHT * 0.72:.1f}" text-anchor="end">{escape(text)}</text>'


def area_chart(areas: Sequence[AreaCoverage], title: str) -> str:
    """One stacked bar per area: high, medium and low items."""
    shown = [a for a in areas if a.items]
    scale = PLOT_WIDTH / max([a.items for a in shown] + [1])
    body = []
    for index, area in enumerate(shown):
        y = GAP + index * (BAR_HEIGHT + GAP)
        body.append(_label(y, area.name))
        x = float(LABEL_WIDTH)
        for priority, count in zip(PRIORITIES, (len(area.high), area.medium, area.low), strict=True):
            if count:
                width = count * scale
                body.append(
                    f'<rect class="bar-{priority}" x="{x:.1f}" y="{y}" width="{width:.1f}" height="{BAR_HEIGHT}">'
                    f"<title>{escape(area.name)}: {count} {priority}</title></rect>"
                )
                x += width
        body.append(f'<text class="value" x="{x + 4:.1f}" y="{y + BAR_HEIGHT * 0.72:.1f}">{area.items}</text>')
    return _frame(title, len(shown), body)


def activity_chart(groups: Sequence[ActivityGroup], title: str) -> str:
    """One bar per type of item."""
    scale = PLOT_WIDTH / max([g.count for g in groups] + [1])
    body = []
    for index, group in enumerate(groups):
        y = GAP + index * (BAR_HEIGHT + GAP)
        width = group.count * scale
        body.append(_label(y, group.label))
        body.append(f'<rect class="bar-activity" x="{LABEL_WIDTH}" y="{y}" width="{width:.1f}" height="{BAR_HEIGHT}"/>')
        body.append(
            f'<text class="value" x="{LABEL_WIDTH + width + 4:.1f}" y="{y + BAR_HEIGHT * 0.72:.1f}">{group.count}</text>'
        )
    return _frame(title, len(groups), body)
