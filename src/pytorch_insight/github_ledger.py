"""Each GitHub token's remaining budget as GitHub last stated it, shared by every process on this
machine: two `collect` runs on one token (two profiles, a cron job beside a backfill) each see
what the other spent, and wait for the reset instead of being refused with a 403.

One small SQLite file (the user's cache folder by default), written in short `BEGIN IMMEDIATE`
transactions, which SQLite serialises across processes with its file lock. A record holds what a
response's `X-RateLimit-Remaining` / `X-RateLimit-Reset` said, less the requests sent since; a
request takes one from it, and while it is at zero before the reset, the request waits. Records
are keyed by a hash of the API origin and the token: the file never holds a token.
"""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import platformdirs

from pytorch_insight.clock import Clock

APP_NAME = "pytorch-insight"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS budget (key TEXT PRIMARY KEY, remaining INTEGER NOT NULL, reset REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS sent (key TEXT NOT NULL, owner TEXT NOT NULL, at REAL NOT NULL)",
)
# A request not answered within this is forgotten (its process died): it no longer counts as in
# flight. Longer than any request's timeout with its retries' wait.
IN_FLIGHT_S = 300.0
# GitHub refills at the reset second; a request sent on it may still be counted in the old window.
RESET_MARGIN_S = 1.0
LOCK_TIMEOUT_S = 30.0


def open_ledger(path: str | None, api_url: str, clock: Clock) -> BudgetLedger:
    """The ledger at `path` (`[http] budget_file`), or in the user's cache folder."""
    where = Path(path) if path else Path(platformdirs.user_cache_dir(APP_NAME)) / "github-budget.sqlite3"
    return BudgetLedger(where, api_url, clock)


def ledger_key(api_url: str, token: str | None, resource: str) -> str:
    """A token's record: a hash of where it is used and the token, never the token itself."""
    digest = hashlib.sha256(f"{api_url}\0{token or ''}".encode()).hexdigest()[:24]
    return f"{resource}:{digest}"


class BudgetLedger:
    """The shared records of one API origin's tokens."""

    def __init__(self, path: Path, api_url: str, clock: Clock) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.api_url, self.clock = path, api_url.rstrip("/"), clock
        self.owner = uuid.uuid4().hex  # this process's requests in flight
        with self._transaction() as db:
            for statement in SCHEMA:
                db.execute(statement)

    def take(self, token: str | None, resource: str) -> float:
        """Count a request about to be sent with `token` (0), or say how long until its reset when
        the last word on it is that nothing is left before then (nothing is counted)."""
        key, now = ledger_key(self.api_url, token, resource), self.clock.now()
        with self._transaction() as db:
            row = db.execute("SELECT remaining, reset FROM budget WHERE key = ?", (key,)).fetchone()
            if row is not None and now < row[1] + RESET_MARGIN_S:
                if row[0] <= 0:
                    return row[1] + RESET_MARGIN_S - now
                db.execute("UPDATE budget SET remaining = remaining - 1 WHERE key = ?", (key,))
            db.execute("INSERT INTO sent (key, owner, at) VALUES (?, ?, ?)", (key, self.owner, now))
            return 0.0

    def note(self, token: str | None, resource: str, headers: Mapping[str, str]) -> None:
        """A request counted by `take` came back (or failed): what its answer says is left. The
        requests still in flight are not in GitHub's count yet, so they are taken off it; within
        one window the record only goes down (an answer overtaken by a later one says more)."""
        key, now = ledger_key(self.api_url, token, resource), self.clock.now()
        remaining, reset = _number(headers.get("X-RateLimit-Remaining")), _number(headers.get("X-RateLimit-Reset"))
        with self._transaction() as db:
            db.execute(
                "DELETE FROM sent WHERE rowid = (SELECT MIN(rowid) FROM sent WHERE key = ? AND owner = ?) OR at < ?",
                (key, self.owner, now - IN_FLIGHT_S),
            )
            if remaining is None or reset is None:
                return
            (flying,) = db.execute("SELECT COUNT(*) FROM sent WHERE key = ?", (key,)).fetchone()
            left = int(remaining) - flying
            row = db.execute("SELECT remaining, reset FROM budget WHERE key = ?", (key,)).fetchone()
            if row is None or reset != row[1]:
                # Another window (or a server whose limits changed): its word replaces the record.
                db.execute("INSERT OR REPLACE INTO budget (key, remaining, reset) VALUES (?, ?, ?)", (key, left, reset))
            elif left < row[0]:
                db.execute("UPDATE budget SET remaining = ? WHERE key = ?", (left, key))

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error) on a connection of its own (nothing to
        close, any thread): the write lock is taken before the read, so two processes never both
        take the last request."""
        db = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT_S, isolation_level=None)
        try:
            # A record lost to a crash costs one answer to learn again: no fsync per request.
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=OFF")
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
