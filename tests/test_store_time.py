"""Time columns hold UTC, so windows and export days are UTC days whatever offset a source used."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import create_engine, insert, select, text

from pytorch_insight.model import Item
from pytorch_insight.schema import MIGRATIONS, items, schema_migrations
from pytorch_insight.store import Store, database_url
from pytorch_insight.window import make_window, parse_timestamp

# 20:00 on the 13th in UTC-8 is 04:00 on the 14th in UTC.
PACIFIC_EVENING = "2026-04-13T20:00:00-08:00"


def item(number: int, **times: str) -> Item:
    return Item(id=f"github:o/r#{number}", source="github", kind="issue", repo="o/r", number=number, **times)


def columns(db: str) -> dict[str, tuple[str | None, ...]]:
    engine = create_engine(database_url(db))
    with engine.connect() as connection:
        rows = connection.execute(select(items.c.id, items.c.created, items.c.updated, items.c.closed, items.c.merged))
        found = {row.id: tuple(row)[1:] for row in rows}
    engine.dispose()
    return found


@pytest.fixture
def path(any_db: str) -> str:
    """Every test here runs on a SQLite file and on a PostgreSQL database."""
    return any_db


def test_time_columns_hold_utc_whatever_offset_the_item_has(path: str) -> None:
    store = Store.open(path)
    store.save_items(
        [
            item(
                1,
                created="2026-04-08T10:00:00-08:00",
                updated="2026-04-09T01:30:00.250+05:30",
                closed="2026-04-09T00:15:00+00:00",
                merged="2026-04-10",
            )
        ]
    )
    assert columns(path)["github:o/r#1"] == (
        "2026-04-08T18:00:00Z",
        "2026-04-08T20:00:00Z",
        "2026-04-09T00:15:00Z",
        "2026-04-10T00:00:00Z",
    )
    # The item itself may keep the text as given or in UTC: the same instant either way.
    stored = store.get_items(["github:o/r#1"])["github:o/r#1"].created
    assert parse_timestamp(stored) == parse_timestamp("2026-04-08T10:00:00-08:00")


def test_an_item_belongs_to_the_window_of_its_utc_day(path: str) -> None:
    store = Store.open(path)
    store.save_items(
        [
            item(1, created=PACIFIC_EVENING),
            item(2, created="2026-03-01T00:00:00Z", closed="2026-04-07T03:00:00+05:00"),  # the 6th in UTC
            item(3, created="2026-03-01T00:00:00Z", merged="2026-04-14T01:00:00+02:00"),  # the 13th in UTC
        ]
    )
    assert [i.number for i in store.items_in_window(make_window("2026-04-14", "2026-04-20"))] == [1]
    assert [i.number for i in store.items_in_window(make_window("2026-04-07", "2026-04-13"))] == [3]
    assert [i.number for i in store.items_in_window(make_window("2026-04-06", "2026-04-06"))] == [2]


def test_export_days_are_utc_days(path: str) -> None:
    store = Store.open(path)
    store.save_items([item(1, created=PACIFIC_EVENING), item(2, created="2026-04-14T23:30:00-01:00")])
    assert [i.number for i in store.iter_items("2026-04-14", "2026-04-14")] == [1]
    assert [i.number for i in store.iter_items(None, "2026-04-13")] == []
    assert [i.number for i in store.iter_items("2026-04-15", None)] == [2]


def test_upgrading_rewrites_columns_stored_with_offsets(path: str) -> None:
    """A database written before 0004 kept the text as given; the upgrade puts its columns in UTC."""
    engine = create_engine(database_url(path))
    schema_migrations.create(engine)
    with engine.begin() as connection:
        for name, step in MIGRATIONS[:3]:
            step(connection)
            connection.execute(insert(schema_migrations).values(name=name, applied_at="2026-04-01T00:00:00Z"))
        connection.execute(
            text(
                "INSERT INTO items (id, source, kind, created, closed, data, stored_at) VALUES "
                "('github:o/r#1', 'github', 'issue', :created, NULL, :data, 'then')"
            ),
            {
                "created": PACIFIC_EVENING,
                "data": json.dumps(
                    {"id": "github:o/r#1", "source": "github", "kind": "issue", "created": PACIFIC_EVENING}
                ),
            },
        )
    engine.dispose()

    store = Store.open(path)

    assert columns(path)["github:o/r#1"] == ("2026-04-14T04:00:00Z", None, None, None)
    assert [i.id for i in store.iter_items("2026-04-14", "2026-04-14")] == ["github:o/r#1"]
    assert [i.id for i in store.items_in_window(make_window("2026-04-14", "2026-04-14"))] == ["github:o/r#1"]


def test_the_window_query_agrees_with_the_model_on_every_item(path: str) -> None:
    """SQL only narrows the search: what counts as activity in a window is `Item.active_in`'s call."""
    stored = [
        item(1, created=PACIFIC_EVENING),
        item(2, created="2026-03-01T00:00:00Z", closed="2026-04-07T03:00:00+05:00"),
        item(3, created="2026-03-01T00:00:00Z", updated="2026-04-09T00:00:00Z"),
        item(4, created="2026-04-20", merged="2026-04-21T01:00:00+03:00"),
        Item(
            id="forum:t/1",
            source="forum",
            kind="forum",
            created="2026-03-01T00:00:00Z",
            updated="2026-04-15T08:00:00-04:00",
            comments=[{"author": "a", "date": "2026-04-10T12:00:00Z", "body": "a reply in the window"}],
        ),
        Item(
            id="event:e/1",
            source="events",
            kind="event",
            created="2026-06-01T09:00:00-07:00",
            announced="2026-04-09T10:00:00Z",
        ),
    ]
    store = Store.open(path)
    store.save_items(stored)
    for since, until in [("2026-04-07", "2026-04-13"), ("2026-04-14", "2026-04-20"), ("2026-04-06", "2026-04-06")]:
        window = make_window(since, until)
        expected = sorted(i.id for i in stored if i.active_in(window))
        assert [i.id for i in store.items_in_window(window)] == expected, window
