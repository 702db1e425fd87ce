"""Sources: each fetches one window of one kind of activity and reports its own coverage."""

from collections.abc import Callable, Sequence
from typing import Protocol

from pytorch_insight.http import RequestStats, Unreachable
from pytorch_insight.model import CoverageStatus, Item, SourceStatus
from pytorch_insight.window import Window

Emit = Callable[[Sequence[Item]], None]
"""Called with each batch (a page) of items as soon as it is complete, so it can be stored."""

Lookup = Callable[[Sequence[str]], dict[str, Item]]
"""Returns already-stored items by id (used to resume: what is stored is not fetched again)."""


class Progress(Protocol):
    def update(self, source: str, description: str, items: int) -> None: ...


class NoProgress:
    def update(self, source: str, description: str, items: int) -> None:
        pass


class Source(Protocol):
    name: str

    def fetch(self, window: Window, emit: Emit, progress: Progress) -> SourceStatus:
        """Collect the window; never raises for a remote failure, reports it in the status."""
        ...


def unreachable_note(error: Unreachable, setting: str) -> str:
    """The note of a source whose host does not resolve, naming the setting to check."""
    return f"{error}: check the network or {setting}"


def finished(name: str, stats: RequestStats, items: int, problems: Sequence[str]) -> SourceStatus:
    """The usual ending: ok without problems, partial when something was stored anyway, else failed.

    What the HTTP client declined to fetch (`stats.notes`) counts as a problem too."""
    problems = [*problems, *stats.notes]
    if not problems:
        status = CoverageStatus.OK
    else:
        status = CoverageStatus.PARTIAL if items else CoverageStatus.FAILED
    return SourceStatus(
        name=name,
        status=status,
        items=items,
        requests=stats.requests,
        not_modified=stats.not_modified,
        note="; ".join(problems),
    )
