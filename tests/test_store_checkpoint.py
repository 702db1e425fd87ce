"""`report` leaves nothing behind in SQLite's write-ahead log: its record for next week's
follow-up is in the database file itself when the command ends, so a copy of the `.db` file alone
(a backup, a CI cache) keeps it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from pytorch_insight.jsonl import import_file
from pytorch_insight.store import Store
from tests.conftest import RAW_WEEKS

ROOT = Path(__file__).resolve().parents[1]


def test_report_checkpoints_its_record_into_the_database_file(tmp_path: Path) -> None:
    db = tmp_path / "insight.db"
    store = Store.open(str(db))
    import_file(store, RAW_WEEKS)
    store.close()
    # A real process, so nothing of the test's own connections keeps or folds the log.
    env = {"PYTHONPATH": str(ROOT / "src"), "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    window = ["--since", "2026-04-14", "--until", "2026-04-20"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytorch_insight",
            "report",
            "-q",
            "--db",
            str(db),
            *window,
            "--out",
            str(tmp_path / "o"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    copy = tmp_path / "copy" / "insight.db"
    copy.parent.mkdir()
    shutil.copy(db, copy)  # the file alone, as a cache or a backup would take it
    assert Store.open(str(copy), readonly=True).snapshot_ending("pytorch", "generalist", "2026-04-20") is not None
