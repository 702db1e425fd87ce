"""The command as a real process: what a pipe gets on stdout and stderr, the last line after a
collection without network, the log levels of -v / -vv / -vvv, standard input, and Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pytorch_insight
from pytorch_insight.cli import INTERRUPTED
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.conftest import RAW_WEEKS
from tests.fakes.github import FakeGitHub

NOWHERE = "http://127.0.0.1:9"  # nothing listens there: connections are refused at once
WEEK = ("--since", "2026-04-07", "--until", "2026-04-13")
# Run the code under test, wherever the installed package points.
SOURCE_ROOT = str(Path(pytorch_insight.__file__).resolve().parents[1])


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A clean environment: no terminal settings, no token, a private config and data folder."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"GITHUB_TOKEN", "COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"}
    }
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [SOURCE_ROOT, env.get("PYTHONPATH")]))
    env |= {"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    env |= {"GITHUB_API_URL": NOWHERE, **extra}
    return env


def insight(tmp_path: Path, *args: str, stdin: bytes = b"", **env: str) -> subprocess.CompletedProcess[str]:
    """Run the command with `stdin` as its input (bytes: it may be anything)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytorch_insight", *args],
        input=stdin,
        env=environment(tmp_path, **env),
        capture_output=True,
        timeout=300,
    )
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def offline_profile(tmp_path: Path) -> tuple[Path, Path]:
    """A profile whose GitHub and forum both point nowhere, and a config that does not retry."""
    profile = tmp_path / "offline.toml"
    profile.write_text(
        'name = "offline"\ntitle = { zh = "离线", en = "Offline" }\n[github]\nrepositories = ["o/r"]\n'
        f'[[forums]]\nname = "f"\nurl = "{NOWHERE}"\n'
    )
    config = tmp_path / "config.toml"
    config.write_text("[http]\nmax_attempts = 1\n")
    return profile, config


def test_run_without_network_names_the_failed_sources_as_the_last_line(tmp_path: Path) -> None:
    profile, config = offline_profile(tmp_path)
    db = str(tmp_path / "i.db")
    common = ("--profile", str(profile), "--config", str(config), "--db", db)
    result = insight(tmp_path, "run", *common, *WEEK, "--source", "github", "--source", "forum")
    assert result.returncode == 1 and result.stdout == "" and "Traceback" not in result.stderr
    stored = {s.name: s for s in Store.open(db).latest_statuses(make_window(*WEEK[1::2]))}
    statuses = [stored["github"], stored["forum:f"]]  # in the order they ran
    assert len(stored) == 2 and all(s.status.value == "failed" and s.note for s in statuses)
    lines = result.stderr.splitlines()
    assert lines[-1] == "error: collection failed: " + "; ".join(f"{s.name}: {s.note}" for s in statuses)
    assert "run `collect`" not in result.stderr
    # each source has its own progress lines, from its start, even with nothing to show
    assert lines.index("github: starting") < lines.index("forum:f: starting")
    assert "github: done (failed)" in lines and "forum:f: done (failed)" in lines
    # the table is not cut at 80 columns in a pipe: every note is whole on its row
    for status in statuses:
        assert any(status.name in line and status.note in line for line in lines), status.note


def test_a_pipe_gets_only_the_written_paths_on_stdout(tmp_path: Path) -> None:
    db = str(tmp_path / "i.db")
    assert insight(tmp_path, "import", "-q", "--db", db, str(RAW_WEEKS)).returncode == 0
    out = tmp_path / ("a-long-folder-name-for-paths-wider-than-eighty-columns-" * 2)
    result = insight(tmp_path, "report", "--db", db, *WEEK, "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [str(out / f"2026-04-07_2026-04-13.{fmt}") for fmt in ("md", "html", "json")]
    assert result.stderr.startswith("report: ") and str(out) not in result.stderr


def test_import_reads_standard_input(tmp_path: Path) -> None:
    db = str(tmp_path / "i.db")
    lines = RAW_WEEKS.read_bytes().splitlines()[:3]
    data = b"\n".join([lines[0], b'{"title": "caf\xe9"}', lines[1], b"{oops", lines[2]]) + b"\n"
    result = insight(tmp_path, "import", "--db", db, "-", stdin=data)
    assert result.returncode == 0 and result.stdout == ""
    lines = result.stderr.splitlines()
    # The parser's own sentence in brackets is Python's json module's and may change; the line
    # number, the verdict and the column are the project's.
    assert lines[0] == "<stdin>:2: skipped: not valid UTF-8" and len(lines) == 3
    assert lines[1].startswith("<stdin>:4: skipped: not JSON (") and lines[1].endswith(" at column 2)")
    assert lines[2] == "imported 3 items from <stdin>; 2 lines skipped"
    assert Store.open(db).count_items() == 3


@pytest.mark.parametrize(
    ("flag", "shown", "hidden"),
    [
        ("-v", ["INFO pytorch_insight.collect: github: ok", "INFO pytorch_insight.http: GET"], ["httpx", "httpcore"]),
        ("-vv", ["INFO pytorch_insight.collect", "INFO pytorch_insight.http: GET"], ["httpx", "httpcore"]),
        ("-vvv", ["INFO pytorch_insight.http: GET", "DEBUG httpcore"], []),
    ],
)
def test_verbosity_shows_the_projects_log_before_the_http_libraries(
    tmp_path: Path,
    shared_rows: list[dict[str, Any]],
    start_github: Callable[..., FakeGitHub],
    flag: str,
    shown: list[str],
    hidden: list[str],
) -> None:
    fake = start_github([row for row in shared_rows if row["created"][:10] <= "2026-04-09"])
    db, window = str(tmp_path / "i.db"), ("--since", "2026-04-07", "--until", "2026-04-08")
    result = insight(tmp_path, "collect", flag, "--source", "github", "--db", db, *window, GITHUB_API_URL=fake.url)
    assert result.returncode == 0, result.stderr
    for fragment in shown:
        assert fragment in result.stderr, fragment
    for fragment in hidden:
        assert fragment not in result.stderr, fragment


def test_ctrl_c_keeps_what_was_stored_and_says_how_to_continue(
    tmp_path: Path, shared_rows: list[dict[str, Any]], start_github: Callable[..., FakeGitHub]
) -> None:
    fake = start_github(shared_rows, latency=0.2)
    db = str(tmp_path / "i.db")
    args = ("collect", "--source", "github", "--db", db, "--since", "2026-04-07", "--until", "2026-04-20")
    process = subprocess.Popen(
        [sys.executable, "-m", "pytorch_insight", *args],
        env=environment(tmp_path, GITHUB_API_URL=fake.url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    seen = []
    try:
        for line in process.stderr:  # the first step's pages are stored once the second step begins
            seen.append(line)
            if line.startswith("github: ") and "issues and pull requests" not in line and "starting" not in line:
                break
        process.send_signal(signal.SIGINT)
        stdout, rest = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, "".join(seen) + rest
    assert stdout == "" and "Traceback" not in rest
    assert rest.splitlines()[-1] == INTERRUPTED
    assert Store.open(db).count_items() > 0
