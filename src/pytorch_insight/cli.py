"""The command line: parsing and wiring only; the work happens in the stage modules.

Results go to standard output (the written paths, JSON with --json, a report written to `-`,
exported items); progress, tables and messages go to standard error, so a pipe gets only results.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from sqlalchemy.exc import SQLAlchemyError

from pytorch_insight import __version__
from pytorch_insight.cli_reports import (
    build_window_report,
    deliver_window,
    json_option,
    publish,
    publish_for_targets,
    remember,
    report_options,
    report_output,
    window_reports,
)
from pytorch_insight.collect import SOURCE_NAMES, build_sources, run_collection
from pytorch_insight.config import Settings, load_settings
from pytorch_insight.console import plural, print_json, print_statuses, progress_display
from pytorch_insight.deliver.dispatch import Outcome, Status, select_targets
from pytorch_insight.errors import ConfigError, ImportFormatError, InsightError, NoItemsError
from pytorch_insight.jsonl import ImportResult, export_items, import_file, import_lines
from pytorch_insight.model import CoverageStatus, SourceStatus
from pytorch_insight.offline import offline_window
from pytorch_insight.pipeline.severity import MODEL_ENV
from pytorch_insight.redact import redact, safe_message
from pytorch_insight.report.i18n import LANGUAGES
from pytorch_insight.store import Store, describe_error
from pytorch_insight.window import Window, day_range, make_window

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}
INTERRUPTED = "interrupted: what was fetched is stored; run the same command again to continue"


class Context:
    def __init__(self, settings: Settings, verbose: int, quiet: bool) -> None:
        self.settings = settings
        self.verbose = verbose
        self.quiet = quiet
        self.workers = False  # --workers: the work goes to the workers' broker

    def open_store(self, readonly: bool = False) -> Store:
        """The store, closed when the command ends however it ends (a writable SQLite store then
        folds its write-ahead log into the database file)."""
        store = Store.open(self.settings.db, readonly=readonly)
        click.get_current_context().call_on_close(store.close)
        return store


@dataclass(frozen=True)
class CommonOptions:
    db: str | None = None
    profile: str | None = None
    config_file: str | None = None
    verbose: int = 0
    quiet: bool = False

    def then(self, later: CommonOptions) -> CommonOptions:
        """These options (given before the command) with those given after it applied on top."""
        return CommonOptions(
            db=later.db or self.db,
            profile=later.profile or self.profile,
            config_file=later.config_file or self.config_file,
            verbose=self.verbose + later.verbose,
            quiet=self.quiet or later.quiet,
        )


def shared_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--db, --profile, --config, -v, -q: defined once, taken before the command and after it."""
    options = [
        click.option("--db", help="Database path or URL (default: a per-user SQLite file)."),
        click.option("--profile", help="Profile name (e.g. pytorch) or path to a profile TOML."),
        click.option("--config", "config_file", type=click.Path(dir_okay=False), help="User config TOML."),
        click.option(
            "-v",
            "--verbose",
            count=True,
            help="Log on stderr: -v what the project does, -vv its details, -vvv also the HTTP libraries'.",
        ),
        click.option("-q", "--quiet", is_flag=True, help="No progress, tables or summaries on stderr."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def common_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options every command shares, resolved (with those given before it) into one Context."""

    @shared_options
    @functools.wraps(command)
    def wrapper(
        db: str | None, profile: str | None, config_file: str | None, verbose: int, quiet: bool, **kwargs: Any
    ) -> Any:
        before = click.get_current_context().find_object(CommonOptions) or CommonOptions()
        options = before.then(CommonOptions(db, profile, config_file, verbose, quiet))
        configure_logging(options.verbose, options.quiet)
        settings = load_settings(profile=options.profile, db=options.db, config_file=options.config_file)
        return command(Context(settings, options.verbose, options.quiet), **kwargs)

    return wrapper


def configure_logging(verbose: int, quiet: bool) -> None:
    """The project's own log by -v (INFO) and -vv (DEBUG); the HTTP libraries' debug output would
    drown it, so it needs -vvv."""
    own = logging.ERROR if quiet else {0: logging.WARNING, 1: logging.INFO}.get(verbose, logging.DEBUG)
    libraries = logging.ERROR if quiet else logging.DEBUG if verbose >= 3 else logging.WARNING
    logging.basicConfig(level=libraries, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s", force=True)
    logging.getLogger("pytorch_insight").setLevel(own)
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(libraries)
    # The SDK's debug log dumps whole request options; keys must never reach a log, whatever -v says.
    logging.getLogger("openai").setLevel(max(logging.INFO, libraries))


@click.group(context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.version_option(__version__, prog_name="pytorch-insight")
@shared_options
@click.pass_context
def cli(
    click_context: click.Context,
    db: str | None,
    profile: str | None,
    config_file: str | None,
    verbose: int,
    quiet: bool,
) -> None:
    """Collect a week of an open-source community's activity and report on it.

    --db, --profile, --config, -v and -q are accepted before the command and after it."""
    click_context.obj = CommonOptions(db, profile, config_file, verbose, quiet)
    if click_context.invoked_subcommand is None:
        click.echo(click_context.get_help())


def window_options(command: Callable[..., Any]) -> Callable[..., Any]:
    command = click.option(
        "--until", help="Last UTC day of the window (YYYY-MM-DD, today at the latest); default: yesterday."
    )(command)
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


def workers_option(command: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--workers",
        "use_workers",
        is_flag=True,
        help="Send the work to `pytorch-insight worker` processes through the config's [workers] broker.",
    )(command)


@cli.command()
@window_options
@source_option
@json_option("the sources' status table")
@workers_option
@common_options
def collect(
    ctx: Context, since: str | None, until: str | None, source_names: Sequence[str], as_json: bool, use_workers: bool
) -> None:
    """Collect one window from every source into the database."""
    window = make_window(since, until)
    ctx.workers = use_workers
    statuses = collect_window(ctx, ctx.open_store(), window, source_names or SOURCE_NAMES, table=not as_json)
    if as_json:
        print_json(window_json(window) | {"sources": statuses_json(statuses)})
    failure = collection_failure(statuses)
    if failure:
        fail(f"error: {failure}", 1)


def collect_window(
    ctx: Context, store: Store, window: Window, source_names: Sequence[str], *, table: bool = True
) -> list[SourceStatus]:
    arguments = {"since": window.since.isoformat(), "until": window.until.isoformat(), "sources": list(source_names)}
    if ctx.workers:
        # Imported here: Celery is only loaded by the commands that use it.
        from pytorch_insight.workers.dispatch import collect_with_workers

        with progress_display(ctx.quiet) as progress:
            statuses = collect_with_workers(ctx.settings, store, window, source_names, progress, arguments)
    else:
        with ExitStack() as stack:
            sources = build_sources(ctx.settings, store, stack, source_names)
            with progress_display(ctx.quiet) as progress:
                statuses = run_collection(store, sources, window, progress, ctx.settings.profile.name, arguments)
    if table and not ctx.quiet:
        print_statuses(statuses, f"{window.since} – {window.until}")
    return statuses


def collection_failure(statuses: Sequence[SourceStatus]) -> str | None:
    """What went wrong, from the failed sources' own notes; None when no source failed."""
    failed = [status for status in statuses if status.status is CoverageStatus.FAILED]
    if not failed:
        return None
    notes = "; ".join(f"{status.name}: {status.note or 'failed'}" for status in failed)
    return notes if any(status.items for status in statuses) else f"collection failed: {notes}"


def window_json(window: Window) -> dict[str, str]:
    return {"since": window.since.isoformat(), "until": window.until.isoformat()}


def statuses_json(statuses: Sequence[SourceStatus]) -> list[dict[str, Any]]:
    return [status.model_dump(mode="json") for status in statuses]


@cli.command()
@window_options
@report_options
@common_options
def report(
    ctx: Context,
    since: str | None,
    until: str | None,
    out: Path,
    site: Path | None,
    formats: str | None,
    as_json: bool,
    **options: Any,
) -> None:
    """Write the report of a window from the stored items (no network, but the model with --llm)."""
    window = make_window(since, until)
    output = report_output(out, formats, as_json, site)
    # Reading needs no write access, unless a model's answers are to be cached and logged.
    reads_only = options.get("llm_model") is None and ctx.settings.llm is None
    store = ctx.open_store(readonly=reads_only)
    document = build_window_report(ctx, store, window, **options)
    written = publish(ctx, document, output)
    remember(ctx, store, document)
    if as_json:
        print_json(window_json(window) | written)


@cli.command()
@window_options
@source_option
@report_options
@click.option(
    "--deliver", "deliver_after", is_flag=True, help="Then send the report to the config's [[delivery]] targets."
)
@click.option(
    "--offline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Import this item JSONL file instead of collecting (no network); without --since/--until the "
    "report covers the last 7 days the file has activity in.",
)
@workers_option
@common_options
def run(
    ctx: Context,
    since: str | None,
    until: str | None,
    source_names: Sequence[str],
    out: Path,
    site: Path | None,
    formats: str | None,
    as_json: bool,
    deliver_after: bool,
    offline: Path | None,
    use_workers: bool,
    **options: Any,
) -> None:
    """The main job: collect the window from every source, then write its report (and deliver it)."""
    if offline is not None and (source_names or use_workers):
        raise ConfigError("--offline reads its items from the file: it takes no --source or --workers")
    window = offline_window(offline, since, until) if offline is not None else make_window(since, until)
    ctx.workers = use_workers
    output = report_output(out, formats, as_json, site)
    if deliver_after:
        select_targets(ctx.settings, ())  # a missing [[delivery]] section fails before any work
    store = ctx.open_store()
    if offline is not None:
        imported = import_file(store, offline)
        report_import(ctx, str(offline), imported)
        statuses: list[SourceStatus] = []
    else:
        statuses = collect_window(ctx, store, window, source_names or SOURCE_NAMES, table=not as_json)
    failure = collection_failure(statuses)
    result: dict[str, Any] = window_json(window) | {"sources": statuses_json(statuses)}
    try:
        document = build_window_report(ctx, store, window, **options)
        result |= publish(ctx, document, output)
        remember(ctx, store, document)
        reports = window_reports(ctx, store, window, options, document)
        result["written"] += publish_for_targets(ctx, document, output, reports)
    except NoItemsError:
        # Right after a collection, "run collect first" would mislead: say why nothing came.
        if as_json:
            print_json(result | {"written": []})
        reason = failure or f"no items for {window.since} – {window.until}: no source had activity in the window"
        fail(f"error: {reason}", 1)
    outcomes: list[Outcome] = []
    if deliver_after:
        outcomes = deliver_window(ctx, select_targets(ctx.settings, ()), reports, store, options["lang"], False)
        result["deliveries"] = [outcome.as_json() for outcome in outcomes]
    if as_json:
        print_json(result)
    if failure:
        fail(f"error: {failure}", 1)
    if any(outcome.status is Status.FAILED for outcome in outcomes):
        sys.exit(1)


@cli.command(name="deliver")
@window_options
@click.option(
    "--to", "names", multiple=True, help="Deliver to this [[delivery]] target only (repeatable); default: all."
)
@click.option("--force", is_flag=True, help="Send again to targets that already have this window's report.")
@click.option(
    "--lang",
    type=click.Choice(LANGUAGES),
    default="zh",
    show_default=True,
    help="Report language for targets that set no lang.",
)
@click.option("--reader", help="Reader profile for targets that set no reader (default: the profile's).")
@json_option("each target's outcome")
@common_options
def deliver_command(
    ctx: Context,
    since: str | None,
    until: str | None,
    names: Sequence[str],
    force: bool,
    lang: str,
    reader: str | None,
    as_json: bool,
) -> None:
    """Send the window's report to the config's [[delivery]] targets (Slack, Feishu, DingTalk, webhook, e-mail)."""
    window = make_window(since, until)
    targets = select_targets(ctx.settings, names)
    store = ctx.open_store()
    options: dict[str, Any] = {
        "reader": reader,
        "focus_size": 12,
        "deep_size": 5,
        "downstream": None,
        "llm_model": None,
        "llm_budget": None,
        "llm_concurrency": None,
    }
    reports = window_reports(ctx, store, window, options)
    reports(lang, None)  # no items in the window: one error line, not one failure per target
    outcomes = deliver_window(ctx, targets, reports, store, lang, force)
    if as_json:
        print_json(window_json(window) | {"deliveries": [outcome.as_json() for outcome in outcomes]})
    failed = [outcome for outcome in outcomes if outcome.status is Status.FAILED]
    if failed:
        sys.exit(1)


@cli.command()
@click.option("--concurrency", type=click.IntRange(1, 64), help="Tasks at once (default: [workers] concurrency).")
@click.option("--name", help="Worker name (default: pytorch-insight@HOST); unique per host.")
@common_options
def worker(ctx: Context, concurrency: int | None, name: str | None) -> None:
    """Run a Celery worker for `collect --workers` / `run --workers` (until stopped)."""
    from pytorch_insight.workers.worker import run_worker  # Celery is loaded only here and by --workers

    run_worker(ctx.settings, concurrency, name, ctx.verbose)


@cli.command()
@click.option(
    "--corpus",
    "corpus_files",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Train on these JSONL files of labelled issues instead of harvesting GitHub (repeatable).",
)
@click.option(
    "--hold-out",
    "held_out",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Never train on the threads of these JSONL files (weeks the model is judged on).",
)
@click.option("--repo", "repos", multiple=True, help="Repository to harvest (default: the profile's).")
@click.option(
    "--pages", type=click.IntRange(1, 10), default=3, show_default=True, help="Search pages of 100 per label."
)
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), help="Model file to write.")
@json_option("the model's data card")
@common_options
def learn(
    ctx: Context,
    corpus_files: tuple[Path, ...],
    held_out: tuple[Path, ...],
    repos: tuple[str, ...],
    pages: int,
    out: Path | None,
    as_json: bool,
) -> None:
    """Train the severity model from the project's labelled issues (harvested from GitHub, or files)."""
    from pytorch_insight.learn.command import run_learn  # scikit-learn is loaded only here

    store = None if corpus_files else ctx.open_store()
    learned = run_learn(ctx.settings, store, corpus_files, held_out, repos, pages, out)
    card = learned.fitted.model.card
    if as_json:
        print_json({"model": str(learned.model), "card": card})
    else:
        click.echo(str(learned.model))
    if not ctx.quiet:
        for name, metrics in learned.fitted.metrics.items():
            click.echo(
                f"{name:<14} precision {metrics['precision']:.2f}  recall {metrics['recall']:.2f}  "
                f"({metrics['support']} of {card['evaluation']['test_examples']} newest)",
                err=True,
            )
        click.echo(
            f"learned from {plural(card['examples'], 'labelled issue')} ({plural(learned.requests, 'request')}); "
            f"reports use it with {MODEL_ENV}={learned.model}",
            err=True,
        )


ERRORS_SHOWN = 20


@cli.command(name="import")
@click.argument("path", type=click.Path(path_type=Path, allow_dash=True))
@common_options
def import_command(ctx: Context, path: Path) -> None:
    """Import items from a JSONL file, or '-' for stdin (bad lines are reported and skipped)."""
    store = ctx.open_store()
    if str(path) == "-":
        try:
            name, result = "<stdin>", import_lines(store, click.get_binary_stream("stdin"))
        except ImportFormatError as exc:
            raise ImportFormatError(f"cannot import <stdin>: {exc}") from None
    else:
        name, result = str(path), import_file(store, path)
    report_import(ctx, name, result)
    if result.errors and not result.imported:
        sys.exit(1)


def report_import(ctx: Context, name: str, result: ImportResult) -> None:
    # Each bad line is named, up to a screenful: a file that is no JSONL at all is summed up.
    for line, message in result.errors[:ERRORS_SHOWN]:
        click.echo(f"{name}:{line}: skipped: {message}", err=True)
    if len(result.errors) > ERRORS_SHOWN:
        click.echo(f"{name}: {plural(len(result.errors) - ERRORS_SHOWN, 'more line')} skipped", err=True)
    for line, created in result.estimated:
        click.echo(f"{name}:{line}: note: no creation date; dated {created[:10]} by the numbers around it", err=True)
    for line in result.undated:
        click.echo(f"{name}:{line}: note: no date at all; stored, but it falls in no window", err=True)
    if not ctx.quiet:
        skipped = f"; {plural(len(result.errors), 'line')} skipped" if result.errors else ""
        click.echo(f"imported {plural(result.imported, 'item')} from {name}{skipped}", err=True)


@cli.command(name="export")
@click.argument("path", type=click.Path(path_type=Path, allow_dash=True))
@click.option("--since", help="Only items created on or after this day.")
@click.option("--until", help="Only items created on or before this day.")
@common_options
def export_command(ctx: Context, path: Path, since: str | None, until: str | None) -> None:
    """Export stored items as JSONL ('-' for standard output)."""
    first, last = day_range(since, until)
    items = ctx.open_store(readonly=True).iter_items(first and first.isoformat(), last and last.isoformat())
    if str(path) == "-":
        count = export_items(items, sys.stdout)
    else:
        try:
            with path.open("w", encoding="utf-8") as handle:
                count = export_items(items, handle)
        except OSError as exc:
            raise InsightError(f"cannot write {path}: {exc.strerror}") from None
    if not ctx.quiet:
        click.echo(f"exported {plural(count, 'item')} to {path}", err=True)


@cli.command(name="mcp")
@click.option("--http", "http_port", type=click.IntRange(1, 65535), help="Serve streamable HTTP on this port, at /mcp.")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address --http listens on; any but loopback needs PYTORCH_INSIGHT_MCP_TOKEN (a bearer token).",
)
@click.option(
    "--allow-host",
    "allowed_hosts",
    multiple=True,
    help="Another name clients reach the server by (its Host header is checked; repeatable).",
)
@click.option("--lang", type=click.Choice(LANGUAGES), default="zh", show_default=True, help="Language of report text.")
@click.option("--reader", help="Reader profile that drives the ranking (default: the profile's default reader).")
@common_options
def mcp_command(
    ctx: Context, http_port: int | None, host: str, allowed_hosts: tuple[str, ...], lang: str, reader: str | None
) -> None:
    """Serve the store read-only over the Model Context Protocol (stdio; --http PORT for HTTP)."""
    # Imported here: the SDK and its web stack take longer to import than the rest of the tool.
    from pytorch_insight.serve.mcp_server import serve
    from pytorch_insight.serve.queries import Queries

    queries = Queries(ctx.open_store(readonly=True), ctx.settings.profile, lang=lang, reader=reader)
    try:
        token = os.environ.get("PYTORCH_INSIGHT_MCP_TOKEN") or None
        serve(queries, http_port, host, quiet=ctx.quiet, token=token, allowed_hosts=allowed_hosts)
    except KeyboardInterrupt:  # Ctrl-C is how a server is stopped
        pass


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: expected failures become one line on stderr and a non-zero exit."""
    try:
        code = cli.main(
            args=list(argv) if argv is not None else None, prog_name="pytorch-insight", standalone_mode=False
        )
    except click.exceptions.Abort:  # click turns Ctrl-C (KeyboardInterrupt) into Abort
        fail(INTERRUPTED, 130)
    except click.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx else "pytorch-insight"
        fail(f"error: {exc.format_message()}\nTry '{command} --help' for help.", exc.exit_code)
    except click.ClickException as exc:
        fail(f"error: {exc.format_message()}", exc.exit_code)
    except ConfigError as exc:
        fail(f"error: {exc}", 2)
    except InsightError as exc:
        fail(f"error: {exc}", 1)
    except SQLAlchemyError as exc:  # the database failed mid-command (server gone, file damaged)
        fail(f"error: database: {redact(describe_error(exc))}", 1)
    except KeyboardInterrupt:
        fail(INTERRUPTED, 130)
    if isinstance(code, int) and code:
        sys.exit(code)


def fail(line: str, code: int) -> None:
    # An error may quote a server or a file: each of its lines reaches the terminal plain.
    click.echo("\n".join(safe_message(part, 2000) for part in line.split("\n")), err=True)
    sys.exit(code)
