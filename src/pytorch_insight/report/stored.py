"""The report of a window from the items the store holds: the one path the `report` command, the
MCP server and delivery take from stored items to a report document."""

from __future__ import annotations

from pytorch_insight.config import Profile, Reader
from pytorch_insight.errors import NoItemsError
from pytorch_insight.model import Item
from pytorch_insight.pipeline import assess
from pytorch_insight.report.asof import items_as_of_end
from pytorch_insight.report.build import ReportOptions, build_report
from pytorch_insight.report.followup import follow_up
from pytorch_insight.report.model import Report
from pytorch_insight.store import Store
from pytorch_insight.window import Window


def stored_report(
    store: Store, window: Window, profile: Profile, reader: Reader, options: ReportOptions, *, follow: bool = True
) -> tuple[Report, list[Item]]:
    """The window's report and the stored items it was built from; with `follow` it opens with the
    follow-up of the previous window's report (rebuilt by the rules when none was recorded).
    NoItemsError when the store holds no item of the window."""
    # As the world stood at the window's end: a report of a past week never shows a merge, a
    # close or a comment that came after it (the follow-up of the next week reports those).
    items = items_as_of_end(store, window)
    if not items:
        raise NoItemsError(f"no items stored for {window.since} – {window.until}: run `collect` or `import` first")
    ranked = assess(items, profile, reader.id, window=window)
    report = build_report(
        ranked,
        window=window,
        profile=profile,
        reader=reader,
        statuses=store.latest_statuses(window),
        collected=len(items),
        options=options,
        follow_up=follow_up(store, ranked, window, profile, reader, options) if follow else None,
    )
    return report, items
