"""A task's writes behind its requests: in order, read back by its lookups, and a failed write
failing the task."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from pytorch_insight.errors import StoreError
from pytorch_insight.model import Comment, Item
from pytorch_insight.store import Store
from pytorch_insight.workers.writes import WriteBehind


def item(number: int, *comments: str) -> Item:
    return Item(
        id=f"github:acme/a#{number}",
        source="github",
        kind="issue",
        repo="acme/a",
        number=number,
        comments=[Comment(author="x", date="2026-04-08", body=body) for body in comments],
    )


def test_a_lookup_reads_back_every_write_queued_before_it_in_order(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "i.db"))
    writes = WriteBehind(store)
    for number in range(1, 50):
        writes.save([item(number, "first")])
    writes.save([item(7, "second")])  # the same item again: its threads merge as written in turn
    found = writes.lookup([item(n).id for n in range(1, 50)])
    writes.close()
    assert len(found) == 49
    assert [comment.body for comment in found[item(7).id].comments] == ["first", "second"]


class FailingStore:
    def __init__(self) -> None:
        self.written: list[list[Item]] = []

    def save_items(self, batch: Sequence[Item]) -> int:
        if len(self.written) == 1:
            raise StoreError("cannot write to the database: disk full")
        self.written.append(list(batch))
        return len(batch)


def test_a_failed_write_fails_the_task_and_drops_the_writes_after_it() -> None:
    store = FailingStore()
    writes = WriteBehind(store)  # type: ignore[arg-type]
    for number in range(1, 4):
        writes.save([item(number)])
    with pytest.raises(StoreError, match="disk full"):
        writes.close()
    assert [[i.number for i in batch] for batch in store.written] == [[1]]
