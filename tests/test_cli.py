"""The command line: bad input gives one line and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.cli import main
from pytorch_insight.store import Store
from tests.conftest import RAW_WEEKS, pytorch_threads
from tests.fakes.github import FakeGitHub


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")  # nothing listens there


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    captured = capsys.readouterr()
    return int(exit_info.value.code or 0), captured.out, captured.err


def assert_one_line_error(err: str, fragment: str) -> None:
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("error: ") and fragment in err, err


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["collect", "--since", "2026-02-30"], "--since must be a date"),
        (["collect", "--since", "2026-04-20", "--until", "2026-04-07"], "is after --until"),
        (["collect", "--profile", "nope"], "unknown profile 'nope'"),
        (["collect", "--config", "/nonexistent/config.toml"], "cannot read config file"),
        (["collect", "--since", "0001-01-01", "--until", "2026-04-20"], "--since 0001-01-01 is too early"),
        (["collect", "--until", "0001-01-01"], "--until 0001-01-01 is too early"),
        (["report", "--until", "9999-12-31"], "--until 9999-12-31 is in the future"),
        (["collect", "--since", "9999-12-31"], "is after --until"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(capsys: pytest.CaptureFixture[str], args: list[str], fragment: str) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert_one_line_error(err, fragment)


@pytest.mark.parametrize(
    ("args", "fragment", "hint"),
    [
        # The fragment is what the line must name (the option, command or argument at fault),
        # not click's sentence around it; the hint line is the project's own.
        (["collect", "--bogus"], "--bogus", "Try 'pytorch-insight collect --help' for help."),
        (["bogus"], "bogus", "Try 'pytorch-insight --help' for help."),
        (["import"], "PATH", "Try 'pytorch-insight import --help' for help."),
    ],
)
def test_usage_errors_keep_the_help_hint(
    capsys: pytest.CaptureFixture[str], args: list[str], fragment: str, hint: str
) -> None:
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, "")
    first, second = err.splitlines()
    assert first.startswith("error: ") and fragment in first and second == hint, err


def test_unusable_database_path(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, _, err = run(capsys, "import", "--db", str(blocker / "x" / "insight.db"), str(RAW_WEEKS))
    assert code == 1
    assert_one_line_error(err, "cannot create the database folder")


def test_unknown_repository_and_bad_token(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    start_github: Callable[..., FakeGitHub],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = start_github([], tokens={"good"})
    monkeypatch.setenv("GITHUB_API_URL", fake.url)
    code, _, err = run(
        capsys,
        "collect",
        "-q",
        "--source",
        "github",
        "--db",
        str(tmp_path / "i.db"),
        "--since",
        "2026-04-07",
        "--until",
        "2026-04-13",
    )
    assert code == 1
    assert_one_line_error(err, "pytorch/pytorch: repository not found (404)")
    monkeypatch.setenv("GITHUB_TOKEN", "wrong-token-value")
    code, out, err = run(
        capsys,
        "collect",
        "-q",
        "--source",
        "github",
        "--db",
        str(tmp_path / "i.db"),
        "--since",
        "2026-04-07",
        "--until",
        "2026-04-13",
    )
    assert code == 1
    assert_one_line_error(err, "GitHub rejected the token (401)")
    assert "wrong-token-value" not in out + err


def test_collect_prints_the_coverage_table(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    shared_rows: list[dict[str, Any]],
    start_github: Callable[..., FakeGitHub],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", start_github(shared_rows).url)
    db = str(tmp_path / "i.db")
    code, _, err = run(
        capsys, "collect", "--source", "github", "--db", db, "--since", "2026-04-07", "--until", "2026-04-20"
    )
    assert code == 0 and "Traceback" not in err
    for header in ("source", "items", "requests", "304s", "status", "note"):
        assert header in err
    assert "github" in err and "ok" in err
    stored = {item.number for item in Store.open(db).iter_items() if item.kind != "commit"}
    assert stored == pytorch_threads(shared_rows)
    code, out, err = run(
        capsys, "collect", "-q", "--source", "github", "--db", db, "--since", "2026-04-07", "--until", "2026-04-20"
    )
    assert (code, out, err) == (0, "", "")


def test_import_reports_bad_lines_and_keeps_the_good_ones(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    good = RAW_WEEKS.read_text().splitlines()[:3]
    path.write_text("\n".join([good[0], "{oops", good[1], '"just a string"', good[2]]) + "\n")
    db = str(tmp_path / "i.db")
    code, _, err = run(capsys, "import", "--db", db, str(path))
    assert code == 0
    assert f"{path}:2: skipped: not JSON" in err and f"{path}:4: skipped: expected a JSON object" in err
    assert "imported 3 items" in err and "; 2 lines skipped" in err and "Traceback" not in err
    path.write_text("{oops\n" + good[0] + "\n")
    code, _, err = run(capsys, "import", "--db", db, str(path))
    assert code == 0 and "imported 1 item from" in err and "; 1 line skipped" in err
    path.write_text("{oops\n")
    code, _, err = run(capsys, "import", "--db", db, str(path))
    assert code == 1 and Store.open(db).count_items() == 3


def test_export_to_a_file_and_to_stdout(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "i.db")
    run(capsys, "import", "-q", "--db", db, str(RAW_WEEKS))
    code, out, _ = run(capsys, "export", "-q", "--db", db, "-")
    assert code == 0 and len(out.splitlines()) == len(RAW_WEEKS.read_text().splitlines())
    code, _, _ = run(
        capsys, "export", "-q", "--db", db, "--since", "2026-04-07", "--until", "2026-04-08", str(tmp_path / "o.jsonl")
    )
    dates = {json.loads(line)["created"][:10] for line in (tmp_path / "o.jsonl").read_text().splitlines()}
    assert code == 0 and dates <= {"2026-04-07", "2026-04-08"} and dates
    code, _, err = run(capsys, "export", "--db", db, str(tmp_path / "missing-dir" / "o.jsonl"))
    assert code == 1
    assert_one_line_error(err, "cannot write")


def test_the_installed_console_script_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytorch_insight", "collect", "--since", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --since must be a date like 2026-04-07, got 'nope'"


def test_report_and_export_leave_the_database_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import hashlib

    db = tmp_path / "insight.db"
    assert run(capsys, "import", "-q", "--db", str(db), str(RAW_WEEKS))[0] == 0
    Store.open(str(db)).close()  # let the writer's journal settle into the file
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    window = ("--since", "2026-04-07", "--until", "2026-04-20")
    assert run(capsys, "export", "-q", "--db", str(db), str(tmp_path / "out.jsonl"))[0] == 0
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    # `report` reads the database read-only; its one write is the record of what it showed, for
    # next week's follow-up: items and runs stay as they were.
    items, runs = list(Store.open(str(db), readonly=True).iter_items()), Store.open(str(db), readonly=True).runs()
    assert run(capsys, "report", "-q", "--db", str(db), *window, "--out", str(tmp_path / "site"))[0] == 0
    after = Store.open(str(db), readonly=True)
    assert list(after.iter_items()) == items and after.runs() == runs
    assert after.snapshot_ending("pytorch", "generalist", "2026-04-20") is not None
