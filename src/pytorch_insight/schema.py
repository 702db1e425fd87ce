"""Table definitions and the named migrations that create and evolve them.

SQLAlchemy Core keeps the SQL portable: the same tables work on SQLite (the default) and on
PostgreSQL through a database URL.
"""

from collections.abc import Callable
from datetime import timezone
from typing import Any

from sqlalchemy import (
    JSON,
    Column,
    Connection,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    select,
    text,
    update,
)

from pytorch_insight.window import parse_timestamp

metadata = MetaData()

# Every timestamp column holds this one UTC form, so that comparing the strings in SQL compares the
# instants: "2026-04-13T20:00:00-08:00" sorts before "2026-04-14" as text but is later in time.
UTC_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

schema_migrations = Table(
    "schema_migrations",
    metadata,
    Column("name", String(200), primary_key=True),
    Column("applied_at", String(40), nullable=False),
)

items = Table(
    "items",
    metadata,
    Column("id", String(500), primary_key=True),
    Column("source", String(100), nullable=False),
    Column("kind", String(40), nullable=False),
    Column("repo", String(300)),
    Column("number", Integer),
    Column("url", Text),
    Column("title", Text),
    Column("author", String(200)),
    Column("state", String(40)),
    Column("created", String(40)),
    Column("updated", String(40)),
    Column("closed", String(40)),
    Column("merged", String(40)),
    Column("data", JSON, nullable=False),
    Column("stored_at", String(40), nullable=False),
)

payloads = Table(
    "payloads",
    metadata,
    Column("item_id", String(500), primary_key=True),
    Column("payload", JSON, nullable=False),
    Column("stored_at", String(40), nullable=False),
)


def _run_columns() -> list[Column[Any]]:
    """The runs columns as first released; migration 0001 creates exactly these."""
    return [
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("command", String(40), nullable=False),
        Column("profile", String(200), nullable=False),
        Column("since", String(10)),
        Column("until", String(10)),
        Column("arguments", JSON, nullable=False),
        Column("started_at", String(40), nullable=False),
        Column("finished_at", String(40)),
        Column("status", String(20), nullable=False),
        Column("requests", Integer, nullable=False, default=0),
        Column("note", Text, nullable=False, default=""),
    ]


runs = Table(
    "runs",
    metadata,
    *_run_columns(),
    # Who runs it, so the next start can tell a run whose process died (kill -9) from a live one.
    Column("pid", Integer),
    Column("host", String(255)),
)
_first_release_runs = Table("runs", MetaData(), *_run_columns())

source_status = Table(
    "source_status",
    metadata,
    Column("run_id", Integer, nullable=False),
    Column("source", String(100), nullable=False),
    Column("status", String(20), nullable=False),
    Column("items", Integer, nullable=False),
    Column("requests", Integer, nullable=False),
    Column("not_modified", Integer, nullable=False),
    Column("note", Text, nullable=False),
    Column("since", String(10)),
    Column("until", String(10)),
    UniqueConstraint("run_id", "source"),
)

http_cache = Table(
    "http_cache",
    metadata,
    Column("url", String(2000), primary_key=True),
    Column("etag", String(500)),
    Column("last_modified", String(100)),
    Column("body", Text, nullable=False),
    Column("links", JSON, nullable=False),
    Column("stored_at", String(40), nullable=False),
)


llm_cache = Table(
    "llm_cache",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("model", String(200), nullable=False),
    Column("answer", Text, nullable=False),
    Column("tokens_in", Integer, nullable=False),
    Column("tokens_out", Integer, nullable=False),
    Column("stored_at", String(40), nullable=False),
)

llm_calls = Table(
    "llm_calls",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("model", String(200), nullable=False),
    Column("prompt_hash", String(64), nullable=False),
    Column("purpose", String(200), nullable=False),
    Column("tokens_in", Integer, nullable=False),
    Column("tokens_out", Integer, nullable=False),
    Column("duration_ms", Integer, nullable=False),
    Column("outcome", String(200), nullable=False),
    Column("at", String(40), nullable=False),
)

# What each report showed (lang-independent), so the next window's report can follow it up.
report_snapshots = Table(
    "report_snapshots",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("profile", String(200), nullable=False),
    Column("reader", String(200), nullable=False),
    Column("since", String(10), nullable=False),
    Column("until", String(10), nullable=False),
    Column("generated_at", String(40), nullable=False),
    Column("focus", JSON, nullable=False),
    Column("areas", JSON, nullable=False),
    Column("stored_at", String(40), nullable=False),
    UniqueConstraint("profile", "reader", "since", "until"),
)

# One row per attempt to send a window's report to a delivery target; a `sent` row keeps a re-run
# from sending it again. No secret is stored: the note is redacted, the target is its name.
deliveries = Table(
    "deliveries",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("target", String(100), nullable=False),
    Column("kind", String(20), nullable=False),
    Column("since", String(10), nullable=False),
    Column("until", String(10), nullable=False),
    Column("profile", String(200), nullable=False),
    Column("reader", String(200), nullable=False),
    Column("lang", String(10), nullable=False),
    Column("digest", String(64), nullable=False),
    Column("status", String(20), nullable=False),
    Column("note", Text, nullable=False),
    Column("at", String(40), nullable=False),
    Index("ix_deliveries_window", "target", "since", "until"),
)


def utc_column(moment: str | None) -> str | None:
    """A stored timestamp (with any offset, or a bare date) in the UTC form the columns hold."""
    parsed = parse_timestamp(moment)
    return parsed.astimezone(timezone.utc).strftime(UTC_FORMAT) if parsed else moment


def _initial(connection: Connection) -> None:
    # The tables as first released: runs without the owner columns 0005 adds, items without the
    # activity columns 0002 adds. Creating only what is missing keeps the step idempotent; the
    # migration lock already serialises it, this only makes a repeat harmless.
    _create(connection, payloads, _first_release_runs, source_status, http_cache)
    connection.execute(
        text(
            "CREATE TABLE IF NOT EXISTS items (id VARCHAR(500) PRIMARY KEY, source VARCHAR(100) NOT NULL,"
            " kind VARCHAR(40) NOT NULL, repo VARCHAR(300), number INTEGER, url TEXT, title TEXT,"
            " author VARCHAR(200), state VARCHAR(40),"
            " created VARCHAR(40), updated VARCHAR(40), data JSON NOT NULL, stored_at VARCHAR(40) NOT NULL)"
        )
    )


def _activity_columns(connection: Connection) -> None:
    """Close and merge times as columns, so a window's items are selected in SQL."""
    connection.execute(text("ALTER TABLE items ADD COLUMN closed VARCHAR(40)"))
    connection.execute(text("ALTER TABLE items ADD COLUMN merged VARCHAR(40)"))
    rows = connection.execute(select(items.c.id, items.c.data)).all()
    for row in rows:
        connection.execute(
            update(items)
            .where(items.c.id == row.id)
            .values(closed=row.data.get("closed"), merged=row.data.get("merged"))
        )
    Index("ix_items_created", items.c.created).create(connection)


def _utc_columns(connection: Connection) -> None:
    """Rewrite the timestamp columns stored as given (with offsets) in the one UTC form."""
    columns = (items.c.created, items.c.updated, items.c.closed, items.c.merged)
    for row in connection.execute(select(items.c.id, *columns)).all():
        values = {column.name: utc_column(getattr(row, column.name)) for column in columns}
        if any(values[column.name] != getattr(row, column.name) for column in columns):
            connection.execute(update(items).where(items.c.id == row.id).values(**values))


def _run_owner_columns(connection: Connection) -> None:
    connection.execute(text("ALTER TABLE runs ADD COLUMN pid INTEGER"))
    connection.execute(text("ALTER TABLE runs ADD COLUMN host VARCHAR(255)"))


def _create(connection: Connection, *tables: Table) -> None:
    for table in tables:
        table.create(connection, checkfirst=True)


# Append only: a migration, once released, never changes what it creates; a change is a new named
# entry. (0001 and 0003 were made idempotent later: same tables, but a repeat is now harmless.)
MIGRATIONS: list[tuple[str, Callable[[Connection], None]]] = [
    ("0001_initial", _initial),
    ("0002_item_activity_columns", _activity_columns),
    ("0003_llm_cache_and_ledger", lambda connection: _create(connection, llm_cache, llm_calls)),
    ("0004_utc_timestamp_columns", _utc_columns),
    ("0005_run_owner_columns", _run_owner_columns),
    ("0006_report_snapshots", lambda connection: _create(connection, report_snapshots)),
    ("0007_deliveries", lambda connection: _create(connection, deliveries)),
]
