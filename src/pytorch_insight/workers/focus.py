"""The focus candidates of a collection on the workers, read while the workers still collect.

The candidates are picked once across the whole window, so their details wait for every list,
commit and thread task. Reading each item's text is nine tenths of the pick, and it depends on
that item alone: the dispatcher reads the items a task stored as soon as that task ends, while the
workers go on with the others, and the pick after the last task only reads what changed since,
then fuses and ranks as `assess` does.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pytorch_insight.collect import candidates_of
from pytorch_insight.config import Profile
from pytorch_insight.model import Item
from pytorch_insight.pipeline import Assessment, ItemReader, assess_read
from pytorch_insight.pipeline.parallel import read_items
from pytorch_insight.store import Store
from pytorch_insight.window import Window
from pytorch_insight.workers.parts import focus_scope


class FocusReader:
    """Reads ahead the items finished tasks stored (`arrived`), then picks the candidates from
    the window as stored at the end (`candidates`), once."""

    def __init__(self, store: Store, window: Window, profile: Profile) -> None:
        self.store, self.window, self.profile = store, window, profile
        self.wants = focus_scope(profile)
        # As `focus_candidates` reads: the default reader, labels used, no window.
        self.make_reader = partial(ItemReader, profile, profile.reader(None), True, None)
        self.reader = self.make_reader()
        self.read: dict[str, tuple[Item, Assessment]] = {}  # by id: the item as read, and its reading

    def arrived(self, succeeded: bool, result: Any) -> None:
        """A task ended: the items it stored (`saved` beside its statuses) are read now. Those of
        a failed task are read at the pick, with whatever else was not read ahead."""
        if not succeeded or not isinstance(result, list):
            return
        ids = [id for status in result if isinstance(status, dict) for id in status.get("saved", ())]
        for item in self.store.get_items(ids).values():
            if self.wants(item) and item.active_in(self.window) and not self._known(item):
                self.read[item.id] = (item, self.reader.read(item))

    def candidates(self) -> list[Item]:
        """The focus candidates of the window as stored now. An item is read again only if it
        changed since it was read ahead (a later task added its thread, say), so the pick is the
        one `focus_candidates` makes of the same items, in the same order."""
        items = [item for item in self.store.items_in_window(self.window) if self.wants(item)]
        known = [self._known(item) for item in items]
        unread = [item for item, seen in zip(items, known, strict=True) if not seen]
        # As `assess` reads: in several processes when what is left is most of a large window.
        fresh = iter(read_items(unread, self.make_reader) if unread else [])
        assessments = [self.read[item.id][1] if seen else next(fresh) for item, seen in zip(items, known, strict=True)]
        self.read.clear()  # ranking changes the assessments in place: they serve this pick alone
        return candidates_of(assess_read(assessments, self.profile), self.profile)

    def _known(self, item: Item) -> bool:
        known = self.read.get(item.id)
        return known is not None and known[0] == item
