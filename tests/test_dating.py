"""An item that arrives without a creation date is dated by the numbers around it, or named: it
never vanishes from every window unsaid."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytorch_insight.cli import main
from pytorch_insight.dating import date_items
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.pipeline.helpers import item


def undated(number: int, **fields):  # type: ignore[no-untyped-def]
    return item(number, f"thread {number}", created=None, **fields)


def test_an_undated_thread_takes_the_date_of_its_dated_predecessor_and_says_so() -> None:
    items, left = date_items(
        [item(10, created="2026-06-01T08:00:00Z"), undated(11), item(12, created="2026-06-02T09:00:00Z")]
    )
    [dated] = [i for i in items if i.number == 11]
    assert dated.created == "2026-06-01T08:00:00Z"
    assert "#10" in dated.model_extra["created_estimate"] and "#12" in dated.model_extra["created_estimate"]
    assert dated.active_in(make_window("2026-06-01", "2026-06-07"))
    assert left == []


def test_without_a_predecessor_its_own_earliest_activity_dates_it_and_with_nothing_it_is_named() -> None:
    from pytorch_insight.model import Comment

    commented = undated(5, comments=[Comment(author="a", date="2026-06-03T10:00:00Z", body="x")])
    lonely = item(7, "t", created=None, repo="other/repo")
    items, left = date_items([commented, item(9, created="2026-06-04T00:00:00Z"), lonely])
    assert next(i for i in items if i.number == 5).created == "2026-06-03T10:00:00Z"
    assert left == [lonely] and lonely in items  # kept, and named by the caller


def test_import_dates_undated_lines_and_names_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {"repo": "a/b", "number": 1, "kind": "issue", "title": "one", "created": "2026-06-01"},
        {"repo": "a/b", "number": 2, "kind": "issue", "title": "two", "created": None},
        {"repo": "c/d", "number": 3, "kind": "issue", "title": "three"},
        {"repo": "a/b", "number": 4, "kind": "issue", "title": "four", "created": "2026-06-03"},
    ]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    db = tmp_path / "i.db"
    with pytest.raises(SystemExit) as exit_info:
        main(["import", str(path), "--db", str(db)])
        raise SystemExit(0)
    assert exit_info.value.code in (0, None)
    err = capsys.readouterr().err
    assert f"{path}:2: note: no creation date; dated 2026-06-01" in err
    assert f"{path}:3: note: no date at all" in err
    assert "imported 4 items" in err
    store = Store.open(str(db), readonly=True)
    stored = {
        i.number: i
        for i in store.get_items(
            [f"github:{r}#{n}" for r, n in (("a/b", 1), ("a/b", 2), ("c/d", 3), ("a/b", 4))]
        ).values()
    }
    assert set(stored) == {1, 2, 3, 4}
    assert stored[2].created.startswith("2026-06-01")


def test_a_report_shows_an_inferred_date_as_estimated_never_as_known() -> None:
    from pytorch_insight.report.render import render_markdown
    from tests.report.fixtures import WINDOW, report_of

    items, _ = date_items(
        [item(10, "thread 10", created="2026-04-08T08:00:00Z"), undated(11), item(12, created="2026-04-09T09:00:00Z")]
    )
    report = report_of(items, window=WINDOW)
    rows = {row.ref: row for group in report.activity for row in group.rows}
    assert (rows["#11"].date, rows["#11"].date_estimated) == ("2026-04-08", True)
    assert not rows["#10"].date_estimated
    text = render_markdown(report)
    # the date says what it was inferred from, which the reader can check: the dated thread before it
    assert r"≈2026-04-08 (estimated: opened after \#10)" in text
    assert text.count("(estimated") == sum(e.created_estimated for e in report.focus) + 1
    # a report stored before dates said what they were inferred from keeps its bare mark
    for group in report.activity:
        for row in group.rows:
            row.date_basis = ""
    assert "≈2026-04-08 (estimated) |" in render_markdown(report)
    # an item no neighbour dates is dated by its earliest activity, and says so
    alone, _ = date_items([undated(11).model_copy(update={"updated": "2026-04-09T10:00:00Z"})])
    assert "≈2026-04-09 (estimated: from its earliest activity)" in render_markdown(report_of(alone, window=WINDOW))
