"""Database engines and URLs: SQLite files or server URLs, each dialect set up for the store's
transactions (SQLite: WAL, BEGIN IMMEDIATE for writers; PostgreSQL: NUL dropped, migrations
serialised), and errors and URLs shown without their passwords."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from functools import partial
from pathlib import Path
from time import monotonic, sleep
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, make_url, text
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from pytorch_insight.errors import StoreError

# How long a SQLite writer waits for another process's write transaction before giving up.
BUSY_TIMEOUT_S = 30.0
# SQLSTATEs of a transaction PostgreSQL failed only because of another one: a key it inserted
# first (unique violation), a deadlock, a serialization failure.
_RACE_STATES = frozenset({"23505", "40P01", "40001"})
# Execution option marking the engine view whose transactions write (SQLite: BEGIN IMMEDIATE).
WRITES = "pytorch_insight_writes"
# Key of the PostgreSQL advisory lock that serialises migrations across processes.
_MIGRATION_LOCK = 7_140_351_963
# The password in a URL's user part, for URLs SQLAlchemy cannot parse.
_URL_PASSWORD = re.compile(r"(://[^/@:]*:)([^/@]*)@")


def database_url(db: str) -> str:
    """A URL stays a URL; anything else is a SQLite file path."""
    return db if "://" in db else f"sqlite:///{Path(db).expanduser()}"


def shown_db(db: str) -> str:
    """The database as messages name it: a URL's password masked."""
    if "://" not in db:
        return db
    try:
        url = make_url(db)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        return _URL_PASSWORD.sub(r"\1***@", db)
    query = {key: "***" if key.lower() == "password" else value for key, value in url.query.items()}
    # The mask is percent-encoded in a query; shown as typed, it reads as one.
    return url.set(query=query).render_as_string(hide_password=True).replace("=%2A%2A%2A", "=***")


def _db_passwords(db: str) -> list[str]:
    """The passwords a database URL holds (in its user part or its query), as given and decoded."""
    found = [match.group(2) for match in _URL_PASSWORD.finditer(db)]
    try:
        url = make_url(db)
    except (ArgumentError, ValueError):
        return found
    found += [url.password or "", *(str(v) for k, v in url.query.items() if k.lower() == "password")]
    return [password for password in found if password]


def describe_error(exc: BaseException, db: str = "") -> str:
    """An error (about database `db`) as one line that shows none of its passwords."""
    message = str(getattr(exc, "orig", None) or exc)
    if db:
        message = message.replace(db, shown_db(db))
        for password in sorted(_db_passwords(db), key=len, reverse=True):
            message = message.replace(password, "***")
    return " ".join(message.split())  # libpq's messages span lines


def lost_a_race(exc: SQLAlchemyError) -> bool:
    """Whether PostgreSQL failed the transaction only because a concurrent one got there first."""
    return getattr(getattr(exc, "orig", None), "sqlstate", None) in _RACE_STATES


def may_write(db: str) -> bool:
    """Whether a writable open may be tried: a SQLite file needs write access to it and to its
    folder (for the WAL files); a server database says so itself when it refuses."""
    path = sqlite_file(database_url(db))
    return path is None or (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))


def sqlite_file(url: str) -> Path | None:
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return Path(url.removeprefix("sqlite:///"))
    return None


def writable_engine(db: str, url: str) -> Engine:
    path = sqlite_file(url)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the database folder {path.parent}: {exc.strerror}") from None
    return _engine(db, url, wal=True)


def readonly_engine(db: str, url: str) -> Engine:
    path = sqlite_file(url)
    if path is not None and not path.is_file():
        raise StoreError(f"no database at {path}: run `collect` or `import` first")
    creator = partial(_connect_readonly, _readonly_uri(path)) if path is not None else None
    engine = _engine(db, url, wal=False, creator=creator)
    if engine.dialect.name == "postgresql":
        engine = engine.execution_options(postgresql_readonly=True)  # the server refuses writes too
    return engine


def _drop_nul_characters(
    _connection: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _executemany: bool
) -> tuple[str, Any]:
    """PostgreSQL text cannot hold NUL, which hostile text may: it is dropped from the values
    (JSON documents keep it, escaped as \\u0000), where SQLite would have stored it."""
    if isinstance(parameters, dict):
        return statement, _without_nul(parameters)
    if isinstance(parameters, list):
        return statement, [_without_nul(row) if isinstance(row, dict) else row for row in parameters]
    return statement, parameters


def _without_nul(row: dict[str, Any]) -> dict[str, Any]:
    return {
        key: value.replace("\x00", "") if isinstance(value, str) and "\x00" in value else value
        for key, value in row.items()
    }


def _engine(db: str, url: str, wal: bool, creator: Callable[[], Any] | None = None) -> Engine:
    """The engine for `url` with the project's set-up per dialect; a malformed URL or a missing
    driver is a StoreError naming the database (its password masked)."""
    try:
        if creator is not None:
            engine = create_engine(url, creator=creator)
        else:
            sqlite = make_url(url).get_backend_name() == "sqlite"
            # The busy timeout as a connect argument holds from the first statement on every
            # connection, SQLAlchemy's own first-connect queries included.
            engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_S} if sqlite else {})
    except (ArgumentError, ImportError, SQLAlchemyError, ValueError) as exc:
        raise StoreError(f"cannot use database {shown_db(db)!r}: {describe_error(exc, db)}") from None
    if engine.dialect.name == "sqlite":
        _take_over_sqlite_transactions(engine, wal=wal)
    elif engine.dialect.name == "postgresql":
        event.listen(engine, "before_cursor_execute", _drop_nul_characters, retval=True)
    return engine


def _readonly_uri(path: Path) -> str:
    """A SQLite URI that reads `path` without writing it or creating files next to it."""
    uri = f"{path.resolve().as_uri()}?mode=ro"
    shm = path.with_name(path.name + "-shm")
    writable = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
    if not writable and not shm.exists():
        # Reading a WAL database needs its -shm index. SQLite would create one next to the file:
        # that fails in a folder we cannot write ("attempt to write a readonly database"), and
        # elsewhere leaves a -shm as read-only as the file, which breaks the next write once the
        # file is writable again. No -shm means no writer is connected, so the file is read as
        # immutable, creating nothing. (A writer starting during the read is not seen.)
        uri += "&immutable=1"
    return uri


def _connect_readonly(uri: str) -> sqlite3.Connection:
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)


def _take_over_sqlite_transactions(engine: Engine, wal: bool) -> None:
    """SQLAlchemy, not the driver, begins SQLite transactions (the recipe of SQLAlchemy's docs).

    The sqlite3 driver begins a transaction only before an INSERT/UPDATE/DELETE, so a read and
    the write that depends on it were not one transaction, and DDL ran outside any. Here every
    transaction starts with an explicit BEGIN, and those of the writer view with BEGIN IMMEDIATE,
    which takes the write lock up front (waiting up to the busy timeout) instead of failing when a
    read transaction later tries to write.
    """

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        if wal:
            # Readers never wait for the writer, and the writer never waits for readers.
            _use_wal(dbapi_connection)
            dbapi_connection.execute("PRAGMA synchronous=NORMAL")

    def on_begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if connection.get_execution_options().get(WRITES) else "BEGIN")

    event.listen(engine, "connect", on_connect)
    event.listen(engine, "begin", on_begin)


def _use_wal(dbapi_connection: sqlite3.Connection) -> None:
    """Switch the database file to WAL once; it stays so for every later connection.

    The switch needs an exclusive lock, and SQLite refuses it at once ("database is locked",
    without the busy wait) while another connection opening the new file holds a lock; so this
    waits here, as long as the busy timeout.
    """
    deadline = monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            if dbapi_connection.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                dbapi_connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or monotonic() > deadline:
                raise
            sleep(0.02)


def lock_migrations(connection: Connection) -> None:
    """Serialise migrations across processes (on SQLite, BEGIN IMMEDIATE already holds the lock)."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
