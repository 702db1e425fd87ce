"""Results on stdout, messages on stderr: written paths one per line, --json documents, a report
written to `-`, report file names per reader, and counted nouns that agree with their numbers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RAW_WEEKS
from tests.fakes.github import FakeGitHub
from tests.test_cli import assert_one_line_error, isolated_home, run

__all__ = ["isolated_home"]  # the autouse fixture: no real config, data folder or network

WEEK = ("--since", "2026-04-07", "--until", "2026-04-13")
STEM = "2026-04-07_2026-04-13"


@pytest.fixture
def db(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> str:
    path = str(tmp_path / "insight.db")
    assert run(capsys, "import", "-q", "--db", path, str(RAW_WEEKS))[0] == 0
    return path


def test_report_prints_the_written_paths_whole_on_stdout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    out = tmp_path / ("a-folder-name-long-enough-that-its-paths-pass-eighty-columns-" * 2) / "reports"
    code, stdout, stderr = run(capsys, "report", "--db", db, *WEEK, "--out", str(out))
    assert code == 0
    assert stdout.splitlines() == [str(out / f"{STEM}.{fmt}") for fmt in ("md", "html", "json")]
    assert all((out / f"{STEM}.{fmt}").is_file() for fmt in ("md", "html", "json"))
    assert stderr.startswith("report: ") and " items, " in stderr and str(out) not in stderr
    assert run(capsys, "report", "-q", "--db", db, *WEEK, "--out", str(out), "--format", "md") == (
        0,
        f"{out / STEM}.md\n",
        "",
    )


def test_report_json_lists_the_written_paths(capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str) -> None:
    out = tmp_path / "site"
    code, stdout, _ = run(capsys, "report", "--db", db, *WEEK, "--out", str(out), "--format", "json,md", "--json")
    document = json.loads(stdout)
    assert code == 0 and (document["since"], document["until"]) == ("2026-04-07", "2026-04-13")
    assert document["written"] == [str(out / f"{STEM}.json"), str(out / f"{STEM}.md")]
    assert document["items"] == len(json.loads((out / f"{STEM}.json").read_text())["items"])


@pytest.mark.parametrize(("fmt", "start"), [(None, "# "), ("md", "# "), ("html", "<!DOCTYPE html>"), ("json", "{")])
def test_report_to_stdout_writes_one_format_and_no_folder(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    db: str,
    fmt: str | None,
    start: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    formats = ["--format", fmt] if fmt else []
    code, stdout, _ = run(capsys, "report", "-q", "--db", db, *WEEK, "--lang", "en", "--out", "-", *formats)
    assert code == 0 and stdout.startswith(start) and "2026-04-07" in stdout
    assert not (tmp_path / "-").exists() and not (tmp_path / "reports").exists()
    if fmt == "json":
        assert json.loads(stdout)["lang"] == "en"


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--format", "md,html"], "--out - writes one format to stdout"),
        (["--json"], "--out - and --json both write to stdout"),
    ],
)
def test_report_to_stdout_refuses_what_cannot_share_it(
    capsys: pytest.CaptureFixture[str], db: str, extra: list[str], fragment: str
) -> None:
    code, stdout, stderr = run(capsys, "report", "--db", db, *WEEK, "--out", "-", *extra)
    assert (code, stdout) == (2, "") and stderr.startswith("error: ") and fragment in stderr


def test_collect_and_run_json_on_stdout(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    shared_rows: list[dict[str, Any]],
    start_github: Callable[..., FakeGitHub],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", start_github(shared_rows).url)
    db = str(tmp_path / "i.db")
    code, stdout, stderr = run(capsys, "collect", "--json", "--source", "github", "--db", db, *WEEK)
    document = json.loads(stdout)
    assert code == 0 and (document["since"], document["until"]) == ("2026-04-07", "2026-04-13")
    [github] = document["sources"]
    assert github["name"] == "github" and github["status"] == "ok" and github["items"] > 0
    assert set(github) == {"name", "status", "items", "requests", "not_modified", "note"}
    assert "Collected" not in stderr  # the JSON replaces the table; progress stays on stderr
    out = tmp_path / "site"
    code, stdout, _ = run(capsys, "run", "-q", "--json", "--source", "github", "--db", db, *WEEK, "--out", str(out))
    document = json.loads(stdout)
    assert code == 0 and document["sources"][0]["not_modified"] > 0
    assert document["written"] == [str(out / f"{STEM}.{fmt}") for fmt in ("md", "html", "json")]


def test_run_prints_the_written_paths_on_stdout(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    shared_rows: list[dict[str, Any]],
    start_github: Callable[..., FakeGitHub],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", start_github(shared_rows).url)
    out = tmp_path / "site"
    code, stdout, stderr = run(
        capsys, "run", "--source", "github", "--db", str(tmp_path / "i.db"), *WEEK, "--out", str(out), "--format", "md"
    )
    assert (code, stdout) == (0, f"{out / STEM}.md\n")
    assert "Collected 2026-04-07 – 2026-04-13" in stderr and "report: " in stderr


def test_counted_nouns_agree_with_their_numbers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    one.write_text(RAW_WEEKS.read_text().splitlines()[0] + "\n{oops\n")
    db = str(tmp_path / "i.db")
    code, _, stderr = run(capsys, "import", "--db", db, str(one))
    assert code == 0 and f"imported 1 item from {one}; 1 line skipped" in stderr
    code, _, stderr = run(capsys, "export", "--db", db, str(tmp_path / "out.jsonl"))
    assert code == 0 and stderr == f"exported 1 item to {tmp_path / 'out.jsonl'}\n"


def test_another_reader_does_not_overwrite_the_default_readers_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    out = tmp_path / "site"
    for extra in ([], ["--reader", "compiler"], ["--reader", "compiler", "--lang", "en"], ["--reader", "generalist"]):
        assert run(capsys, "report", "-q", "--db", db, *WEEK, "--out", str(out), *extra)[0] == 0
    stems = (STEM, f"{STEM}.compiler", f"{STEM}.compiler.en")
    assert {path.name for path in out.iterdir()} == {f"{s}.{f}" for s in stems for f in ("md", "html", "json")} | {
        "index.html",
        "feed.xml",
    }
    assert json.loads((out / f"{STEM}.json").read_text())["reader"] == "generalist"
    assert json.loads((out / f"{STEM}.compiler.en.json").read_text())["reader"] == "compiler"
    index, feed = (out / "index.html").read_text(), (out / "feed.xml").read_text()
    for stem in stems:
        assert f'href="{stem}.html"' in index and f'href="{stem}.html"' in feed


def test_a_database_damaged_under_a_command_is_one_error_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db: str
) -> None:
    import sqlite3

    # The tables the migrations recorded are gone: the store opens, the first read fails.
    with sqlite3.connect(db) as connection:
        connection.execute("DROP TABLE items")
    code, out, err = run(capsys, "report", "--db", db, *WEEK, "--out", str(tmp_path / "r"))
    assert code == 1 and out == ""
    assert_one_line_error(err, "error: database: no such table: items")
