"""Runs left `running` by a process that is gone (kill -9, crash, reboot): how they are told apart
from live ones and marked `interrupted`."""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, update

from pytorch_insight.schema import runs
from pytorch_insight.store_rows import utcnow
from pytorch_insight.window import parse_timestamp

# A run still `running` after this long is dead even where its process cannot be checked.
STALE_AFTER = timedelta(hours=24)


def stale_note(row: Any, now: datetime) -> str | None:
    """Why a `running` run is dead, or None while it may still be alive."""
    if row.host == socket.gethostname() and row.pid is not None and not _process_alive(row.pid):
        return f"interrupted: process {row.pid} on {row.host} ended without finishing the run"
    started = parse_timestamp(row.started_at)
    if started is None or now - started > STALE_AFTER:
        return f"interrupted: still running after more than {STALE_AFTER.total_seconds() / 3600:g} h, no end recorded"
    return None


def mark_interrupted(connection: Connection, notes: dict[int, str]) -> None:
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
