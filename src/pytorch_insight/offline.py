"""`run --offline FILE`: a first report with no network. The items come from a JSONL file (the
format `export` writes, e.g. tests/data/raw/ in a clone) instead of the sources, and without
--since/--until the window is the last week the file has activity in, not last week: a recorded
file is about its own weeks, and a report of an empty week would teach a newcomer nothing."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from pytorch_insight.clock import utc_today
from pytorch_insight.errors import ImportFormatError
from pytorch_insight.jsonl import read_items
from pytorch_insight.model import Item
from pytorch_insight.window import Window, make_window, parse_timestamp


def last_active_day(path: Path, today: date | None = None) -> date:
    """The last day, today at the latest, on which an item of the file was active."""
    today = today or utc_today()
    latest: date | None = None
    try:
        with path.open("rb") as handle:
            for _, parsed in read_items(handle):
                if not isinstance(parsed, Item):
                    continue  # the import names the bad lines; they place nothing
                for moment in parsed.activity():
                    when = parse_timestamp(moment)
                    day = when.date() if when else None
                    if day is not None and day <= today and (latest is None or day > latest):
                        latest = day
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror}") from None
    if latest is None:
        raise ImportFormatError(f"{path} holds no item with a date to report on")
    return latest


def offline_window(path: Path, since: str | None, until: str | None, today: date | None = None) -> Window:
    """The window asked for, or the 7 days that end on the file's last active day."""
    if since or until:
        return make_window(since, until, today)
    return make_window(None, last_active_day(path, today).isoformat(), today)
