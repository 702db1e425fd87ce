"""The database: items with their raw payloads, runs, source status and HTTP validators.

Every write happens inside a transaction, so an interrupted run leaves whole pages behind and
the next run simply upserts again. Several processes may write one database at once: on SQLite
each write transaction takes the write lock when it begins (BEGIN IMMEDIATE) and waits up to
BUSY_TIMEOUT_S for it, so a read-then-write (a comment merge, a migration) is never interleaved.
On PostgreSQL the rows a merge reads are locked until it commits, migrations take an advisory
lock, and a transaction that lost a race to another (a new key, a deadlock) is retried whole.
Engines and URLs live in database.py, row helpers and queries in store_rows.py, the liveness of
runs in run_liveness.py.
"""

from __future__ import annotations

import os
import random
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime, timezone
from time import sleep
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, and_, func, insert, inspect, select, update
from sqlalchemy.exc import SQLAlchemyError

from pytorch_insight.database import (
    BUSY_TIMEOUT_S,
    WRITES,
    database_url,
    describe_error,
    lock_migrations,
    lost_a_race,
    may_write,
    readonly_engine,
    shown_db,
    writable_engine,
)
from pytorch_insight.errors import StoreError
from pytorch_insight.http import CachedPage
from pytorch_insight.model import Item, SourceStatus, merge_comments
from pytorch_insight.redact import redact_models
from pytorch_insight.run_liveness import STALE_AFTER, mark_interrupted, stale_note
from pytorch_insight.schema import (
    MIGRATIONS,
    deliveries,
    http_cache,
    items,
    payloads,
    report_snapshots,
    runs,
    schema_migrations,
    source_status,
)
from pytorch_insight.store_rows import (
    day_start,
    id_order,
    insert_or_update,
    item_row,
    status_from_row,
    stored_item,
    upsert,
    utcnow,
    window_candidates,
)
from pytorch_insight.window import Window

# The names other modules have always imported from here.
__all__ = [
    "BUSY_TIMEOUT_S",
    "STALE_AFTER",
    "LLMLedger",
    "Store",
    "database_url",
    "describe_error",
    "may_write",
    "shown_db",
    "utcnow",
]

T = TypeVar("T")

BATCH = 500
# A write that lost a race for a new key or a deadlock (PostgreSQL) is tried this often in all.
WRITE_ATTEMPTS = 5


class Store:
    def __init__(self, engine: Engine, readonly: bool = False) -> None:
        self.engine = engine
        self.readonly = readonly
        self._writer = engine.execution_options(**{WRITES: True})
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
        engine = readonly_engine(db, url) if readonly else writable_engine(db, url)
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
                lock_migrations(connection)
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
        batch = redact_models(batch)  # a token in collected text is never stored
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
        insert_or_update(connection, items.c.id, {item.id: item_row(item, now) for item in merged}, set(existing))
        raw = {item.id: {"payload": item.raw, "stored_at": now} for item in merged if item.raw is not None}
        if raw:
            # A payload is only ever written with its item, under that item's lock.
            kept = set(connection.scalars(select(payloads.c.item_id).where(payloads.c.item_id.in_(list(raw)))))
            insert_or_update(connection, payloads.c.item_id, raw, kept)

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
                if attempt == WRITE_ATTEMPTS or not lost_a_race(exc):
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
                    item = stored_item(row.data)
                    found[item.id] = item
        return found

    def iter_items(self, since: str | None = None, until: str | None = None) -> Iterator[Item]:
        """Items in id order, optionally those created on the days since..until (inclusive)."""
        query = select(items.c.data).order_by(id_order(self.engine.dialect.name))
        if since:
            query = query.where(items.c.created >= day_start(since))
        if until:
            query = query.where(items.c.created < day_start(until, later=1))
        with self.engine.connect() as connection:
            # Fetched BATCH rows at a time (PostgreSQL: a server-side cursor), not all at once.
            for row in connection.execution_options(yield_per=BATCH).execute(query):
                yield stored_item(row.data)

    def items_in_window(self, window: Window) -> Iterator[Item]:
        """The items `Item.active_in` the window (created, closed or merged in it, and what else the
        model counts as activity), in id order, one at a time: a window of 12,000 items is never
        held whole, as rows and as items at once."""
        with self.engine.connect() as connection:
            query = window_candidates(window, self.engine.dialect.name)
            # Fetched BATCH rows at a time (PostgreSQL: a server-side cursor), not all at once.
            for row in connection.execution_options(yield_per=BATCH).execute(query):
                item = stored_item(row.data)
                if item.active_in(window):
                    yield item

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
        return [status_from_row(row) for row in latest.values()]

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
        stale = {row.id: note for row in running if (note := stale_note(row, moment))}
        if stale:
            self._write(lambda connection: mark_interrupted(connection, stale))
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
            return [status_from_row(row) for row in rows]

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
        self._write(lambda connection: upsert(connection, http_cache.c.url, url, values))

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


# Imported last: the ledger module builds on Store. Kept importable from here as it always was.
from pytorch_insight.llm_ledger import LLMLedger  # noqa: E402
