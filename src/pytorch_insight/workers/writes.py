"""A task's item writes behind its requests.

A worker's task spent a tenth of its time writing what it had just fetched (3.8 s of one worker's
collection of 181 requests), each write before the next request went out. The writes now run on a
thread of their own, in order, while the task waits for its next answer.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence

from pytorch_insight.model import Item
from pytorch_insight.store import Store


class WriteBehind:
    """`save` queues a batch; `lookup` first waits for the writes queued before it, so a source
    reads back what it stored; `close` waits for the rest. A failed write is raised in the task's
    thread, by the next save, lookup or the close, and the writes after it are dropped: the task
    fails (and is retried) as it would have at once."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.queue: queue.Queue[list[Item] | None] = queue.Queue()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._write, name="write-behind", daemon=True)
        self.thread.start()

    def save(self, batch: Sequence[Item]) -> None:
        self._raise()
        self.queue.put(list(batch))

    def lookup(self, ids: Sequence[str]) -> dict[str, Item]:
        self.queue.join()
        self._raise()
        return self.store.get_items(ids)

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join()
        self._raise()

    def _raise(self) -> None:
        if self.error is not None:
            raise self.error

    def _write(self) -> None:
        while (batch := self.queue.get()) is not None:
            try:
                if self.error is None:
                    self.store.save_items(batch)
            except BaseException as exc:  # noqa: BLE001 (raised again in the task's thread)
                self.error = exc
            finally:
                self.queue.task_done()
