"""The collection run: one source failing never stops the others; interruptions keep whole pages."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from pytorch_insight.collect import overall_status, run_collection
from pytorch_insight.model import CoverageStatus, Item, SourceStatus
from pytorch_insight.sources import Emit, NoProgress, Progress
from pytorch_insight.store import Store
from pytorch_insight.window import Window
from tests.conftest import SHARED_WINDOW


def item(number: int) -> Item:
    return Item(
        id=f"github:o/r#{number}",
        source="scripted",
        kind="issue",
        repo="o/r",
        number=number,
        created="2026-04-08T12:00:00Z",
    )


class ScriptedSource:
    """Emits the given pages, then ends with `status` or raises `error`."""

    def __init__(
        self,
        name: str,
        pages: Sequence[Sequence[Item]],
        status: CoverageStatus = CoverageStatus.OK,
        error: BaseException | None = None,
    ) -> None:
        self.name, self.pages, self.status, self.error = name, pages, status, error

    def fetch(self, window: Window, emit: Emit, progress: Progress) -> SourceStatus:
        for page in self.pages:
            emit(page)
        if self.error:
            raise self.error
        return SourceStatus(name=self.name, status=self.status, items=sum(map(len, self.pages)), requests=1)


def test_a_failed_source_does_not_stop_the_next_one(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "i.db"))
    sources = [ScriptedSource("forum", [], CoverageStatus.FAILED), ScriptedSource("github", [[item(1), item(2)]])]
    statuses = run_collection(store, sources, SHARED_WINDOW, NoProgress(), "pytorch", {})
    assert [s.status for s in statuses] == [CoverageStatus.FAILED, CoverageStatus.OK]
    assert store.count_items() == 2
    [run] = store.runs()
    assert run["status"] == "partial"
    assert [s.name for s in store.source_statuses(run["id"])] == ["forum", "github"]


def test_an_interrupted_run_keeps_whole_pages_and_says_so(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "i.db"))
    source = ScriptedSource("github", [[item(1), item(2)], [item(3)]], error=KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        run_collection(store, [source], SHARED_WINDOW, NoProgress(), "pytorch", {})
    assert store.count_items() == 3
    [run] = store.runs()
    assert (run["status"], run["finished_at"] is not None) == ("interrupted", True)


@pytest.mark.parametrize(
    ("kinds", "expected"),
    [
        ([CoverageStatus.OK, CoverageStatus.SKIPPED], "ok"),
        ([CoverageStatus.OK, CoverageStatus.PARTIAL], "partial"),
        ([CoverageStatus.OK, CoverageStatus.FAILED], "partial"),
        ([CoverageStatus.FAILED], "failed"),
    ],
)
def test_overall_status(kinds: list[CoverageStatus], expected: str) -> None:
    assert overall_status([SourceStatus(name=str(i), status=kind) for i, kind in enumerate(kinds)]) == expected
