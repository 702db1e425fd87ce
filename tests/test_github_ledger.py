"""One token's GitHub budget shared by the processes of one machine (github_ledger.py): two
`collect` processes against the local GitHub server, which refuses what a token's limit does not
allow, and the record itself under a fake clock."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from pytorch_insight.collect import build_sources, run_collection
from pytorch_insight.config import load_settings
from pytorch_insight.github_ledger import BudgetLedger
from pytorch_insight.github_tokens import Limit
from pytorch_insight.sources import NoProgress
from pytorch_insight.store import Store
from tests.conftest import SHARED_WINDOW, FakeClock
from tests.workers.test_budget import CountingGitHub

TOKEN = "ghp_" + "s" * 36
API = "https://api.github.example"
WINDOW = ["--since", SHARED_WINDOW.since.isoformat(), "--until", SHARED_WINDOW.until.isoformat()]


def write_config(path: Path, ledger: Path) -> Path:
    path.write_text(f'[http]\nmax_rate_limit_wait = 60.0\nbudget_file = "{ledger}"\n', encoding="utf-8")
    return path


def collect(db: Path, config: Path, api: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "pytorch_insight", "collect", "--source", "github", "--db", str(db)]
    return subprocess.Popen(
        [*command, "--config", str(config), *WINDOW],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GITHUB_API_URL": api, "GITHUB_TOKEN": TOKEN},
    )


def test_two_collectors_on_one_token_wait_for_its_reset_instead_of_a_403(
    shared_rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    ledger = tmp_path / "budget.sqlite3"
    config = write_config(tmp_path / "config.toml", ledger)
    # What one collection asks, alone and unlimited (here: a process starts in seconds).
    with CountingGitHub(shared_rows, {"core": Limit(5000, 3600.0), "search": Limit(5000, 60.0)}) as alone:
        env = {"GITHUB_API_URL": alone.url, "GITHUB_TOKEN": TOKEN}
        alone_config = write_config(tmp_path / "alone.toml", tmp_path / "alone.sqlite3")
        settings = load_settings(db=str(tmp_path / "alone.db"), config_file=str(alone_config), env=env)
        store = Store.open(settings.db)
        with ExitStack() as stack:
            sources = build_sources(settings, store, stack, ("github",))
            run_collection(store, sources, SHARED_WINDOW, NoProgress(), "pytorch", {})
    asked = {resource: sum(1 for _, r, _ in alone.arrivals if r == resource) for resource in ("core", "search")}
    # Room for one collection per period: two at once must wait for a reset.
    limits = {resource: Limit(count, 5.0) for resource, count in asked.items()}
    with CountingGitHub(shared_rows, limits, tokens={TOKEN}, latency=0.01) as fake:
        jobs = [collect(tmp_path / f"{name}.db", config, fake.url) for name in ("one", "two")]
        ends = [job.communicate(timeout=180) for job in jobs]
    for job, (_, stderr) in zip(jobs, ends, strict=True):
        assert job.returncode == 0, stderr
    # The server refuses whatever passes a token's limit in its window (GitHub's fixed windows).
    assert [status for _, status in fake.log if status in (403, 429)] == []
    for resource, limit in limits.items():
        # More than one window allows: somebody waited for a reset.
        assert sum(1 for _, used, _ in fake.arrivals if used == resource) > limit.requests
    expected = {item.id for item in store.iter_items()}
    for name in ("one", "two"):
        assert {item.id for item in Store.open(str(tmp_path / f"{name}.db")).iter_items()} == expected
    assert TOKEN.encode() not in ledger.read_bytes()


def test_the_record_counts_the_requests_in_flight_and_waits_at_zero(tmp_path: Path) -> None:
    clock = FakeClock()
    reset = str(int(clock.now()) + 60)
    mine, theirs = (BudgetLedger(tmp_path / "budget.sqlite3", API, clock) for _ in range(2))
    assert mine.take(TOKEN, "core") == 0.0  # nothing known yet: it goes
    assert theirs.take(TOKEN, "core") == 0.0
    # GitHub counted the first, not yet the second: one left for everyone, not two.
    mine.note(TOKEN, "core", {"X-RateLimit-Remaining": "2", "X-RateLimit-Reset": reset})
    assert theirs.take(TOKEN, "core") == 0.0
    assert mine.take(TOKEN, "core") == 61.0  # the reset, plus a second GitHub may still count in
    # An answer overtaken by a later one says more than is left: the record does not go up.
    theirs.note(TOKEN, "core", {"X-RateLimit-Remaining": "2", "X-RateLimit-Reset": reset})
    assert mine.take(TOKEN, "core") > 0
    assert mine.take(TOKEN, "search") == 0.0  # another resource, another budget
    assert mine.take("ghp_" + "t" * 36, "core") == 0.0  # another token too
    clock.sleep(62)  # past the reset: GitHub refilled
    assert mine.take(TOKEN, "core") == 0.0
