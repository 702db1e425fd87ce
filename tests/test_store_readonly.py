"""Reading a database needs no write access: `Store.open(db, readonly=True)` never migrates or writes."""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, insert

import pytorch_insight
from pytorch_insight.errors import StoreError
from pytorch_insight.model import Item
from pytorch_insight.schema import MIGRATIONS, schema_migrations
from pytorch_insight.store import Store

SRC = Path(pytorch_insight.__file__).resolve().parents[1]

# Reads the database as the report and export commands do, in a process of its own. Root ignores
# file modes, so as root it first reads a scratch copy (loading every module the read needs while
# the interpreter's files are still readable), then drops to an unprivileged user for the real read.
READER = """
import io, json, os, sys
from pytorch_insight.jsonl import export_items
from pytorch_insight.store import Store
from pytorch_insight.window import make_window

def read(path):
    store = Store.open(path, readonly=True)
    window = make_window("2026-04-07", "2026-04-13")
    found = {
        "window": [item.id for item in store.items_in_window(window)],
        "exported": export_items(store.iter_items("2026-04-07", "2026-04-13"), io.StringIO()),
        "statuses": len(store.latest_statuses(window)),
    }
    store.close()
    return found

scratch, db, uid, gid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
read(scratch)
if os.geteuid() == 0:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
print(json.dumps(read(db)))
"""


def item(number: int, created: str) -> Item:
    return Item(id=f"github:o/r#{number}", source="github", kind="issue", repo="o/r", number=number, created=created)


def make_database(path: Path) -> None:
    store = Store.open(str(path))
    store.save_items([item(1, "2026-04-08T12:00:00Z"), item(2, "2026-04-10T09:00:00-07:00"), item(3, "2026-03-01")])
    store.close()  # the last connection folds the WAL back in: only the .db file stays


def unprivileged() -> tuple[int, int]:
    """The user the reader runs as: this one, or `nobody` when the tests run as root."""
    if os.geteuid() != 0:
        return os.getuid(), os.getgid()
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("running as root without a `nobody` user to read as")
    return nobody.pw_uid, nobody.pw_gid


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder the unprivileged reader can reach (pytest's own tmp folders are private to root)."""
    base = Path(tempfile.mkdtemp(prefix="insight-ro-"))
    base.chmod(0o755)
    yield base
    for folder in [base, *base.rglob("*")]:
        if folder.is_dir():
            folder.chmod(0o755)
    shutil.rmtree(base)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("folder_writable", [True, False], ids=["folder-writable", "folder-read-only"])
def test_a_read_only_database_file_is_read_without_writing_anything(
    tmp_path: Path, shared_dir: Path, folder_writable: bool
) -> None:
    uid, gid = unprivileged()
    scratch = tmp_path / "scratch.db"
    make_database(scratch)
    folder = shared_dir / "data"
    folder.mkdir()
    db = folder / "insight.db"
    make_database(db)
    before = digest(db)
    db.chmod(0o444)  # chmod 444, as in the issue
    if os.geteuid() == 0:
        folder.chmod(0o777 if folder_writable else 0o755)
    else:
        folder.chmod(0o755 if folder_writable else 0o555)

    result = subprocess.run(
        [sys.executable, "-c", READER, str(scratch), str(db), str(uid), str(gid)],
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"window": ["github:o/r#1", "github:o/r#2"], "exported": 2, "statuses": 0}
    # Nothing written, nothing left beside it: a -shm created read-only here would break the next
    # write once the file is made writable again.
    assert sorted(path.name for path in folder.iterdir()) == ["insight.db"]
    assert digest(db) == before and stat.S_IMODE(db.stat().st_mode) == 0o444


def test_reading_a_database_with_pending_migrations_is_one_error_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{path}")
    schema_migrations.create(engine)
    with engine.begin() as connection:
        MIGRATIONS[0][1](connection)
        connection.execute(insert(schema_migrations).values(name=MIGRATIONS[0][0], applied_at="2026-04-01T00:00:00Z"))
    engine.dispose()
    before = digest(path)

    with pytest.raises(StoreError) as error:
        Store.open(str(path), readonly=True)

    message = str(error.value)
    assert "\n" not in message and "needs upgrading" in message and "write access" in message
    assert digest(path) == before and sorted(p.name for p in tmp_path.iterdir()) == ["old.db"]
    upgraded = Store.open(str(path))  # a writable open upgrades it; then reading works
    assert upgraded.pending_migrations() == []
    assert Store.open(str(path), readonly=True).count_items() == 0


def test_reading_a_missing_database_does_not_create_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "insight.db"
    with pytest.raises(StoreError, match="no database at .*: run `collect` or `import` first"):
        Store.open(str(missing), readonly=True)
    assert not missing.parent.exists()


def test_a_read_only_store_refuses_writes_and_leaves_runs_alone(any_db: str) -> None:
    path = any_db
    writer = Store.open(path)
    run = writer.start_run("collect", "pytorch", "2026-04-07", "2026-04-13", {})
    reader = Store.open(path, readonly=True)
    with pytest.raises(StoreError, match="opened read-only"):
        reader.save_items([item(1, "2026-04-08T12:00:00Z")])
    assert reader.recover_stale_runs() == []
    assert [row["status"] for row in reader.runs()] == ["running"]
    writer.finish_run(run, "ok")
    assert [row["status"] for row in reader.runs()] == ["ok"]  # it still sees later writes
