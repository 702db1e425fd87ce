"""A newcomer without network gets a first report from one documented command in a clone: the
README's offline route reads only what the clone carries (tests/data/), never ../shared."""

from __future__ import annotations

import json
import re
import shlex
from datetime import date
from pathlib import Path

import pytest

from pytorch_insight.offline import offline_window
from tests.conftest import RAW_WEEKS
from tests.test_cli import assert_one_line_error, isolated_home, run

__all__ = ["isolated_home"]  # the autouse fixture: no real config, data folder or network

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_offline_command() -> list[str]:
    section = README.split("## Trying it offline", 1)[1]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    line = next(line for line in block.splitlines() if line.startswith("pytorch-insight "))
    return shlex.split(line)[1:]


def test_the_readme_offline_command_writes_a_report_in_a_bare_clone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = tmp_path / "clone"  # a clone: its tests/ folder, nothing beside it
    clone.mkdir()
    (clone / "tests").symlink_to(ROOT / "tests")
    monkeypatch.chdir(clone)
    code, out, err = run(capsys, *readme_offline_command())  # GITHUB_API_URL points at nothing
    assert code == 0, err
    written = [Path(line) for line in out.splitlines()]
    assert {path.name for path in written} >= {f"2026-04-14_2026-04-20.{kind}" for kind in ("md", "html", "json")}
    document = json.loads(next(path for path in written if path.suffix == ".json").read_text(encoding="utf-8"))
    assert document["window"] == {"since": "2026-04-14", "until": "2026-04-20"} and document["focus"]
    assert document["follow_up"]["previous"]["since"] == "2026-04-07"  # the week before, from the same file


def test_the_readme_routes_need_nothing_beside_the_clone() -> None:
    assert "../shared" not in README
    assert re.search(r"Python 3\.11", README) and "python3 -m venv" in README


def test_the_window_is_the_files_last_active_week_unless_asked() -> None:
    today = date(2026, 12, 1)
    assert offline_window(RAW_WEEKS, None, None, today).since == date(2026, 4, 14)
    assert offline_window(RAW_WEEKS, "2026-04-07", "2026-04-13", today).until == date(2026, 4, 13)


def test_offline_takes_no_sources_and_names_an_unreadable_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "run", "--offline", str(RAW_WEEKS), "--source", "github", "--db", str(tmp_path / "x"))
    assert code == 2
    assert_one_line_error(err, "--offline")
    code, _, err = run(capsys, "run", "--offline", str(tmp_path / "absent.jsonl"), "--db", str(tmp_path / "x.db"))
    assert code == 1
    assert_one_line_error(err, "cannot read")
