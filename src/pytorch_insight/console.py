"""What the command line shows on standard error: live progress per source, the sources' status
table, counted nouns; and JSON on standard output."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import click
from rich.console import Console
from rich.progress import Progress as RichProgress
from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from pytorch_insight.model import CoverageStatus, SourceStatus
from pytorch_insight.sources import NoProgress, Progress

# stderr width when it is not a terminal: rich would cut a log file's or a pipe's table at 80
# columns; a table is only as wide as its content, so this just means "never cut".
PIPE_WIDTH = 10_000
STATUS_MARK = {
    CoverageStatus.OK: "[green]ok[/]",
    CoverageStatus.PARTIAL: "[yellow]partial[/]",
    CoverageStatus.SKIPPED: "[yellow]skipped[/]",
    CoverageStatus.FAILED: "[red]failed[/]",
}


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def err_console() -> Console:
    console = Console(stderr=True)
    return console if console.is_terminal else Console(stderr=True, width=PIPE_WIDTH)


def print_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


class ConsoleProgress:
    """A terminal: one live spinner line per source, with the number of items stored so far."""

    def __init__(self, progress: RichProgress) -> None:
        self.progress = progress
        self.tasks: dict[str, Any] = {}

    def update(self, source: str, description: str, items: int) -> None:
        if source not in self.tasks:
            self.tasks[source] = self.progress.add_task(source, total=None, count="")
        self.progress.update(self.tasks[source], description=f"{source}: {description}", count=plural(items, "item"))


class LineProgress:
    """A pipe or a log file: a plain line whenever a source starts a new step (item counts change
    too often to print each)."""

    def __init__(self) -> None:
        self.steps: dict[str, str] = {}

    def update(self, source: str, description: str, items: int) -> None:
        if self.steps.get(source) != description:
            self.steps[source] = description
            click.echo(f"{source}: {description}", err=True)


@contextmanager
def progress_display(quiet: bool) -> Iterator[Progress]:
    if quiet:
        yield NoProgress()
        return
    console = Console(stderr=True)
    if not console.is_terminal:
        yield LineProgress()
        return
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TextColumn("{task.fields[count]}"),
        TimeElapsedColumn(),
    )
    with RichProgress(*columns, console=console, transient=True) as bar:
        yield ConsoleProgress(bar)


def print_statuses(statuses: Sequence[SourceStatus], title: str) -> None:
    table = Table(title=f"Collected {title}")
    for column in ("source", "items", "requests", "304s", "status", "note"):
        table.add_column(column, justify="right" if column in ("items", "requests", "304s") else "left")
    for status in statuses:
        table.add_row(
            Text(status.name),
            str(status.items),
            str(status.requests),
            str(status.not_modified),
            STATUS_MARK[status.status],
            Text(status.note),  # notes quote URLs and titles: never read as rich markup
        )
    err_console().print(table)
