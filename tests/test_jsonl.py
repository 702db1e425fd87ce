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


def issue_line(number: int, **extra: Any) -> str:
    return json.dumps(
        {
            "repo": "o/r",
            "number": number,
            "kind": "issue",
            "title": "t",
            "created": "2026-04-08",
            "url": f"https://github.com/o/r/issues/{number}",
            **extra,
        },
        ensure_ascii=False,
    )


def test_a_line_that_is_not_utf8_is_skipped_and_the_others_imported(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    broken = issue_line(2, title="caf\u00e9").encode("utf-8").replace("é".encode(), b"\xe9")  # Latin-1 é
    path.write_bytes(b"\n".join([issue_line(1).encode(), broken, issue_line(3, title="中文").encode()]) + b"\n")
    store = Store.open(str(tmp_path / "insight.db"))
    result = import_file(store, path)
    assert (result.imported, result.errors) == (2, [(2, "not valid UTF-8")])
    assert sorted(item.number for item in store.iter_items()) == [1, 3]
    assert store.get_items(["github:o/r#3"])["github:o/r#3"].title == "中文"


def test_lines_nested_too_deeply_are_skipped_and_the_others_imported(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    recursion = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"  # the JSON parser's recursion limit
    storage = issue_line(3, extra="X").replace('"X"', "[" * 500 + "]" * 500)  # parses, but cannot be stored
    path.write_text("\n".join([issue_line(1), recursion, storage, issue_line(4, extra=[[{"ok": [1]}]])]) + "\n")
    store = Store.open(str(tmp_path / "insight.db"))
    result = import_file(store, path)
    assert result.imported == 2
    assert [(line, message.split(" (")[0]) for line, message in result.errors] == [
        (2, "nested too deeply"),
        (3, "nested too deeply"),
    ]
    assert sorted(item.number for item in store.iter_items()) == [1, 4]


def test_a_byte_order_mark_does_not_cost_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "items.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + issue_line(1).encode() + b"\r\n" + issue_line(2).encode() + b"\r\n")
    result = import_file(Store.open(str(tmp_path / "insight.db")), path)
    assert (result.imported, result.errors) == (2, [])
