"""Reading a large window's items in several processes.

What an item's own text says (pipeline.read) depends on that item alone and is most of what
`assess` costs, so on a machine with several cores a large window is read in batches by a pool of
processes and the answers come back in the window's order, the same answers a single process gives.

The pool is forked when this process runs no other thread: the children start at once with this
process's reader, its models loaded and warmed up on the window's first items, and a window held as
a list is theirs too (they read a batch by its place in it, so its items never travel to them). A
threaded process (the site server, a progress display) must not fork, so there the children come
from a fresh server process instead.
A process that may not have children (a daemonic worker) or a machine with one core reads alone.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from itertools import chain, islice

from pytorch_insight.model import Item
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.read import ItemReader, cut

PROCESSES_ENV = "PYTORCH_INSIGHT_PROCESSES"
# Below this many items a window is read in this process: starting the pool would cost more than
# it saves (the children's start and the items' trip to them are ~0.1 ms an item).
PARALLEL_FROM = 2_000
BATCH = 250
MAX_PROCESSES = 4
# Items the parent reads before the pool starts (~10 ms of reading).
WARM_UP = 25

_reader: ItemReader | None = None  # each child's reader: the parent's when forked, else its own (_start)
_window: Sequence[Item] | None = None  # a forked child's copy of the window, when it was a list


def read_items(
    items: Iterable[Item],
    make_reader: Callable[[], ItemReader],
    processes: int | None = None,
    parallel_from: int = PARALLEL_FROM,
) -> list[Assessment]:
    """Every item read by the reader `make_reader` builds, in order; by a pool of processes (each
    building its own reader) when the window is large."""
    stream = iter(items)
    head = list(islice(stream, parallel_from))
    reading = make_reader()
    count = _processes(processes)
    if len(head) < parallel_from or count < 2:
        return [reading.read(item) for item in chain(head, stream)]
    window = items if isinstance(items, Sequence) else None
    # The first items are read here: what a reader builds on first use (the models' term indexes,
    # the patterns' guards) is then built once, and a forked child inherits it built.
    first = [reading.read(item) for item in head[:WARM_UP]]
    rest = _read_in_pool(chain(head[WARM_UP:], stream), window, len(first), reading, make_reader, count)
    return first + list(rest)


def _processes(asked: int | None) -> int:
    if asked is not None:
        return asked
    configured = os.environ.get(PROCESSES_ENV, "").strip()
    if configured.isdigit():
        return int(configured)
    if multiprocessing.current_process().daemon:
        return 1
    return min(len(os.sched_getaffinity(0)), MAX_PROCESSES)


def _read_in_pool(
    items: Iterator[Item],
    window: Sequence[Item] | None,
    start: int,
    reading: ItemReader,
    make_reader: Callable[[], ItemReader],
    processes: int,
) -> Iterator[Assessment]:
    """`items`, the window's items from its `start`th on, read by a pool of `processes`."""
    # Fork inherits the parent's lock states: safe only while no other thread could hold one.
    method = "fork" if threading.active_count() == 1 else "forkserver"
    # A forked child starts with the parent's memory, the window and the reader included: sending it
    # a batch's place instead of its items saves pickling every item here and unpickling it there.
    shared = window if method == "fork" else None
    build = partial(_same, reading) if method == "fork" else make_reader
    pool = ProcessPoolExecutor(
        processes, multiprocessing.get_context(method), initializer=_start, initargs=(build, shared)
    )
    # A bounded number of batches in flight: the window is never held twice (as items and as
    # batches waiting for a child).
    pending: deque[tuple[list[Item], Future[list[Assessment]] | None]] = deque()
    try:
        while batch := list(islice(items, BATCH)):
            pending.append((batch, _submit(pool, batch if shared is None else (start, start + len(batch)))))
            start += len(batch)
            if len(pending) >= 2 * processes:
                yield from _collect(*pending.popleft(), reading)
        while pending:
            yield from _collect(*pending.popleft(), reading)
    finally:
        pool.shutdown(cancel_futures=True)


def _submit(pool: ProcessPoolExecutor, batch: list[Item] | tuple[int, int]) -> Future[list[Assessment]] | None:
    """The batch read by a child: its items, or (start, stop), its place in the child's window."""
    try:
        return pool.submit(_read_batch, batch)
    except BrokenProcessPool:
        return None


def _collect(batch: list[Item], future: Future[list[Assessment]] | None, reading: ItemReader) -> list[Assessment]:
    """The batch's assessments with their items put back. A child that died (killed for its
    memory, say) loses no item: its batches, and those of the broken pool, are read here."""
    try:
        read = future.result() if future is not None else None
    except BrokenProcessPool:
        read = None
    if read is None:
        return [reading.read(item) for item in batch]
    for assessment, item in zip(read, batch, strict=True):
        assessment.item = cut(item)
    return read


def _same(reading: ItemReader) -> ItemReader:
    return reading


def _start(make_reader: Callable[[], ItemReader], window: Sequence[Item] | None) -> None:
    global _reader, _window
    _reader, _window = make_reader(), window


def _read_batch(batch: list[Item] | tuple[int, int]) -> list[Assessment]:
    if _reader is None:
        raise RuntimeError("a reading process started without its reader")
    if isinstance(batch, tuple):
        if _window is None:
            raise RuntimeError("a reading process was sent a batch's place without the window")
        batch = [_window[index] for index in range(*batch)]
    read = [_reader.read(item) for item in batch]
    # The parent has the items: only what was read of them travels back.
    for assessment in read:
        assessment.item = None  # type: ignore[assignment]
    return read
