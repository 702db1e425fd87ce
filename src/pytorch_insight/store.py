"""The database: items with their raw payloads, runs, source status and HTTP validators.

Every write happens inside a transaction, so an interrupted run leaves whole pages behind and
the next run simply upserts again. Several processes may write one database at once: on SQLite
each write transaction takes the write lock when it begins (BEGIN IMMEDIATE) and waits up to
BUSY_TIMEOUT_S for it, so a read-then-write (a comment merge, a migration) is never interleaved.
On PostgreSQL the rows a merge reads are locked until it commits, migrations take an advisory
lock, and a transaction that lost a race to another (a new key, a deadlock) is retried whole.
"""

from __future__ import annotations

import os
import random
import re
import socket
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date, datetime, time, timedelta, timezone
from functools import partial
from pathlib import Path
from time import monotonic, sleep
from typing import Any, TypeVar

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Select,
    and_,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    inspect,
    make_url,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from pytorch_insight.errors import StoreError
from pytorch_insight.http import CachedPage
from pytorch_insight.model import Item, SourceStatus, merge_comments
from pytorch_insight.redact import redact_tokens
from pytorch_insight.schema import (
    MIGRATIONS,
    UTC_FORMAT,
    deliveries,
    http_cache,
    items,
    llm_cache,
    llm_calls,
    payloads,
    report_snapshots,
    runs,
    schema_migrations,
    source_status,
    utc_column,
)
from pytorch_insight.window import Window, parse_timestamp

T = TypeVar("T")

BATCH = 500
# How long a SQLite writer waits for another process's write transaction before giving up.
BUSY_TIMEOUT_S = 30.0
# A write that lost a race for a new key or a deadlock (PostgreSQL) is tried this often in all.
WRITE_ATTEMPTS = 5
# SQLSTATEs of a transaction PostgreSQL failed only because of another one: a key it inserted
# first (unique violation), a deadlock, a serialization failure.
_RACE_STATES = frozenset({"23505", "40P01", "40001"})
# A run still `running` after this long is dead even where its process cannot be checked.
STALE_AFTER = timedelta(hours=24)
# Execution option marking the engine view whose transactions write (SQLite: BEGIN IMMEDIATE).
_WRITES = "pytorch_insight_writes"
# Key of the PostgreSQL advisory lock that serialises migrations across processes.
_MIGRATION_LOCK = 7_140_351_963
# The password in a URL's user part, for URLs SQLAlchemy cannot parse.
_URL_PASSWORD = re.compile(r"(://[^/@:]*:)([^/@]*)@")


def utcnow() -> str:
    return datetime.now(timezone.utc).strftime(UTC_FORMAT)


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


def _lost_a_race(exc: SQLAlchemyError) -> bool:
    """Whether PostgreSQL failed the transaction only because a concurrent one got there first."""
    return getattr(getattr(exc, "orig", None), "sqlstate", None) in _RACE_STATES


def may_write(db: str) -> bool:
    """Whether a writable open may be tried: a SQLite file needs write access to it and to its
    folder (for the WAL files); a server database says so itself when it refuses."""
    path = _sqlite_file(database_url(db))
    return path is None or (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK))


class Store:
    def __init__(self, engine: Engine, readonly: bool = False) -> None:
        self.engine = engine
        self.readonly = readonly
        self._writer = engine.execution_options(**{_WRITES: True})
        self._closed = False

    @classmethod
    def open(cls, db: str, readonly: bool = False) -> Store:
        """Open a database path or URL.

        For writing (the default) pending migrations are applied and runs left `running` by a dead
        process are marked `interrupted`. With ``readonly=True`` nothing is written and no
        migration runs, so a database without write access can be read; it must be current
        (StoreError saying it needs upgrading by a writable run otherwise) and every write method
        raises StoreError.
        """
        url = database_url(db)
        engine = _readonly_engine(db, url) if readonly else _writable_engine(db, url)
        store = cls(engine, readonly)
        try:
            if readonly:
                store._check_current(db)
            else:
                store.migrate()
                store.recover_stale_runs()
        except SQLAlchemyError as exc:
            engine.dispose()
            raise StoreError(f"cannot open database {shown_db(db)!r}: {describe_error(exc, db)}") from None
        except StoreError:
            engine.dispose()
            raise
        return store

    def close(self) -> None:
        """Close the pooled connections. A writable SQLite store first folds its write-ahead log
        into the database file: the last connection would do it too, but only if it is the last
        (a read-only one of the same process may still be open), and a copy of the `.db` file
        alone must hold everything written."""
        if self._closed:
            return
        self._closed = True
        if not self.readonly and self.engine.dialect.name == "sqlite":
            try:
                with self.engine.connect() as connection:
                    connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            except SQLAlchemyError:
                pass  # a busy database folds the log at a later close; nothing is lost meanwhile
        self.engine.dispose()

    # -- migrations ------------------------------------------------------------------------------

    def migrate(self) -> list[str]:
        """Apply pending named migrations, each in its own transaction; returns their names."""
        pending = self.pending_migrations()
        return [name for name, step in MIGRATIONS if name in pending and self._apply(name, step)]

    def pending_migrations(self) -> list[str]:
        done = self._recorded_migrations()
        return [name for name, _ in MIGRATIONS if name not in done]

    def _recorded_migrations(self) -> set[str]:
        with self.engine.connect() as connection:
            if not inspect(connection).has_table(schema_migrations.name):
                return set()
            return set(connection.scalars(select(schema_migrations.c.name)))

    def _apply(self, name: str, step: Callable[[Connection], None]) -> bool:
        """Apply one migration under the migration lock; False when another process did it first."""
        try:
            with self._writer.begin() as connection:
                _lock_migrations(connection)
                # Checked again under the lock: a process that opened the database at the same
                # moment may have applied it while this one waited.
                schema_migrations.create(connection, checkfirst=True)
                if connection.scalar(select(schema_migrations.c.name).where(schema_migrations.c.name == name)):
                    return False
                step(connection)
                connection.execute(insert(schema_migrations).values(name=name, applied_at=utcnow()))
        except SQLAlchemyError:
            # A database without the lock (another dialect, an older client) can still race: a
            # failure is fine when the winner's record is there.
            if name in self._recorded_migrations():
                return False
            raise
        return True

    def _check_current(self, db: str) -> None:
        """A read-only open needs the schema as this version writes it; upgrading is a write."""
        pending = self.pending_migrations()
        if len(pending) == len(MIGRATIONS):
            raise StoreError(
                f"database {shown_db(db)!r} has no pytorch-insight tables: run `collect` or `import` first"
            )
        if pending:
            raise StoreError(
                f"database {shown_db(db)!r} needs upgrading ({', '.join(pending)}): "
                "run `collect` or `import` on it once with write access"
            )

    def applied_migrations(self) -> list[str]:
        with self.engine.connect() as connection:
            return list(connection.scalars(select(schema_migrations.c.name).order_by(schema_migrations.c.name)))

    # -- items -------------------------------------------------------------------------------

    def save_items(self, batch: Sequence[Item]) -> int:
        """Idempotent upsert in one transaction; stored comment threads are merged, never dropped."""
        if not batch:
            return 0
        batch = [redact_tokens(item) for item in batch]  # a token in collected text is never stored
        unique: dict[str, Item] = {}
        for item in batch:
            # The same item twice in one batch (two lines of an import): the later copy wins, as it
            # would in two batches, and the threads of both are kept.
            earlier = unique.get(item.id)
            unique[item.id] = (
                item
                if earlier is None
                else item.model_copy(update={"comments": merge_comments(earlier.comments, item.comments)})
            )
        now = utcnow()
        self._write(lambda connection: self._upsert_items(connection, list(unique.values()), now))
        return len(unique)

    def _upsert_items(self, connection: Connection, batch: list[Item], now: str) -> None:
        # On PostgreSQL the rows read are locked until the merge is written (SQLite has the whole
        # database locked already), so another writer's comments cannot be overwritten; locking
        # and inserting in id order keeps two writers of overlapping batches from deadlocking.
        batch = sorted(batch, key=lambda item: item.id)
        locked = (
            select(items.c.id, items.c.data)
            .where(items.c.id.in_([i.id for i in batch]))
            .order_by(items.c.id)
            .with_for_update()
        )
        existing = {row.id: row.data for row in connection.execute(locked)}
        merged = [
            item.model_copy(
                update={"comments": merge_comments(Item.model_validate(existing[item.id]).comments, item.comments)}
            )
            if item.id in existing
            else item
            for item in batch
        ]
        # One statement per table and kind of write, with many rows: a round trip per row is
        # what made a PostgreSQL import slow.
        _insert_or_update(connection, items.c.id, {item.id: _item_row(item, now) for item in merged}, set(existing))
        raw = {item.id: {"payload": item.raw, "stored_at": now} for item in merged if item.raw is not None}
        if raw:
            # A payload is only ever written with its item, under that item's lock.
            kept = set(connection.scalars(select(payloads.c.item_id).where(payloads.c.item_id.in_(list(raw)))))
            _insert_or_update(connection, payloads.c.item_id, raw, kept)

    def _write(self, work: Callable[[Connection], T]) -> T:
        """Run `work` in one write transaction, as a StoreError when the database refuses it."""
        if self.readonly:
            raise StoreError("cannot write to the database: it was opened read-only")
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            try:
                with self._writer.begin() as connection:
                    return work(connection)
            except SQLAlchemyError as exc:
                # On SQLite writers are serialised, so this is PostgreSQL: another transaction
                # inserted the same new key first, or the server broke a deadlock by failing this
                # one; a fresh attempt sees the other's rows and updates them.
                if attempt == WRITE_ATTEMPTS or not _lost_a_race(exc):
                    raise StoreError(f"cannot write to the database: {describe_error(exc)}") from None
                sleep(random.uniform(0, 0.05 * attempt))  # so the same writers do not collide again
        raise AssertionError("unreachable")

    def get_items(self, ids: Iterable[str]) -> dict[str, Item]:
        wanted = list(ids)
        found: dict[str, Item] = {}
        with self.engine.connect() as connection:
            for start in range(0, len(wanted), BATCH):
                chunk = wanted[start : start + BATCH]
                for row in connection.execute(select(items.c.data).where(items.c.id.in_(chunk))):
                    item = Item.model_validate(row.data)
                    found[item.id] = item
        return found

    def iter_items(self, since: str | None = None, until: str | None = None) -> Iterator[Item]:
        """Items in id order, optionally those created on the days since..until (inclusive)."""
        query = select(items.c.data).order_by(_id_order(self.engine.dialect.name))
        if since:
            query = query.where(items.c.created >= _day_start(since))
        if until:
            query = query.where(items.c.created < _day_start(until, later=1))
        with self.engine.connect() as connection:
            # Fetched BATCH rows at a time (PostgreSQL: a server-side cursor), not all at once.
            for row in connection.execution_options(yield_per=BATCH).execute(query):
                yield Item.model_validate(row.data)

    def items_in_window(self, window: Window) -> list[Item]:
        """The items `Item.active_in` the window (created, closed or merged in it, and what else the
        model counts as activity), in id order."""
        with self.engine.connect() as connection:
            query = _window_candidates(window, self.engine.dialect.name)
            found = [Item.model_validate(row.data) for row in connection.execute(query)]
        return [item for item in found if item.active_in(window)]

    def latest_statuses(self, window: Window) -> list[SourceStatus]:
        """The coverage each source reported on its most recent collection of this window."""
        since, until = window.since.isoformat(), window.until.isoformat()
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(source_status)
                .where(source_status.c.since == since, source_status.c.until == until)
                .order_by(source_status.c.run_id)
            ).all()
        latest = {row.source: row for row in rows}
        return [_status_from_row(row) for row in latest.values()]

    def count_items(self) -> int:
        with self.engine.connect() as connection:
            return int(connection.scalar(select(func.count()).select_from(items)) or 0)

    def get_payload(self, item_id: str) -> dict[str, Any] | None:
        with self.engine.connect() as connection:
            return connection.scalar(select(payloads.c.payload).where(payloads.c.item_id == item_id))

    # -- runs and coverage ---------------------------------------------------------------------

    def start_run(
        self, command: str, profile: str, since: str | None, until: str | None, arguments: dict[str, Any]
    ) -> int:
        self.recover_stale_runs()
        values = {
            "command": command,
            "profile": profile,
            "since": since,
            "until": until,
            "arguments": arguments,
            "started_at": utcnow(),
            "status": "running",
            "requests": 0,
            "note": "",
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }
        return self._write(
            lambda connection: int(connection.execute(insert(runs).values(values)).inserted_primary_key[0])
        )

    def finish_run(self, run_id: int, status: str, requests: int = 0, note: str = "") -> None:
        values = {"finished_at": utcnow(), "status": status, "requests": requests, "note": note}
        self._write(lambda connection: connection.execute(update(runs).where(runs.c.id == run_id).values(values)))

    def recover_stale_runs(self, now: datetime | None = None) -> list[int]:
        """Mark `interrupted` the runs still `running` whose process is gone (kill -9, crash, reboot).

        Gone means: its pid no longer exists on this host, or it started more than STALE_AFTER ago
        (the only test for a run on another host, and a guard against a reused pid here).
        Returns the ids marked.
        """
        if self.readonly:
            return []
        with self.engine.connect() as connection:
            running = connection.execute(
                select(runs.c.id, runs.c.pid, runs.c.host, runs.c.started_at).where(runs.c.status == "running")
            ).all()
        moment = now or datetime.now(timezone.utc)
        stale = {row.id: note for row in running if (note := _stale_note(row, moment))}
        if stale:
            self._write(lambda connection: _mark_interrupted(connection, stale))
        return sorted(stale)

    def save_source_status(self, run_id: int, status: SourceStatus, since: str | None, until: str | None) -> None:
        values = {
            "run_id": run_id,
            "source": status.name,
            "status": status.status.value,
            "items": status.items,
            "requests": status.requests,
            "not_modified": status.not_modified,
            "note": status.note,
            "since": since,
            "until": until,
        }
        self._write(lambda connection: connection.execute(insert(source_status).values(values)))

    def runs(self) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(select(runs).order_by(runs.c.id))]

    def source_statuses(self, run_id: int) -> list[SourceStatus]:
        with self.engine.connect() as connection:
            rows = connection.execute(select(source_status).where(source_status.c.run_id == run_id))
            return [_status_from_row(row) for row in rows]

    # -- conditional requests ------------------------------------------------------------------

    def get_cached(self, url: str) -> CachedPage | None:
        with self.engine.connect() as connection:
            row = connection.execute(select(http_cache).where(http_cache.c.url == url)).first()
        if row is None:
            return None
        return CachedPage(row.body, dict(row.links), row.etag, row.last_modified)

    def put_cached(self, url: str, page: CachedPage) -> None:
        values = {
            "etag": page.etag,
            "last_modified": page.last_modified,
            "body": page.body,
            "links": page.links,
            "stored_at": utcnow(),
        }
        self._write(lambda connection: _upsert(connection, http_cache.c.url, url, values))

    # -- what reports showed -------------------------------------------------------------------

    def save_snapshot(self, snapshot: dict[str, Any]) -> None:
        """Keep what a report showed (`profile`, `reader`, `since`, `until`, `generated_at`,
        `focus`, `areas`); a later report of the same window and reader replaces it."""
        key = {name: snapshot[name] for name in ("profile", "reader", "since", "until")}
        values = {
            "generated_at": snapshot["generated_at"],
            "focus": snapshot["focus"],
            "areas": snapshot["areas"],
            "stored_at": utcnow(),
        }

        def work(connection: Connection) -> None:
            match = and_(*(report_snapshots.c[name] == value for name, value in key.items()))
            if connection.execute(update(report_snapshots).where(match).values(values)).rowcount == 0:
                connection.execute(insert(report_snapshots).values({**key, **values}))

        self._write(work)

    def snapshot_ending(self, profile: str, reader: str, until: str, since: str | None = None) -> dict[str, Any] | None:
        """The snapshot of the profile's report for this reader whose window ends on `until`:
        the one starting on `since` when there is one, else the one generated last."""
        query = (
            select(report_snapshots)
            .where(
                report_snapshots.c.profile == profile,
                report_snapshots.c.reader == reader,
                report_snapshots.c.until == until,
            )
            .order_by(report_snapshots.c.generated_at.desc(), report_snapshots.c.id.desc())
        )
        with self.engine.connect() as connection:
            rows = [dict(row._mapping) for row in connection.execute(query)]
        return next((row for row in rows if row["since"] == since), rows[0] if rows else None)

    # -- deliveries ------------------------------------------------------------------------------

    def delivered(self, target: str, since: str, until: str, profile: str, reader: str, lang: str) -> str | None:
        """When this window's report (profile, reader, language) was last sent to `target`; None if never."""
        query = select(func.max(deliveries.c.at)).where(
            deliveries.c.target == target,
            deliveries.c.since == since,
            deliveries.c.until == until,
            deliveries.c.profile == profile,
            deliveries.c.reader == reader,
            deliveries.c.lang == lang,
            deliveries.c.status == "sent",
        )
        with self.engine.connect() as connection:
            return connection.scalar(query)

    def record_delivery(
        self,
        *,
        target: str,
        kind: str,
        since: str,
        until: str,
        profile: str,
        reader: str,
        lang: str,
        digest: str,
        status: str,
        note: str,
    ) -> None:
        values = {
            "target": target,
            "kind": kind,
            "since": since,
            "until": until,
            "profile": profile,
            "reader": reader,
            "lang": lang,
            "digest": digest,
            "status": status,
            "note": note,
            "at": utcnow(),
        }
        self._write(lambda connection: connection.execute(insert(deliveries).values(values)))

    def deliveries(self) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            rows = connection.execute(select(deliveries).order_by(deliveries.c.id))
            return [dict(row._mapping) for row in rows]


class LLMLedger:
    """Model answers cached by (model, prompt hash), and every call logged."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.engine = store.engine

    def cached(self, key: str) -> dict[str, Any] | None:
        with self.engine.connect() as connection:
            row = connection.execute(select(llm_cache).where(llm_cache.c.key == key)).first()
        return dict(row._mapping) if row else None

    def remember(self, key: str, model: str, answer: str, tokens_in: int, tokens_out: int) -> None:
        values = {
            "model": model,
            "answer": answer,
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "stored_at": utcnow(),
        }
        self.store._write(lambda connection: _upsert(connection, llm_cache.c.key, key, values))

    def log(
        self,
        model: str,
        prompt_hash: str,
        purpose: str,
        tokens_in: int,
        tokens_out: int,
        duration_ms: int,
        outcome: str,
    ) -> None:
        values = {
            "model": model,
            "prompt_hash": prompt_hash,
            "purpose": purpose,
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "duration_ms": duration_ms,
            "outcome": outcome,
            "at": utcnow(),
        }
        self.store._write(lambda connection: connection.execute(insert(llm_calls).values(values)))

    def calls(self) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(select(llm_calls).order_by(llm_calls.c.id))]


def _upsert(connection: Connection, key_column: Column[Any], key: Any, values: dict[str, Any]) -> None:
    """Update the row with this key, or insert it: portable SQL, no dialect-specific ON CONFLICT.

    Safe under concurrency because it runs inside Store._write (serialised on SQLite; on PostgreSQL
    the UPDATE waits for a concurrent writer of the row, and a lost insert race is retried).
    """
    table = key_column.table
    if connection.execute(update(table).where(key_column == key).values(**values)).rowcount == 0:
        connection.execute(insert(table).values({key_column.name: key, **values}))


def _insert_or_update(
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


def _status_from_row(row: Any) -> SourceStatus:
    return SourceStatus(
        name=row.source,
        status=row.status,
        items=row.items,
        requests=row.requests,
        not_modified=row.not_modified,
        note=row.note,
    )


def _item_row(item: Item, now: str) -> dict[str, Any]:
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


def _id_order(dialect: str) -> Any:
    """Ids in code point order, as SQLite sorts them: PostgreSQL would otherwise follow the
    database's locale, which can put "github:o/r#10" after "github:O/r#3"."""
    return items.c.id.collate("C") if dialect == "postgresql" else items.c.id


def _window_candidates(window: Window, dialect: str) -> Select[Any]:
    """Every item that may be active in the window, for `Item.active_in` to decide exactly.

    The time columns hold one UTC form (schema.UTC_FORMAT), so string bounds compare instants
    (under any collation: the strings differ only in their digits).
    """
    start, end = window.start.strftime(UTC_FORMAT), window.end.strftime(UTC_FORMAT)
    return (
        select(items.c.data)
        .order_by(_id_order(dialect))
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


def _day_start(day: str, later: int = 0) -> str:
    """The first instant of a UTC day (`later` days on), in the form the time columns hold."""
    start = datetime.combine(date.fromisoformat(day) + timedelta(days=later), time.min, tzinfo=timezone.utc)
    return start.strftime(UTC_FORMAT)


# -- runs left behind --------------------------------------------------------------------------


def _stale_note(row: Any, now: datetime) -> str | None:
    """Why a `running` run is dead, or None while it may still be alive."""
    if row.host == socket.gethostname() and row.pid is not None and not _process_alive(row.pid):
        return f"interrupted: process {row.pid} on {row.host} ended without finishing the run"
    started = parse_timestamp(row.started_at)
    if started is None or now - started > STALE_AFTER:
        return f"interrupted: still running after more than {STALE_AFTER.total_seconds() / 3600:g} h, no end recorded"
    return None


def _mark_interrupted(connection: Connection, notes: dict[int, str]) -> None:
    for run_id, note in notes.items():
        # Only while still running: the run may have finished after it was read.
        connection.execute(
            update(runs)
            .where(runs.c.id == run_id, runs.c.status == "running")
            .values(status="interrupted", finished_at=utcnow(), note=note)
        )


def _process_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if os.name == "nt":
        return True  # os.kill would end the process there; the age rule still applies
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by another user
    except OSError:
        return False
    return not _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    """A killed process its parent has not reaped yet still answers signal 0; Linux marks it Z."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat.rpartition(")")[2].split()
    return bool(fields) and fields[0] == "Z"


# -- engines -----------------------------------------------------------------------------------


def _sqlite_file(url: str) -> Path | None:
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        return Path(url.removeprefix("sqlite:///"))
    return None


def _writable_engine(db: str, url: str) -> Engine:
    path = _sqlite_file(url)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the database folder {path.parent}: {exc.strerror}") from None
    return _engine(db, url, wal=True)


def _readonly_engine(db: str, url: str) -> Engine:
    path = _sqlite_file(url)
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
        connection.exec_driver_sql("BEGIN IMMEDIATE" if connection.get_execution_options().get(_WRITES) else "BEGIN")

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


def _lock_migrations(connection: Connection) -> None:
    """Serialise migrations across processes (on SQLite, BEGIN IMMEDIATE already holds the lock)."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
