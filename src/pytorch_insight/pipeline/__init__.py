"""The deterministic middle of the pipeline: read each item (noise, facts, areas) -> fuse -> link -> rank."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import partial

from pytorch_insight.config import Profile, Reader
from pytorch_insight.model import Item
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.focus import Story, fill_focus, select_focus
from pytorch_insight.pipeline.fuse import fuse
from pytorch_insight.pipeline.link import link
from pytorch_insight.pipeline.noise import fixing_nothing
from pytorch_insight.pipeline.parallel import read_items
from pytorch_insight.pipeline.rank import rank
from pytorch_insight.pipeline.read import ItemReader
from pytorch_insight.window import Window

__all__ = ["Assessment", "ItemReader", "Story", "assess", "assess_read", "select_focus"]


def assess(
    items: Iterable[Item],
    profile: Profile,
    reader_id: str | None = None,
    use_labels: bool = True,
    window: Window | None = None,
) -> list[Assessment]:
    """Every distinct item of the window, classified, linked and ranked best first; with a
    window, only the activity inside it counts. `items` is read once, one item at a time."""
    reader = profile.reader(reader_id)
    with _without_cycle_collection():
        assessments = read_items(items, partial(ItemReader, profile, reader, use_labels, window))
        return _relate(assessments, profile, reader, window)


def assess_read(
    assessments: Iterable[Assessment], profile: Profile, reader_id: str | None = None, window: Window | None = None
) -> list[Assessment]:
    """`assess` of items read already (by an `ItemReader` of the same reader and window), one at a
    time as they arrived: fused, linked and ranked. The assessments are changed in place, so a
    set of them serves one ranking."""
    with _without_cycle_collection():
        return _relate(list(assessments), profile, profile.reader(reader_id), window)


def _relate(assessments: list[Assessment], profile: Profile, reader: Reader, window: Window | None) -> list[Assessment]:
    kept = fuse(assessments)
    link(kept, profile.severity.common_identifiers, fixing_nothing(profile))
    ranked = rank(kept, profile, reader, window)
    fill_focus(ranked, profile)
    return ranked


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """The stages create hundreds of thousands of small containers and no reference cycles; the
    cyclic collector's repeated full passes over them cost a quarter of the run and free nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
