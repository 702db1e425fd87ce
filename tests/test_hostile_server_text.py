"""Text from servers reaches the terminal, the store and `export` filtered: terminal escape
sequences (a window title set, the screen cleared, reversed text) removed, token-shaped strings
redacted; a token inside collected text is redacted before it is stored."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight import store as store_module
from pytorch_insight.cli import main
from pytorch_insight.config import Settings
from pytorch_insight.jsonl import export_items, import_file
from pytorch_insight.model import CoverageStatus
from pytorch_insight.store import Store
from tests.conftest import FakeClock, collect
from tests.fakes.github import FakeGitHub, Fault
from tests.test_github_source import WEEK, row

TOKEN = "ghp_" + "a1B2c3D4e5" * 4
HOSTILE = f"\x1b]0;pwned\x07\x1b[2J\x1b[7mBad request\x1b[0m \x9b31m for {TOKEN}\r\nsecond line"


def test_an_error_body_reaches_note_store_and_terminal_plain(
    start_github: Callable[..., FakeGitHub],
    make_settings: Callable[..., Settings],
    clock: FakeClock,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = start_github([row(1)])
    server.add_fault(
        Fault(
            r"/search/issues|/repos/pytorch/pytorch/issues$",
            "status",
            times=50,
            status=422,
            body={"message": HOSTILE, "errors": [{"message": "\x1b[31m" + TOKEN}]},
        )
    )
    settings = make_settings(server.url)
    store, status = collect(settings, clock, WEEK)
    assert status.status is CoverageStatus.FAILED
    for text in (status.note, store.source_statuses(store.runs()[-1]["id"])[0].note, store.runs()[-1]["note"]):
        assert "Bad request" in text and "second line" in text
        assert not any(ch in text for ch in "\x1b\x07\x9b\r\n") and "]0;" not in text and "[2J" not in text
        assert TOKEN not in text and "[redacted]" in text

    monkeypatch.setenv("GITHUB_API_URL", server.url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                "--db",
                str(tmp_path / "cli.db"),
                "collect",
                "--source",
                "github",
                "--since",
                "2026-04-07",
                "--until",
                "2026-04-13",
            ]
        )
    err = capsys.readouterr().err
    assert exit_info.value.code == 1 and "Bad request" in err
    assert "\x1b" not in err and "\x07" not in err and "\x9b" not in err and TOKEN not in err


def test_a_token_in_collected_text_is_redacted_before_storing_and_in_export(
    start_github: Callable[..., FakeGitHub],
    make_settings: Callable[..., Settings],
    clock: FakeClock,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows: list[dict[str, Any]] = [
        row(
            1,
            body=f"my token is {TOKEN} oops",
            comments=[{"author": "a", "date": "2026-04-09", "kind": "comment", "body": f"also Bearer {TOKEN}"}],
        )
    ]
    settings = make_settings(start_github(rows).url)
    store, _ = collect(settings, clock, WEEK)
    [item] = [item for item in store.iter_items() if item.number == 1]
    assert TOKEN not in item.body and "[redacted]" in item.body
    assert TOKEN not in item.comments[0].body
    with store.engine.connect() as connection:
        dumped = json.dumps([list(map(str, r)) for r in connection.exec_driver_sql("SELECT * FROM payloads")])
        dumped += json.dumps([list(map(str, r)) for r in connection.exec_driver_sql("SELECT * FROM items")])
    assert TOKEN not in dumped
    out = tmp_path / "out.jsonl"
    with pytest.raises(SystemExit):
        main(["--db", settings.db, "export", str(out)])
        raise SystemExit(0)
    assert TOKEN not in out.read_text() and "[redacted]" in out.read_text()


def test_export_redacts_a_token_an_older_store_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = tmp_path / "in.jsonl"
    raw.write_text(json.dumps({**row(2), "body": f"x {TOKEN}"}) + "\n")
    store = Store.open(str(tmp_path / "old.db"))
    with monkeypatch.context() as patch:  # a store written before tokens were redacted on the way in
        patch.setattr(store_module, "redact_models", list)
        import_file(store, raw)
    assert TOKEN in next(store.iter_items()).body
    out = tmp_path / "out.jsonl"
    with out.open("w") as handle:
        export_items(store.iter_items(), handle)
    assert TOKEN not in out.read_text()
