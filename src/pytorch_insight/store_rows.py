"""How the store's rows are written and read: portable upserts, an item's row and the queries that
select a window's or some days' items by their time columns."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from typing import Any

from sqlalchemy import Column, Connection, Select, and_, bindparam, insert, or_, select, update

from pytorch_insight.model import Item, SourceStatus
from pytorch_insight.schema import UTC_FORMAT, items, utc_column
from pytorch_insight.window import Window


def utcnow() -> str:
    """Now, in the one UTC form the time columns hold."""
    return datetime.now(timezone.utc).strftime(UTC_FORMAT)


def upsert(connection: Connection, key_column: Column[Any], key: Any, values: dict[str, Any]) -> None:
    """Update the row with this key, or insert it: portable SQL, no dialect-specific ON CONFLICT.

    Safe under concurrency because it runs inside Store._write (serialised on SQLite; on PostgreSQL
    the UPDATE waits for a concurrent writer of the row, and a lost insert race is retried).
    """
    table = key_column.table
    if connection.execute(update(table).where(key_column == key).values(**values)).rowcount == 0:
        connection.execute(insert(table).values({key_column.name: key, **values}))


def insert_or_update(
    connection: Connection, key_column: Column[Any], rows: dict[Any, dict[str, Any]], stored: set[Any]
) -> None:
    """Write `rows` by key: an executemany UPDATE of the keys already `stored`, one of INSERT for the rest."""
    table = key_column.table
    new = [{key_column.name: key, **values} for key, values in rows.items() if key not in stored]
    again = [{"stored_key": key, **values} for key, values in rows.items() if key in stored]
    if new:
        connection.execute(insert(table), new)
    if again:
        connection.execute(update(table).where(key_column == bindparam("stored_key")), again)


def status_from_row(row: Any) -> SourceStatus:
    return SourceStatus(
        name=row.source,
        status=row.status,
        items=row.items,
        requests=row.requests,
        not_modified=row.not_modified,
        note=row.note,
    )


# The optional fields' defaults, made once: pydantic inspects a default factory's signature each
# time it makes a default (0.3 ms a field), 2 s of reading a 3,500-item window back.
DEFAULTS = {
    name: field.get_default(call_default_factory=True)
    for name, field in Item.model_fields.items()
    if not field.is_required()
}


def stored_item(data: dict[str, Any]) -> Item:
    """An item from its stored JSON, which spells out every field, the empty ones too. Those are
    left to their defaults: pydantic keeps a set of the fields given per item (2 KB for all
    twenty, a fifth of what a window's item costs `report`), and nothing reads it."""
    return Item.model_validate({key: value for key, value in data.items() if not _default(key, value)})


def _default(key: str, value: Any) -> bool:
    return key in DEFAULTS and value == DEFAULTS[key]


def item_row(item: Item, now: str) -> dict[str, Any]:
    data = item.model_dump(mode="json")  # unknown (extra) fields are included
    return {
        "source": item.source,
        "kind": item.kind,
        "repo": item.repo,
        "number": item.number,
        "url": item.url,
        "title": item.title,
        "author": item.author,
        "state": item.state,
        # The JSON holds the times as the item has them; the columns the queries compare hold
        # them in one UTC form, whatever offset a source gave.
        "created": utc_column(item.created),
        "updated": utc_column(item.updated),
        "closed": utc_column(item.closed),
        "merged": utc_column(item.merged),
        "data": data,
        "stored_at": now,
    }


def id_order(dialect: str) -> Any:
    """Ids in code point order, as SQLite sorts them: PostgreSQL would otherwise follow the
    database's locale, which can put "github:o/r#10" after "github:O/r#3"."""
    return items.c.id.collate("C") if dialect == "postgresql" else items.c.id


def window_candidates(window: Window, dialect: str) -> Select[Any]:
    """Every item that may be active in the window, for `Item.active_in` to decide exactly.

    The time columns hold one UTC form (schema.UTC_FORMAT), so string bounds compare instants
    (under any collation: the strings differ only in their digits).
    """
    start, end = window.start.strftime(UTC_FORMAT), window.end.strftime(UTC_FORMAT)
    return (
        select(items.c.data)
        .order_by(id_order(dialect))
        .where(
            or_(
                *(and_(column >= start, column < end) for column in (items.c.created, items.c.closed, items.c.merged)),
                # Discussions (forum topics, Slack threads) are also active through replies, which
                # come after they began and by their last activity (`updated`).
                and_(items.c.updated >= start, or_(items.c.created.is_(None), items.c.created < end)),
                # Events also count on the day they were announced (kept in the item's JSON only),
                # which is before they take place (`created`).
                and_(items.c.kind == "event", items.c.created >= start),
            )
        )
    )


def day_start(day: str, later: int = 0) -> str:
    """The first instant of a UTC day (`later` days on), in the form the time columns hold."""
    start = datetime.combine(date.fromisoformat(day) + timedelta(days=later), time.min, tzinfo=timezone.utc)
    return start.strftime(UTC_FORMAT)
