"""Sources: each fetches one window of one kind of activity and reports its own coverage."""

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol, TypeVar

from pydantic import ValidationError

from pytorch_insight.errors import describe_validation_error
from pytorch_insight.http import RequestStats, Unreachable
from pytorch_insight.model import CoverageStatus, Item, SourceStatus
from pytorch_insight.window import Window

Emit = Callable[[Sequence[Item]], None]
"""Called with each batch (a page) of items as soon as it is complete, so it can be stored."""

Record = TypeVar("Record")

# What building an item from one record raises when the record does not fit the model: a date
# that is no date or cannot be put in UTC, a missing or mistyped key. Anyone serving a listed
# forum or feed controls these records, so one of them must never stop the page or the run.
MALFORMED = (ValueError, TypeError, KeyError, AttributeError, OverflowError)
SKIPPED_NAMED = 5  # a note names this many skipped records, then counts the rest

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


def finished(
    name: str,
    stats: RequestStats,
    items: int,
    problems: Sequence[str],
    paused: bool = False,
    info: Sequence[str] = (),
) -> SourceStatus:
    """The usual ending: ok without problems, partial when something was stored anyway or the
    source only stopped for a rate limit (`paused`: the next run goes on), else failed.

    What the HTTP client declined to fetch (`stats.notes`) counts as a problem too; `info` (how
    the source chose to read the window) joins the note without making it partial."""
    problems = [*problems, *stats.notes]
    if not problems:
        status = CoverageStatus.OK
    else:
        status = CoverageStatus.PARTIAL if items or paused else CoverageStatus.FAILED
    return SourceStatus(
        name=name,
        status=status,
        items=items,
        requests=stats.requests,
        not_modified=stats.not_modified,
        note="; ".join([*problems, *info]),
    )


def build_each(
    records: Iterable[Record],
    build: Callable[[Record], Item | None],
    name: Callable[[Record], str],
    skipped: list[str],
) -> list[Item]:
    """The items of a page's records; a malformed record is named in `skipped` (with the field
    and why) and left out, and the others are kept."""
    items = []
    for record in records:
        try:
            item = build(record)
        except MALFORMED as exc:
            skipped.append(f"{_safe_name(name, record)} ({malformed_reason(exc)})")
            continue
        if item is not None:
            items.append(item)
    return items


def malformed_reason(error: BaseException) -> str:
    """One line: the field and what is wrong with it, for a record that does not fit the model."""
    if isinstance(error, ValidationError):
        reason = describe_validation_error(error)
    elif isinstance(error, KeyError):
        reason = f"no {error.args[0]!r} field" if error.args else "a field is missing"
    else:
        reason = f"{type(error).__name__}: {error}"
    return reason[:200]  # the value quoted is the server's, of any length


def skipped_note(skipped: Sequence[str], what: str = "record") -> list[str]:
    """The coverage note for malformed records left out, naming the first few."""
    if not skipped:
        return []
    named = "; ".join(skipped[:SKIPPED_NAMED])
    more = f" and {len(skipped) - SKIPPED_NAMED} more" if len(skipped) > SKIPPED_NAMED else ""
    plural = "s" if len(skipped) > 1 else ""
    return [f"{len(skipped)} malformed {what}{plural} skipped: {named}{more}"]


def _safe_name(name: Callable[[Record], str], record: Record) -> str:
    """The record's name for the note; a record too broken to name itself is still counted."""
    try:
        return name(record)
    except MALFORMED:
        return "a record"
