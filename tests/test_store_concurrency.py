"""Several processes writing one database at once: no error, nothing lost, migrations applied once;
on SQLite and on PostgreSQL."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import pytest

import pytorch_insight
from pytorch_insight.http import CachedPage
from pytorch_insight.model import Comment, Item
from pytorch_insight.schema import MIGRATIONS
from pytorch_insight.store import Store

SRC = Path(pytorch_insight.__file__).resolve().parents[1]
WORKERS = 4
TRIALS = 2
OWN, SHARED, BATCH = 30, 15, 5
DEADLINE_S = 120  # per trial: far above the few seconds it takes, far below a hung test run


def thread_item(number: int, worker: int) -> Item:
    """Issue `number` as one worker saw it: its own comment, to check no worker's write is lost."""
    comment = Comment(id=1000 * worker + number, author=f"w{worker}", date=f"2026-04-08T12:00:0{worker}Z", body="hi")
    return Item(
        id=f"github:o/r#{number}",
        source="github",
        kind="issue",
        repo="o/r",
        number=number,
        created="2026-04-08T12:00:00-07:00",
        comments=[comment],
        raw={"number": number, "worker": worker},
    )


def worker_items(worker: int) -> list[Item]:
    """Its own issues, then the issues every worker saves (overlapping ids)."""
    own = range(1000 + worker * OWN, 1000 + (worker + 1) * OWN)
    return [thread_item(number, worker) for number in [*own, *range(1, SHARED + 1)]]


def save_all(db: str, worker: int, barrier: Any, results: Any) -> None:
    """One writer process: opens the (new) database when all do, then saves in small batches."""
    try:
        barrier.wait(timeout=DEADLINE_S)
        store = Store.open(db)
        run = store.start_run("import", "pytorch", None, None, {"worker": worker})
        batch = worker_items(worker)
        for start in range(0, len(batch), BATCH):
            store.save_items(batch[start : start + BATCH])
            store.put_cached("http://x/shared", CachedPage(f"[{worker}]", {}, f'W/"{worker}"', None))
        store.finish_run(run, "ok")
        results.put((worker, "ok"))
    except BaseException:  # reported to the test, whatever it is
        results.put((worker, traceback.format_exc()))


def open_only(db: str, worker: int, barrier: Any, results: Any) -> None:
    try:
        barrier.wait(timeout=DEADLINE_S)
        results.put((worker, Store.open(db).applied_migrations()))
    except BaseException:
        results.put((worker, traceback.format_exc()))


def run_at_once(target: Any, db: str) -> dict[int, Any]:
    """WORKERS spawned processes running `target`, released together; their reports by worker."""
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(WORKERS), context.Queue()
    processes = [context.Process(target=target, args=(db, k, barrier, results)) for k in range(WORKERS)]
    for process in processes:
        process.start()
    reports: dict[int, Any] = {}
    deadline = time.monotonic() + DEADLINE_S
    try:
        while len(reports) < WORKERS:
            worker, report = results.get(timeout=max(1.0, deadline - time.monotonic()))
            reports[worker] = report
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    assert [process.exitcode for process in processes] == [0] * WORKERS
    return reports


@pytest.mark.parametrize("trial", range(TRIALS))
@pytest.mark.parametrize("database", ["new", "existing"])
def test_processes_saving_into_one_database_at_once_lose_nothing(any_db: str, database: str, trial: int) -> None:
    """A new database races the migrations too; an existing one only the saves of shared ids."""
    db = any_db
    if database == "existing":
        Store.open(db).engine.dispose()

    reports = run_at_once(save_all, db)

    assert reports == {k: "ok" for k in range(WORKERS)}
    store = Store.open(db)
    assert store.count_items() == WORKERS * OWN + SHARED
    everything = store.get_items(item.id for k in range(WORKERS) for item in worker_items(k))
    for number in range(1, SHARED + 1):
        # every worker's comment survives: no read-merge-write was interleaved with another
        assert sorted(c.author for c in everything[f"github:o/r#{number}"].comments) == ["w0", "w1", "w2", "w3"]
    assert sorted(row["status"] for row in store.runs()) == ["ok"] * WORKERS
    assert store.applied_migrations() == [name for name, _ in MIGRATIONS]


@pytest.mark.parametrize("trial", range(TRIALS))
def test_processes_opening_a_new_database_at_once_migrate_it_once(any_db: str, trial: int) -> None:
    db = any_db

    reports = run_at_once(open_only, db)

    assert reports == {k: [name for name, _ in MIGRATIONS] for k in range(WORKERS)}


def test_imports_run_at_once_from_the_command_line_store_every_line(tmp_path: Path) -> None:
    """The issue's case: `python -m pytorch_insight import` in parallel on one new database."""
    db = tmp_path / "insight.db"
    files = []
    for worker in range(WORKERS):
        path = tmp_path / f"part{worker}.jsonl"
        path.write_text("".join(json.dumps(item.to_jsonl()) + "\n" for item in worker_items(worker)))
        files.append(path)
    home = tmp_path / "home"  # no user config or data of the machine's user
    env = {**os.environ, "PYTHONPATH": str(SRC), "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "pytorch_insight", "import", "--db", str(db), "-q", str(path)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for path in files
    ]
    outcomes = [(process.wait(timeout=DEADLINE_S), process.communicate()[1]) for process in processes]

    for code, err in outcomes:
        assert code == 0 and "error" not in err.lower() and "Traceback" not in err, err
    store = Store.open(str(db))
    assert store.count_items() == WORKERS * OWN + SHARED
    shared = store.get_items(f"github:o/r#{number}" for number in range(1, SHARED + 1))
    assert all(len(item.comments) == WORKERS for item in shared.values())
