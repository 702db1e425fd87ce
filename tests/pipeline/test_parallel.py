"""A large window is read by several processes with the answers one process gives, in order, and a
child that dies loses no item."""

from __future__ import annotations

import json
import os
import threading
from functools import partial
from pathlib import Path

import pytest

from pytorch_insight.jsonl import item_from_line
from pytorch_insight.model import Item
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.parallel import PROCESSES_ENV, read_items
from pytorch_insight.pipeline.read import ItemReader
from tests.pipeline.helpers import PROFILE

WEEK = Path(__file__).parents[1] / "data" / "raw" / "pytorch-2026-03-16_2026-03-22.jsonl"


def week() -> list[Item]:
    with WEEK.open(encoding="utf-8") as handle:
        return [item_from_line(json.loads(line)) for line in handle if line.strip()]


def reader() -> partial[ItemReader]:
    return partial(ItemReader, PROFILE, PROFILE.reader(None), True, None)


def read_of(assessment: Assessment) -> tuple:
    return (
        assessment.item,
        assessment.features,
        assessment.facts,
        assessment.noise,
        assessment.area_evidence,
        assessment.learned,
        assessment.text_signals,
    )


def test_several_processes_read_what_one_reads_in_the_same_order() -> None:
    items = week()
    alone = read_items(items, reader(), processes=1)
    # A stream's batches travel to the children; a list's stay, and each child reads a batch by its
    # place in the list (the first items are read here before the children start).
    for window in (iter(items), items):
        pooled = read_items(window, reader(), processes=2, parallel_from=10)
        assert [a.id for a in pooled] == [each.id for each in items]
        assert [read_of(a) for a in pooled] == [read_of(a) for a in alone]


class DyingInChildren(ItemReader):
    """A reader whose process dies on one item unless it is the parent's (a child killed for its
    memory, say)."""

    parent = os.getpid()

    def read(self, item: Item) -> Assessment:
        if item.number is not None and item.number % 7 == 0 and os.getpid() != self.parent:
            os._exit(1)
        return super().read(item)


def test_a_child_that_dies_loses_no_item() -> None:
    items = week()
    make = partial(DyingInChildren, PROFILE, PROFILE.reader(None), True, None)
    assert any(each.number % 7 == 0 for each in items)
    pooled = read_items(items, make, processes=2, parallel_from=10)
    assert [a.id for a in pooled] == [each.id for each in items]
    assert all(a.item is each for a, each in zip(pooled, items, strict=True))


class Stamping(ItemReader):
    """A reader that notes which process read each item."""

    def read(self, item: Item) -> Assessment:
        assessment = super().read(item)
        assessment.activity = os.getpid()
        return assessment


def test_a_large_window_is_read_by_other_processes_unless_one_is_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    make = partial(Stamping, PROFILE, PROFILE.reader(None), True, None)
    pooled = read_items(week(), make, processes=2, parallel_from=10)
    assert {a.activity for a in pooled} - {os.getpid()}
    monkeypatch.setenv(PROCESSES_ENV, "1")
    alone = read_items(week(), make, parallel_from=10)
    assert {a.activity for a in alone} == {os.getpid()}
    small = read_items(week()[:5], make, processes=2, parallel_from=10)
    assert {a.activity for a in small} == {os.getpid()}


def test_a_threaded_process_reads_with_children_of_a_fresh_server() -> None:
    # Forking while another thread may hold a lock can deadlock the child: with a second thread
    # alive, the children come from a fresh process, and read the same.
    items = week()
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        make = partial(Stamping, PROFILE, PROFILE.reader(None), True, None)
        pooled = read_items(items, make, processes=2, parallel_from=10)
    finally:
        release.set()
        other.join()
    assert {a.activity for a in pooled} - {os.getpid()}
    alone = read_items(items, reader(), processes=1)
    assert [read_of(a) for a in pooled] == [read_of(a) for a in alone]
