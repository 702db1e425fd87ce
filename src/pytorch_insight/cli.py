"""The command line: parsing and wiring only; the work happens in the stage modules."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import Progress as RichProgress
from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from pytorch_insight import __version__
from pytorch_insight.analysis.llm import LLMAnalyser
from pytorch_insight.collect import SOURCE_NAMES, build_sources, run_collection
from pytorch_insight.config import Settings, load_settings, with_llm
from pytorch_insight.errors import ConfigError, InsightError
from pytorch_insight.jsonl import export_items, import_file
from pytorch_insight.model import CoverageStatus, SourceStatus
from pytorch_insight.pipeline import assess
from pytorch_insight.report.build import ReportOptions, build_report
from pytorch_insight.report.i18n import LANGUAGES
from pytorch_insight.report.write import parse_formats, write_report
from pytorch_insight.sources import NoProgress, Progress
from pytorch_insight.store import LLMLedger, Store
from pytorch_insight.window import Window, make_window, parse_day

stderr = Console(stderr=True)
STATUS_MARK = {
    CoverageStatus.OK: "[green]ok[/]",
    CoverageStatus.PARTIAL: "[yellow]partial[/]",
    CoverageStatus.SKIPPED: "[yellow]skipped[/]",
    CoverageStatus.FAILED: "[red]failed[/]",
}


class Context:
    def __init__(self, settings: Settings, verbose: int, quiet: bool) -> None:
        self.settings = settings
        self.verbose = verbose
        self.quiet = quiet

    def open_store(self) -> Store:
        return Store.open(self.settings.db)


def common_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options every command shares, resolved into one Context argument."""

    @click.option("--db", help="Database path or URL (default: a per-user SQLite file).")
    @click.option("--profile", help="Profile name (e.g. pytorch) or path to a profile TOML.")
    @click.option("--config", "config_file", type=click.Path(dir_okay=False), help="User config TOML.")
    @click.option("-v", "--verbose", count=True, help="More log output on stderr (-vv for HTTP details).")
    @click.option("-q", "--quiet", is_flag=True, help="No progress bars or tables.")
    @functools.wraps(command)
    def wrapper(
        db: str | None, profile: str | None, config_file: str | None, verbose: int, quiet: bool, **kwargs: Any
    ) -> Any:
        configure_logging(verbose, quiet)
        settings = load_settings(profile=profile, db=db, config_file=config_file)
        return command(Context(settings, verbose, quiet), **kwargs)

    return wrapper


def configure_logging(verbose: int, quiet: bool) -> None:
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(
        level=logging.ERROR if quiet else level,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
        force=True,
    )
    if verbose < 2:
        logging.getLogger("httpx").setLevel(logging.WARNING)
    # The SDK's debug log dumps whole request options; keys must never reach a log, whatever -v says.
    logging.getLogger("openai").setLevel(max(logging.INFO, logging.getLogger().level))


class ConsoleProgress:
    """One spinner line per source on stderr, with the number of items stored so far."""

    def __init__(self, progress: RichProgress) -> None:
        self.progress = progress
        self.tasks: dict[str, Any] = {}

    def update(self, source: str, description: str, items: int) -> None:
        if source not in self.tasks:
            self.tasks[source] = self.progress.add_task(description, total=None, items=0)
        self.progress.update(self.tasks[source], description=f"{source}: {description}", items=items)


@click.group()
@click.version_option(__version__, prog_name="pytorch-insight")
def cli() -> None:
    """Collect a week of an open-source community's activity and report on it."""


def window_options(command: Callable[..., Any]) -> Callable[..., Any]:
    command = click.option("--until", help="Last UTC day of the window (YYYY-MM-DD); default: yesterday.")(command)
    return click.option("--since", help="First UTC day of the window (YYYY-MM-DD); default: 7 days before --until.")(
        command
    )


def source_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--source",
        "source_names",
        multiple=True,
        type=click.Choice(SOURCE_NAMES),
        help="Collect only these sources (repeatable); default: all of the profile's.",
    )(command)


@cli.command()
@window_options
@source_option
@common_options
def collect(ctx: Context, since: str | None, until: str | None, source_names: Sequence[str]) -> None:
    """Collect one window from every source into the database."""
    window = make_window(since, until)
    fail_if_failed(collect_window(ctx, ctx.open_store(), window, source_names or SOURCE_NAMES))


def collect_window(ctx: Context, store: Store, window: Window, source_names: Sequence[str]) -> list[SourceStatus]:
    arguments = {"since": window.since.isoformat(), "until": window.until.isoformat(), "sources": list(source_names)}
    with ExitStack() as stack:
        sources = build_sources(ctx.settings, store, stack, source_names)
        if ctx.quiet:
            statuses = run_collection(store, sources, window, NoProgress(), ctx.settings.profile.name, arguments)
        else:
            columns = (
                SpinnerColumn(),
                TextColumn("{task.description}"),
                TextColumn("{task.fields[items]} items"),
                TimeElapsedColumn(),
            )
            with RichProgress(*columns, console=stderr, transient=True) as bar:
                progress: Progress = ConsoleProgress(bar)
                statuses = run_collection(store, sources, window, progress, ctx.settings.profile.name, arguments)
    if not ctx.quiet:
        print_statuses(statuses, f"{window.since} – {window.until}")
    return statuses


def fail_if_failed(statuses: Sequence[SourceStatus]) -> None:
    failed = [status for status in statuses if status.status is CoverageStatus.FAILED]
    if failed:
        fail("; ".join(f"error: {status.name}: {status.note}" for status in failed), 1)


def print_statuses(statuses: Sequence[SourceStatus], title: str) -> None:
    table = Table(title=f"Collected {title}")
    for column in ("source", "items", "requests", "304s", "status", "note"):
        table.add_column(column, justify="right" if column in ("items", "requests", "304s") else "left")
    for status in statuses:
        table.add_row(
            status.name,
            str(status.items),
            str(status.requests),
            str(status.not_modified),
            STATUS_MARK[status.status],
            status.note,
        )
    stderr.print(table)


def report_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of the commands that write a report (`report`, `run`)."""
    options = [
        click.option(
            "--format",
            "formats",
            default="md,html,json",
            show_default=True,
            help="Comma-separated output formats: md, html, json.",
        ),
        click.option("--lang", type=click.Choice(LANGUAGES), default="zh", show_default=True, help="Report language."),
        click.option(
            "--out",
            type=click.Path(path_type=Path, file_okay=False),
            default=Path("reports"),
            show_default=True,
            help="Folder the report files, index.html and feed.xml are written to.",
        ),
        click.option(
            "--reader", help="Reader profile that drives the ranking (default: the profile's default reader)."
        ),
        click.option(
            "--focus",
            "focus_size",
            type=click.IntRange(0, 100),
            default=12,
            show_default=True,
            help="Items in the focus list.",
        ),
        click.option(
            "--deep",
            "deep_size",
            type=click.IntRange(0, 100),
            default=5,
            show_default=True,
            help="Focus items that get a deep analysis.",
        ),
        click.option(
            "--llm",
            "llm_model",
            help="Write the analysis with this model (any OpenAI-compatible server: "
            "OPENAI_BASE_URL, OPENAI_API_KEY); default: the rule analyser, or the config file's [llm].",
        ),
        click.option("--llm-budget", type=click.IntRange(0), help="Most tokens the model may spend on one report."),
        click.option("--llm-concurrency", type=click.IntRange(1, 32), help="Model calls at once."),
        click.option(
            "--downstream",
            type=click.Path(path_type=Path, file_okay=False, exists=True),
            help="A local checkout to search for uses of what the focus PRs touch.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def write_window_report(
    ctx: Context,
    store: Store,
    window: Window,
    *,
    formats: str,
    lang: str,
    out: Path,
    reader: str | None,
    focus_size: int,
    deep_size: int,
    downstream: Path | None,
    llm_model: str | None,
    llm_budget: int | None,
    llm_concurrency: int | None,
) -> None:
    """Rank, link and classify the stored items of a window and write the report (no network but the model's)."""
    wanted = parse_formats(formats)
    profile = ctx.settings.profile
    reader_profile = profile.reader(reader)
    items = store.items_in_window(window)
    if not items:
        raise InsightError(f"no items stored for {window.since} – {window.until}: run `collect` or `import` first")
    ranked = assess(items, profile, reader_profile.id, window=window)
    options = ReportOptions(lang=lang, focus_size=focus_size, deep_size=deep_size, downstream=downstream)
    llm = with_llm(ctx.settings, llm_model, llm_budget, llm_concurrency).llm
    if llm is not None:
        role = reader_profile.role.zh if lang == "zh" else reader_profile.role.en
        options.analyser = LLMAnalyser(llm, LLMLedger(store), lang=lang, role=role)
    document = build_report(
        ranked,
        window=window,
        profile=profile,
        reader=reader_profile,
        statuses=store.latest_statuses(window),
        collected=len(items),
        options=options,
    )
    paths = write_report(document, out, wanted)
    if not ctx.quiet:
        stderr.print(
            f"wrote {', '.join(str(p) for p in paths)} ({len(document.items)} items, "
            f"{document.stats['high']} high priority)",
            markup=False,
            highlight=False,
        )


@cli.command()
@window_options
@report_options
@common_options
def report(ctx: Context, since: str | None, until: str | None, **options: Any) -> None:
    """Write the report of a window from the stored items (no network, but the model with --llm)."""
    write_window_report(ctx, ctx.open_store(), make_window(since, until), **options)


@cli.command()
@window_options
@source_option
@report_options
@common_options
def run(ctx: Context, since: str | None, until: str | None, source_names: Sequence[str], **options: Any) -> None:
    """The main job: collect the window from every source, then write its report."""
    window = make_window(since, until)
    store = ctx.open_store()
    statuses = collect_window(ctx, store, window, source_names or SOURCE_NAMES)
    write_window_report(ctx, store, window, **options)
    fail_if_failed(statuses)


@cli.command(name="import")
@click.argument("path", type=click.Path(path_type=Path))
@common_options
def import_command(ctx: Context, path: Path) -> None:
    """Import items from a JSONL file (bad lines are reported and skipped)."""
    result = import_file(ctx.open_store(), path)
    for line, message in result.errors:
        click.echo(f"{path}:{line}: skipped: {message}", err=True)
    if not ctx.quiet:
        stderr.print(
            f"imported {result.imported} items from {path}"
            + (f"; {len(result.errors)} lines skipped" if result.errors else "")
        )
    if result.errors and not result.imported:
        sys.exit(1)


@cli.command(name="export")
@click.argument("path", type=click.Path(path_type=Path, allow_dash=True))
@click.option("--since", help="Only items created on or after this day.")
@click.option("--until", help="Only items created on or before this day.")
@common_options
def export_command(ctx: Context, path: Path, since: str | None, until: str | None) -> None:
    """Export stored items as JSONL ('-' for standard output)."""
    first = parse_day(since, "--since").isoformat() if since else None
    last = parse_day(until, "--until").isoformat() if until else None
    items = ctx.open_store().iter_items(first, last)
    if str(path) == "-":
        count = export_items(items, sys.stdout)
    else:
        try:
            with path.open("w", encoding="utf-8") as handle:
                count = export_items(items, handle)
        except OSError as exc:
            raise InsightError(f"cannot write {path}: {exc.strerror}") from None
    if not ctx.quiet:
        stderr.print(f"exported {count} items to {path}")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: expected failures become one line on stderr and a non-zero exit."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="pytorch-insight", standalone_mode=False)
    except click.exceptions.Abort:
        fail("aborted", 130)
    except click.ClickException as exc:
        fail(f"error: {exc.format_message()}", exc.exit_code)
    except ConfigError as exc:
        fail(f"error: {exc}", 2)
    except InsightError as exc:
        fail(f"error: {exc}", 1)
    except KeyboardInterrupt:
        fail("interrupted: everything stored so far is kept; run again to resume", 130)


def fail(line: str, code: int) -> None:
    click.echo(line, err=True)
    sys.exit(code)
