""".ci/run tests what a new machine gets: a fresh virtual environment whose dependencies resolve to
their newest allowed versions, then exactly the README's test command inside it. (A machine that
already had an older click hid a failing test once: CI must not reuse what the machine has.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_test_command() -> str:
    quick_start = (ROOT / "README.md").read_text(encoding="utf-8").split("## Quick start", 1)[1]
    block = quick_start.split("```bash", 1)[1].split("```", 1)[0]
    for line in block.splitlines():
        command = line.split("#", 1)[0].strip()
        if "pytest" in command:
            return command
    raise AssertionError("the README's quick start names no test command")


def script_lines() -> list[str]:
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_ci_installs_into_a_fresh_virtual_environment_with_the_newest_versions() -> None:
    lines = script_lines()
    venv = next((i for i, line in enumerate(lines) if re.search(r"\bpython3? -m venv\b", line)), None)
    assert venv is not None, ".ci/run creates no virtual environment"
    activate = next(i for i, line in enumerate(lines) if re.search(r"^(\.|source) .*bin/activate", line))
    installs = [i for i, line in enumerate(lines) if re.search(r"\bpip install\b", line)]
    assert venv < activate < installs[0], "every install goes into the fresh environment"
    upgrade = [lines[i] for i in installs if "--upgrade" in lines[i] and ".[dev" in lines[i]]
    assert upgrade, "the project's dependencies are resolved to their newest allowed versions"
    assert "--system-site-packages" not in lines[venv]


def test_ci_ends_with_exactly_the_readme_test_command() -> None:
    assert script_lines()[-1] == readme_test_command()
