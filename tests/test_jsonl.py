import io
import json
from pathlib import Path
from typing import Any

from pytorch_insight.jsonl import export_items, import_file
from pytorch_insight.store import Store
from tests.conftest import RAW_WEEKS


def test_import_export_round_trip_of_the_shared_weeks_is_lossless(
    tmp_path: Path, shared_rows: list[dict[str, Any]]
) -> None:
    store = Store.open(str(tmp_path / "insight.db"))
    result = import_file(store, RAW_WEEKS)
    assert (result.imported, result.errors) == (len(shared_rows), [])
    out = io.StringIO()
    assert export_items(store.iter_items(), out) == len(shared_rows)
    exported = {(row["repo"], row["number"], row["url"]): row for row in map(json.loads, out.getvalue().splitlines())}
    for row in shared_rows:
        again = exported[(row["repo"], row["number"], row["url"])]
        assert {key: again[key] for key in row} == row
        assert set(again) - set(row) <= {"source"}


def test_importing_twice_changes_nothing(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "insight.db"))
    import_file(store, RAW_WEEKS)
    before = [item.model_dump() for item in store.iter_items()]
    import_file(store, RAW_WEEKS)
    assert [item.model_dump() for item in store.iter_items()] == before


def test_malformed_lines_are_reported_by_number_and_the_rest_imported(tmp_path: Path) -> None:
    good = {
        "repo": "o/r",
        "number": 1,
        "kind": "issue",
        "state": "open",
        "title": "t",
        "author": "a",
        "created": "2026-04-08",
        "labels": [],
        "body": "",
        "comments": [],
        "url": "https://github.com/o/r/issues/1",
    }
    lines = [
        json.dumps(good),
        "{not json",
        "[1, 2]",
        json.dumps({**good, "number": 2, "kind": "wiki"}),
        json.dumps({**good, "number": 3, "created": "last tuesday"}),
        "",
        json.dumps({"kind": "event", "title": "no id"}),
        json.dumps({**good, "number": 4}),
    ]
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(lines) + "\n")
    store = Store.open(str(tmp_path / "insight.db"))
    result = import_file(store, path)
    assert result.imported == 2
    assert [line for line, _ in result.errors] == [2, 3, 4, 5, 7]
    assert "kind" in result.errors[2][1] and "created" in result.errors[3][1]
    assert sorted(item.number for item in store.iter_items()) == [1, 4]
