"""The database: items with their raw payloads, runs, source status and HTTP validators.

Every write happens inside a transaction, so an interrupted run leaves whole pages behind and
the next run simply upserts again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Engine, create_engine, event, func, insert, or_, select, update
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from pytorch_insight.errors import StoreError
from pytorch_insight.http import CachedPage
from pytorch_insight.model import Item, SourceStatus, merge_comments
from pytorch_insight.schema import (
    MIGRATIONS,
    http_cache,
    items,
    llm_cache,
    llm_calls,
    payloads,
    runs,
    schema_migrations,
    source_status,
)
from pytorch_insight.window import Window

BATCH = 500


def utcnow() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def database_url(db: str) -> str:
    """A URL stays a URL; anything else is a SQLite file path."""
    return db if "://" in db else f"sqlite:///{Path(db).expanduser()}"


class Store:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, db: str) -> Store:
        url = database_url(db)
        if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
            path = Path(url.removeprefix("sqlite:///"))
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot create the database folder {path.parent}: {exc.strerror}") from None
        try:
            engine = create_engine(url)
        except (ArgumentError, ImportError, SQLAlchemyError) as exc:
            raise StoreError(f"cannot use database {db!r}: {exc}") from None
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
        store = cls(engine)
        try:
            store.migrate()
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot open database {db!r}: {exc.orig or exc}") from None
        return store

    def migrate(self) -> list[str]:
        """Apply pending named migrations, each in its own transaction; returns their names."""
        schema_migrations.create(self.engine, checkfirst=True)
        with self.engine.connect() as connection:
            done = set(connection.scalars(select(schema_migrations.c.name)))
        applied = []
        for name, step in MIGRATIONS:
            if name in done:
                continue
            with self.engine.begin() as connection:
                step(connection)
                connection.execute(insert(schema_migrations).values(name=name, applied_at=utcnow()))
            applied.append(name)
        return applied

    def applied_migrations(self) -> list[str]:
        with self.engine.connect() as connection:
            return list(connection.scalars(select(schema_migrations.c.name).order_by(schema_migrations.c.name)))

    # -- items -------------------------------------------------------------------------------

    def save_items(self, batch: Sequence[Item]) -> int:
        """Idempotent upsert in one transaction; stored comment threads are merged, never dropped."""
        if not batch:
            return 0
        unique = {item.id: item for item in batch}
        now = utcnow()
        try:
            with self.engine.begin() as connection:
                existing = {
                    row.id: row.data
                    for row in connection.execute(select(items.c.id, items.c.data).where(items.c.id.in_(list(unique))))
                }
                for item in unique.values():
                    if item.id in existing:
                        old = Item.model_validate(existing[item.id])
                        item = item.model_copy(update={"comments": merge_comments(old.comments, item.comments)})
                        connection.execute(update(items).where(items.c.id == item.id).values(**_item_row(item, now)))
                    else:
                        connection.execute(insert(items).values(id=item.id, **_item_row(item, now)))
                    if item.raw is not None:
                        self._save_payload(connection, item, now)
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot write to the database: {exc.orig or exc}") from None
        return len(unique)

    def _save_payload(self, connection: Any, item: Item, now: str) -> None:
        _upsert(connection, payloads.c.item_id, item.id, {"payload": item.raw, "stored_at": now})

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
        query = select(items.c.data).order_by(items.c.id)
        if since:
            query = query.where(items.c.created >= since)
        if until:
            query = query.where(items.c.created < until + "\uffff")
        with self.engine.connect() as connection:
            for row in connection.execute(query):
                yield Item.model_validate(row.data)

    def items_in_window(self, window: Window) -> list[Item]:
        """Items created in the window, or closed or merged in it, in id order."""
        # Stored times are ISO strings (a bare date or a UTC timestamp), so a day's margin on each
        # side in SQL, then the exact test in Python, is both index-friendly and correct.
        low, high = (window.since - timedelta(days=1)).isoformat(), (window.until + timedelta(days=2)).isoformat()
        query = (
            select(items.c.data)
            .order_by(items.c.id)
            .where(
                or_(
                    items.c.created.between(low, high),
                    items.c.closed.between(low, high),
                    items.c.merged.between(low, high),
                )
            )
        )
        with self.engine.connect() as connection:
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
        with self.engine.begin() as connection:
            result = connection.execute(
                insert(runs).values(
                    command=command,
                    profile=profile,
                    since=since,
                    until=until,
                    arguments=arguments,
                    started_at=utcnow(),
                    status="running",
                    requests=0,
                    note="",
                )
            )
            return int(result.inserted_primary_key[0])

    def finish_run(self, run_id: int, status: str, requests: int = 0, note: str = "") -> None:
        with self.engine.begin() as connection:
            connection.execute(
                update(runs)
                .where(runs.c.id == run_id)
                .values(finished_at=utcnow(), status=status, requests=requests, note=note)
            )

    def save_source_status(self, run_id: int, status: SourceStatus, since: str | None, until: str | None) -> None:
        with self.engine.begin() as connection:
            connection.execute(
                insert(source_status).values(
                    run_id=run_id,
                    source=status.name,
                    status=status.status.value,
                    items=status.items,
                    requests=status.requests,
                    not_modified=status.not_modified,
                    note=status.note,
                    since=since,
                    until=until,
                )
            )

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
        with self.engine.begin() as connection:
            _upsert(connection, http_cache.c.url, url, values)


class LLMLedger:
    """Model answers cached by (model, prompt hash), and every call logged."""

    def __init__(self, store: Store) -> None:
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
        with self.engine.begin() as connection:
            _upsert(connection, llm_cache.c.key, key, values)

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
        with self.engine.begin() as connection:
            connection.execute(
                insert(llm_calls).values(
                    model=model,
                    prompt_hash=prompt_hash,
                    purpose=purpose,
                    tokens_in=tokens_in,
                    tokens_out=tokens_out,
                    duration_ms=duration_ms,
                    outcome=outcome,
                    at=utcnow(),
                )
            )

    def calls(self) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            return [dict(row._mapping) for row in connection.execute(select(llm_calls).order_by(llm_calls.c.id))]


def _upsert(connection: Any, key_column: Column[Any], key: Any, values: dict[str, Any]) -> None:
    """Update the row with this key, or insert it: portable SQL, no dialect-specific ON CONFLICT."""
    table = key_column.table
    if connection.execute(update(table).where(key_column == key).values(**values)).rowcount == 0:
        connection.execute(insert(table).values({key_column.name: key, **values}))


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
        "created": item.created,
        "updated": item.updated,
        "closed": item.closed,
        "merged": item.merged,
        "data": data,
        "stored_at": now,
    }


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
