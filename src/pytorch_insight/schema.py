"""Table definitions and the named migrations that create and evolve them.

SQLAlchemy Core keeps the SQL portable: the same tables work on SQLite (the default) and on
PostgreSQL through a database URL.
"""

from collections.abc import Callable

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

metadata = MetaData()

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

runs = Table(
    "runs",
    metadata,
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
)

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


def _initial(connection: Connection) -> None:
    _create(connection, payloads, runs, source_status, http_cache)
    # The items table as first released; 0002 adds the activity columns of the current definition.
    connection.execute(
        text(
            "CREATE TABLE items (id VARCHAR(500) PRIMARY KEY, source VARCHAR(100) NOT NULL, kind VARCHAR(40) NOT NULL,"
            " repo VARCHAR(300), number INTEGER, url TEXT, title TEXT, author VARCHAR(200), state VARCHAR(40),"
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


def _create(connection: Connection, *tables: Table) -> None:
    for table in tables:
        table.create(connection)


# Append only: a migration, once released, is never edited; a change is a new named entry.
MIGRATIONS: list[tuple[str, Callable[[Connection], None]]] = [
    ("0001_initial", _initial),
    ("0002_item_activity_columns", _activity_columns),
    ("0003_llm_cache_and_ledger", lambda connection: _create(connection, llm_cache, llm_calls)),
]
