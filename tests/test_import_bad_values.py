"""Import on SQLite and PostgreSQL: a value the store cannot hold (a date that overflows on
conversion to UTC, a number past any integer column) costs its own line only, named with its
line number and field; every good line around it is stored, also in the same batch of 500."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.cli import main
from pytorch_insight.jsonl import BATCH, import_lines
from pytorch_insight.store import Store


def line(number: int, **extra: Any) -> str:
    row = {
        "repo": "o/r",
        "number": number,
        "kind": "issue",
        "state": "open",
        "title": f"t{number}",
        "created": "2026-04-08T10:00:00Z",
        "url": f"https://github.com/o/r/issues/{number}",
    }
    return json.dumps({**row, **extra})


def test_bad_values_cost_their_own_line_only(any_db: str) -> None:
    lines = [line(n) for n in range(1, BATCH + 50)]
    lines[3] = line(4, created="9999-12-31T23:59:59-14:00")
    lines[10] = line(11, closed="0001-01-01T00:00:00+01:00")
    lines[20] = json.dumps({**json.loads(line(21)), "number": 10**30})
    lines[30] = line(31, comment_count=10**30)
    store = Store.open(any_db)
    result = import_lines(store, lines)
    assert [number for number, _ in result.errors] == [4, 11, 21, 31]
    reasons = dict(result.errors)
    assert "created" in reasons[4] and "closed" in reasons[11]
    assert "number" in reasons[21] and "comment_count" in reasons[31]
    assert result.imported == len(lines) - 4
    assert len(list(store.iter_items())) == len(lines) - 4


def test_the_command_names_each_bad_line_and_goes_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "items.jsonl"
    path.write_text(
        "\n".join(
            [
                line(1, created="9999-12-31T23:59:59-14:00"),
                json.dumps({**json.loads(line(2)), "number": 10**30}),
                line(3),
            ]
        )
        + "\n"
    )
    with pytest.raises(SystemExit) as exit_info:
        main(["--db", str(tmp_path / "x.db"), "import", str(path)])
        raise SystemExit(0)
    err = capsys.readouterr().err
    assert exit_info.value.code in (0, None) and "Traceback" not in err
    assert f"{path}:1: skipped: invalid at created" in err and f"{path}:2: skipped: invalid at number" in err
    assert "imported 1 item" in err


def test_a_line_only_the_database_refuses_costs_that_line(any_db: str) -> None:
    """PostgreSQL refuses an author longer than its column, which SQLite stores."""
    lines = [line(n) for n in range(1, 20)]
    lines[5] = line(6, author="x" * 300)
    store = Store.open(any_db)
    result = import_lines(store, lines)
    stored = {item.number for item in store.iter_items()}
    assert set(range(1, 20)) - {6} <= stored
    assert result.imported == len(stored)
    assert [number for number, _ in result.errors] == ([] if 6 in stored else [6])
