"""The examples stay usable: the config loads with every target valid, and each command in the cron
line and the workflow parses with the options the CLI has."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import click
import pytest

from pytorch_insight.cli import CONTEXT_SETTINGS, cli
from pytorch_insight.config import load_settings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def commands(path: Path) -> list[list[str]]:
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("#"):
            continue
        for match in re.finditer(r"pytorch-insight\"? ([^&>|;\n]+)", line):
            found.append(shlex.split(match.group(1)))
    return found


def test_the_example_config_names_every_kind_of_target(tmp_path: Path) -> None:
    settings = load_settings(config_file=str(EXAMPLES / "config.toml"), db=str(tmp_path / "x.db"), env={})
    assert {target.type for target in settings.delivery} == {"slack", "feishu", "dingtalk", "email"}
    assert all(target.url is None and target.secret is None and target.password is None for target in settings.delivery)


@pytest.mark.parametrize("name", ["crontab", "weekly-report.yml"])
def test_the_example_commands_parse(name: str) -> None:
    found = commands(EXAMPLES / name)
    assert found, f"no pytorch-insight command in {name}"
    for args in found:
        command = cli.commands[args[0]]
        # The parent as the CLI makes it: click caches a command's help option from the first
        # context it sees, so a bare parent would take "-h" away from later tests.
        parent = click.Context(cli, **CONTEXT_SETTINGS)
        with command.make_context(args[0], args[1:], parent=parent) as context:
            assert context.params is not None
    used = {args[0] for args in found}
    assert "run" in used
    if name == "weekly-report.yml":
        text = (EXAMPLES / name).read_text(encoding="utf-8")
        assert (
            "deliver" in used and "--site" in text and "actions/cache/restore" in text and 'cron: "0 1 * * 1"' in text
        )


def test_the_crontab_line_runs_under_crons_path(tmp_path: Path) -> None:
    """cron gives a job PATH=/usr/bin:/bin and little else: the line must find the command that
    the README's install (a virtual environment in the checkout) puts in .venv/bin."""
    line = next(line for line in (EXAMPLES / "crontab").read_text(encoding="utf-8").splitlines() if line[:1].isdigit())
    command = line.split(None, 5)[5]  # after the five schedule fields
    home = tmp_path / "home"
    checkout = home / "insight"
    stub = checkout / ".venv" / "bin" / "pytorch-insight"
    stub.parent.mkdir(parents=True)
    stub.write_text('#!/bin/sh\necho "ran: $*" > "$HOME/ran.txt"\n', encoding="utf-8")
    stub.chmod(0o755)
    (home / ".insight.env").write_text("GITHUB_TOKEN=x\n", encoding="utf-8")
    done = subprocess.run(
        ["/bin/sh", "-c", command], env={"PATH": "/usr/bin:/bin", "HOME": str(home), "SHELL": "/bin/sh"}, timeout=30
    )
    assert done.returncode == 0, (checkout / "weekly.log").read_text(encoding="utf-8")
    assert (home / "ran.txt").read_text(encoding="utf-8").startswith("ran: run -q --config examples/config.toml")


def test_the_workflow_never_leaves_its_cache_unread_for_seven_days() -> None:
    """GitHub evicts a cache unread for 7 days; a weekly restore sits at that limit."""
    text = (EXAMPLES / "weekly-report.yml").read_text(encoding="utf-8")
    days = sorted(int(found) for found in re.findall(r'cron: "\d+ \d+ \* \* (\d)"', text))
    gaps = [(later - earlier) % 7 or 7 for earlier, later in zip(days, days[1:] + days[:1], strict=True)]
    assert len(days) >= 2 and max(gaps) < 7, days
    restore = text.index("actions/cache/restore")
    assert "if:" not in text[text.rindex("- ", 0, restore) : restore]  # every run restores ...
    save = text.index("actions/cache/save")
    assert "if: always()" in text[save : save + 120]  # ... and saves, whatever failed
