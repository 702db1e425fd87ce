"""A store holding the two recorded PyTorch weeks, one recorded collection of the latest week, and
one item of that week written to test the bounds (a long description, a token, many comments);
and the `report` command's own JSON document of that week to compare the answers with."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.cli import main
from pytorch_insight.jsonl import import_file
from pytorch_insight.model import Comment, CoverageStatus, Item, SourceStatus
from pytorch_insight.store import Store
from tests.conftest import DATA, read_jsonl
from tests.pipeline.helpers import item

WEEKS = sorted((DATA / "raw").glob("pytorch-*.jsonl"))
TOKEN = "ghp_" + "Zq7x" * 9  # shaped like a GitHub token: must never come back
BOUNDS_ID = "github:pytorch/pytorch#999001"
BOUNDS_COMMENTS = 30


def last_active_day(rows: list[dict[str, Any]]) -> date:
    """The last day a row was created, closed or merged on: the latest report ends there."""
    moments = [row.get(field) for row in rows for field in ("created", "closed", "merged")]
    return max(date.fromisoformat(moment[:10]) for moment in moments if moment)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config file changes what the report command does."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.fixture(scope="session")
def latest_week() -> tuple[str, str]:
    rows = [row for path in WEEKS for row in read_jsonl(path)]
    until = last_active_day(rows)
    return (until - timedelta(days=6)).isoformat(), until.isoformat()


def bounds_item(day: str) -> Item:
    body = f"Crash in torch.compile with token {TOKEN} pasted.\n\n" + "word " * 3_000
    return item(
        999001,
        "torch.compile crashes on a very long report",
        body,
        author="bounds-tester",
        created=f"{day}T10:00:00Z",
        comments=[
            Comment(author=f"user{n}", date=f"{day}T11:{n:02d}:00Z", body=f"comment {n} " + "x" * 1_500)
            for n in range(BOUNDS_COMMENTS)
        ],
    )


@pytest.fixture(scope="session")
def insight_db(tmp_path_factory: pytest.TempPathFactory, latest_week: tuple[str, str]) -> str:
    db = str(tmp_path_factory.mktemp("serve") / "insight.db")
    store = Store.open(db)
    for path in WEEKS:
        assert import_file(store, path).imported
    since, until = latest_week
    store.save_items([bounds_item(until)])
    run = store.start_run("collect", "pytorch", since, until, {})
    store.save_source_status(
        run,
        SourceStatus(name="github", status=CoverageStatus.PARTIAL, items=7, requests=3, note="rate limited"),
        since,
        until,
    )
    store.finish_run(run, "partial", requests=3)
    store.close()
    return db


def report_document(db: str, since: str, until: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """What `pytorch-insight report --format json --out - --lang en` writes for the window."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(
            ["report", "--db", db, "--since", since, "--until", until, "--lang", "en", "--format", "json", "--out", "-"]
        )
        raise SystemExit(0)
    assert not exit_info.value.code
    return json.loads(capsys.readouterr().out)
