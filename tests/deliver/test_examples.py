"""The examples stay usable: the config loads with every target valid, and each command in the cron
line and the workflow parses with the options the CLI has."""

from __future__ import annotations

import re
import shlex
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
        for match in re.finditer(r"pytorch-insight ([^&>|;\n]+)", line):
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
