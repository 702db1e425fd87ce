"""The commands against PostgreSQL: `--db postgresql+psycopg://...` gives the report SQLite gives,
and two collectors and a report running at once lose nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import make_url

import pytorch_insight
from pytorch_insight.cli import main
from pytorch_insight.config import Settings
from pytorch_insight.jsonl import import_file
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import RAW_WEEKS, FakeClock, collect
from tests.fakes.github import FakeGitHub

SOURCE_ROOT = str(Path(pytorch_insight.__file__).resolve().parents[1])
WEEK = ("--since", "2026-04-07", "--until", "2026-04-13")
TIMEOUT_S = 300


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, captured.err


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # nothing listens there


def test_import_and_report_on_postgresql_give_what_sqlite_gives(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, postgres_url: str
) -> None:
    password = str(make_url(postgres_url).password)
    outputs = {}
    for name, db in (("sqlite", str(tmp_path / "insight.db")), ("postgresql", postgres_url)):
        out = tmp_path / name
        code, stdout, err = run(capsys, "import", "--db", db, str(RAW_WEEKS))
        assert code == 0 and "imported 185 items" in err, err
        code, stdout, err = run(capsys, "report", "--db", db, *WEEK, "--format", "md,json", "--out", str(out))
        assert code == 0, err
        assert password not in stdout + err
        outputs[name] = out

    markdown = "2026-04-07_2026-04-13.md"
    assert (outputs["postgresql"] / markdown).read_text() == (outputs["sqlite"] / markdown).read_text()
    documents = [json.loads((outputs[name] / "2026-04-07_2026-04-13.json").read_text()) for name in outputs]
    for document in documents:
        document.pop("generated_at")
    assert documents[0] == documents[1] and documents[0]["overview"]["totals"]
    reader = Store.open(postgres_url, readonly=True)
    assert reader.count_items() == 185


def test_a_wrong_password_is_one_line_that_does_not_show_it(
    capsys: pytest.CaptureFixture[str], postgres_url: str
) -> None:
    db = make_url(postgres_url).set(password="wrong-Pa55word-here").render_as_string(hide_password=False)
    for command in ("import", "report"):
        args = [command, "--db", db, *([str(RAW_WEEKS)] if command == "import" else WEEK)]
        code, stdout, err = run(capsys, *args)
        assert code == 1 and stdout == ""
        assert err.count("\n") == 1 and err.startswith("error: cannot open database 'postgresql+psycopg://insight:***@")
        assert "password authentication failed" in err and "wrong-Pa55word" not in err, err


def environment(tmp_path: Path, api_url: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name != "GITHUB_TOKEN"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [SOURCE_ROOT, env.get("PYTHONPATH")]))
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    return env | {"GITHUB_API_URL": api_url}


def comments_by_item(db: str) -> dict[str, set[str]]:
    """Every stored item with the keys of its comments."""
    store = Store.open(db, readonly=True)
    found = {
        item.id: {str((comment.native_id, comment.fingerprint(), comment.date)) for comment in item.comments}
        for item in store.iter_items()
    }
    store.close()
    return found


def test_two_collectors_and_a_report_at_once_lose_nothing(
    tmp_path: Path,
    postgres_url: str,
    shared_rows: list[dict[str, Any]],
    start_github: Callable[..., FakeGitHub],
    make_settings: Callable[..., Settings],
    clock: FakeClock,
) -> None:
    """Collections of overlapping windows write the same issues while a report reads: the database
    ends as the same collections run one after the other into SQLite leave it."""
    primed = tmp_path / "first-days.jsonl"
    # Primed without their threads, so every thread is fetched by whichever collector gets to it.
    primed.write_text(
        "".join(json.dumps(row | {"comments": []}) + "\n" for row in shared_rows if row["created"] < "2026-04-09")
    )
    # Slow enough for the processes to interleave; a search budget for all of them.
    fake = start_github(shared_rows, latency=0.01, search_limit=1000)
    windows = [make_window("2026-04-07", "2026-04-10"), make_window("2026-04-09", "2026-04-13")]
    reference = make_settings(fake.url)  # a SQLite file
    for db in (reference.db, postgres_url):
        store = Store.open(db)
        import_file(store, primed)
        store.close()
    for window in windows:
        collect(reference, clock, window)[0].close()

    env = environment(tmp_path, fake.url)

    def insight(*args: str) -> subprocess.Popen[str]:
        command = [sys.executable, "-m", "pytorch_insight", *args, "--db", postgres_url, "-q"]
        return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def finish(process: subprocess.Popen[str]) -> str:
        stdout, stderr = process.communicate(timeout=TIMEOUT_S)
        assert process.returncode == 0 and "Traceback" not in stderr, stderr
        return stdout

    dates = [("--since", window.since.isoformat(), "--until", window.until.isoformat()) for window in windows]
    at_once = [insight("collect", "--source", "github", *window) for window in dates]
    report = insight("report", *WEEK, "--format", "json", "--out", str(tmp_path / "site"))
    for process in at_once:
        finish(process)
    [written] = finish(report).split()

    store = Store.open(postgres_url, readonly=True)
    assert [(row["command"], row["status"]) for row in store.runs()] == [("collect", "ok"), ("collect", "ok")]
    expected = comments_by_item(reference.db)
    assert len(expected) > 100
    assert comments_by_item(postgres_url) == expected
    assert json.loads(Path(written).read_text())["window"] == {"since": "2026-04-07", "until": "2026-04-13"}
