"""Help and the shared options: `-h` is `--help`, a bare command shows help, and --db, --profile,
--config, -v and -q work before the command as well as after it."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from pytorch_insight.store import Store
from tests.conftest import RAW_WEEKS
from tests.test_cli import assert_one_line_error, isolated_home, run

__all__ = ["isolated_home"]  # the autouse fixture: no real config, data folder or network


@pytest.mark.parametrize("command", [[], ["collect"], ["report"], ["run"], ["import"], ["export"]])
def test_dash_h_is_help(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    long = run(capsys, *command, "--help")
    short = run(capsys, *command, "-h")
    # The project's behaviour, not click's wording (which changes between releases): -h gives
    # exactly what --help gives, succeeds, and names the command it documents.
    assert short == long and short[0] == 0 and short[2] == ""
    assert " ".join(["pytorch-insight", *command]) in short[1].splitlines()[0]


def test_the_bare_command_prints_help_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert (code, err) == (0, "")
    # The same text as --help (whatever click's layout of it), listing every command.
    assert run(capsys, "--help") == (0, out, "")
    for name in ("run", "collect", "report", "import", "export", "deliver", "mcp", "worker"):
        assert re.search(rf"^\s+{name}\s", out, re.MULTILINE), name
    assert run(capsys, "-q") == (0, out, "")


def test_db_and_quiet_before_or_after_the_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    before, after = str(tmp_path / "before.db"), str(tmp_path / "after.db")
    assert run(capsys, "--db", before, "-q", "import", str(RAW_WEEKS)) == (0, "", "")
    assert run(capsys, "import", "--db", after, "-q", str(RAW_WEEKS)) == (0, "", "")
    lines = len(RAW_WEEKS.read_text().splitlines())
    assert Store.open(before).count_items() == Store.open(after).count_items() == lines
    code, out, _ = run(capsys, "-q", "--db", before, "export", "-")
    assert code == 0 and len(out.splitlines()) == lines


def test_the_value_after_the_command_wins(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    first, second = str(tmp_path / "first.db"), str(tmp_path / "second.db")
    assert run(capsys, "--db", first, "import", "-q", "--db", second, str(RAW_WEEKS))[0] == 0
    assert Store.open(second).count_items() > 0 and not Path(first).exists()


@pytest.mark.parametrize("where", ["before", "after"])
def test_profile_and_config_before_or_after_the_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str
) -> None:
    for option, value, fragment in (
        ("--profile", "nope", "unknown profile 'nope'"),
        ("--config", str(tmp_path / "absent.toml"), "cannot read config file"),
    ):
        args = [option, value, "report"] if where == "before" else ["report", option, value]
        code, _, err = run(capsys, *args)
        assert code == 2
        assert_one_line_error(err, fragment)


def test_verbose_counts_add_up_across_the_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "i.db")
    run(capsys, "-v", "export", "--db", db, "-q", "-")
    assert logging.getLogger("pytorch_insight").level == logging.ERROR  # -q wins wherever it is
    run(capsys, "-v", "export", "--db", db, "-v", "-")
    assert logging.getLogger("pytorch_insight").level == logging.DEBUG
    run(capsys, "-v", "export", "--db", db, "-")
    assert logging.getLogger("pytorch_insight").level == logging.INFO
