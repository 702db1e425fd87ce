"""A run whose process died without finishing it (kill -9) is marked `interrupted` at the next start,
on SQLite and on PostgreSQL."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import insert

import pytorch_insight
from pytorch_insight.schema import UTC_FORMAT, runs
from pytorch_insight.store import Store

SRC = Path(pytorch_insight.__file__).resolve().parents[1]

# Starts a run the way `collect` does, says so, then works until it is killed.
COLLECTOR = """
import sys, time
from pytorch_insight.store import Store
store = Store.open(sys.argv[1])
print(store.start_run("collect", "pytorch", "2026-04-07", "2026-04-13", {}), flush=True)
time.sleep(120)
"""


@contextmanager
def collector(db: str) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """A real process holding a `running` run; killed (and reaped) on the way out at the latest."""
    process = subprocess.Popen(
        [sys.executable, "-c", COLLECTOR, db],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield process, int(process.stdout.readline())
    finally:
        process.kill()
        process.wait(timeout=30)


def kill_9(process: subprocess.Popen[str], reap: bool = True) -> None:
    os.kill(process.pid, signal.SIGKILL)
    if reap:
        process.wait(timeout=30)  # as the shell that started it would
        return
    # Not reaped: the dead process stays a zombie, which still answers signal 0.
    deadline = time.monotonic() + 30
    while Path(f"/proc/{process.pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.01)


def status(store: Store, run_id: int) -> dict[str, object]:
    return next(row for row in store.runs() if row["id"] == run_id)


@pytest.mark.parametrize(
    "reap",
    [True, pytest.param(False, marks=pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="no /proc"))],
    ids=["reaped", "zombie"],
)
def test_a_run_killed_with_sigkill_is_interrupted_at_the_next_open(any_db: str, reap: bool) -> None:
    db = any_db
    with collector(db) as (process, run_id):
        row = status(Store.open(db), run_id)
        assert (row["status"], row["pid"], row["host"]) == ("running", process.pid, socket.gethostname())
        kill_9(process, reap)
        row = status(Store.open(db), run_id)

    assert row["status"] == "interrupted" and row["finished_at"] is not None
    assert f"process {process.pid}" in str(row["note"])


def test_a_run_killed_with_sigkill_is_interrupted_at_the_next_start_run(any_db: str) -> None:
    db = any_db
    store = Store.open(db)  # opened while the other run was alive: nothing to mark then
    with collector(db) as (process, run_id):
        kill_9(process)
    assert status(store, run_id)["status"] == "running"

    mine = store.start_run("collect", "pytorch", "2026-04-07", "2026-04-13", {})

    assert [(row["id"], row["status"]) for row in store.runs()] == [(run_id, "interrupted"), (mine, "running")]


def test_a_live_run_is_left_running(any_db: str) -> None:
    db = any_db
    with collector(db) as (_process, run_id):
        Store.open(db).start_run("collect", "pytorch", None, None, {})
        assert status(Store.open(db), run_id)["status"] == "running"


def test_a_run_on_another_host_is_interrupted_only_after_a_day(any_db: str) -> None:
    db = any_db
    store = Store.open(db)
    now = datetime.now(timezone.utc)
    with store.engine.begin() as connection:
        for hours in (25, 1):
            connection.execute(
                insert(runs).values(
                    command="collect",
                    profile="pytorch",
                    arguments={},
                    started_at=(now - timedelta(hours=hours)).strftime(UTC_FORMAT),
                    status="running",
                    requests=0,
                    note="",
                    pid=os.getpid(),  # a pid that is alive here says nothing about the other host
                    host="another-host.invalid",
                )
            )

    assert Store.open(db).recover_stale_runs() == []  # the open already marked the day-old run
    assert [row["status"] for row in store.runs()] == ["interrupted", "running"]
    assert store.recover_stale_runs(now=now + timedelta(hours=24)) == [2]
