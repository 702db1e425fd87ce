"""What the commands that write or send a window's report share: their options, where the
report goes, building it from the store, recording it for next week's follow-up, writing it and
delivering it. Kept apart from cli.py, which only declares the commands and wires them."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pytorch_insight.analysis.llm import LLMAnalyser
from pytorch_insight.config import with_llm
from pytorch_insight.console import plural
from pytorch_insight.deliver.dispatch import Outcome, Status, deliver
from pytorch_insight.errors import ConfigError, StoreError
from pytorch_insight.report.build import ReportOptions
from pytorch_insight.report.followup import record
from pytorch_insight.report.i18n import LANGUAGES
from pytorch_insight.report.model import Report
from pytorch_insight.report.render import render_html, render_markdown
from pytorch_insight.report.stored import stored_report
from pytorch_insight.report.write import FORMATS, parse_formats, write_report
from pytorch_insight.store import LLMLedger, Store, may_write
from pytorch_insight.window import Window

if TYPE_CHECKING:
    from pytorch_insight.cli import Context

RENDERERS: dict[str, Callable[[Report], str]] = {
    "md": render_markdown,
    "html": render_html,
    "json": lambda report: report.model_dump_json(indent=2) + "\n",
}


def json_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option("--json", "as_json", is_flag=True, help=f"Print {what} as JSON on stdout.")


def report_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of the commands that write a report (`report`, `run`)."""
    options = [
        click.option(
            "--format",
            "formats",
            help="Comma-separated output formats: md, html, json (default: all three; md with --out -).",
        ),
        click.option("--lang", type=click.Choice(LANGUAGES), default="zh", show_default=True, help="Report language."),
        click.option(
            "--out",
            type=click.Path(path_type=Path, file_okay=False, allow_dash=True),
            default=Path("reports"),
            show_default=True,
            help="Folder the report files, index.html and feed.xml are written to; '-' writes one format to stdout.",
        ),
        click.option(
            "--site",
            type=click.Path(path_type=Path, file_okay=False),
            help="Keep a static site in this folder instead of --out: the report pages (html and json always), "
            "index.html, feed.xml and .nojekyll, ready for GitHub Pages or any web server.",
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
        json_option("the written paths"),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@dataclass(frozen=True)
class Output:
    """Where a report goes: files in a folder, or one format on stdout (`--out -`)."""

    out: Path
    formats: tuple[str, ...]
    as_json: bool
    site: bool = False

    @property
    def to_stdout(self) -> bool:
        return str(self.out) == "-"


def report_output(out: Path, formats: str | None, as_json: bool, site: Path | None = None) -> Output:
    """Checked before any work, so a usage mistake costs no collection."""
    if site is not None:
        given = click.get_current_context().get_parameter_source("out") is click.core.ParameterSource.COMMANDLINE
        if given:
            raise ConfigError("--site and --out both name where the report goes: use one of them")
        return Output(site, parse_formats(formats) if formats else FORMATS, as_json, site=True)
    to_stdout = str(out) == "-"
    wanted = parse_formats(formats) if formats else ("md",) if to_stdout else FORMATS
    if to_stdout and len(wanted) > 1:
        raise ConfigError("--out - writes one format to stdout: choose it with --format md, html or json")
    if to_stdout and as_json:
        raise ConfigError("--out - and --json both write to stdout: use one of them")
    return Output(out, wanted, as_json)


def build_window_report(
    ctx: Context,
    store: Store,
    window: Window,
    *,
    lang: str,
    reader: str | None,
    focus_size: int,
    deep_size: int,
    downstream: Path | None,
    llm_model: str | None,
    llm_budget: int | None,
    llm_concurrency: int | None,
) -> Report:
    """Rank, link and classify the stored items of a window into the report (no network but the model's)."""
    profile = ctx.settings.profile
    reader_profile = profile.reader(reader)
    options = ReportOptions(lang=lang, focus_size=focus_size, deep_size=deep_size, downstream=downstream)
    llm = with_llm(ctx.settings, llm_model, llm_budget, llm_concurrency).llm
    if llm is not None:
        role = reader_profile.role.zh if lang == "zh" else reader_profile.role.en
        if ctx.workers:  # each focus item's model call is a task (Celery is loaded only then)
            from pytorch_insight.workers.analysis import worker_analyser

            options.analyser = worker_analyser(ctx.settings, llm, LLMLedger(store), lang=lang, role=role)
        else:
            options.analyser = LLMAnalyser(llm, LLMLedger(store), lang=lang, role=role)
    # The follow-up rebuilds an unrecorded previous week by the rules alone, never the model.
    return stored_report(store, window, profile, reader_profile, options)[0]


def remember(ctx: Context, store: Store, document: Report) -> None:
    """Record what the report showed for the next window's follow-up. `report` reads the database
    read-only, so it writes this through a short writable open when it may; a database it cannot
    write gets a note, and the report stands (the next week then rebuilds this one from the items)."""
    try:
        if not store.readonly:
            record(store, document)
        elif may_write(ctx.settings.db):
            writer = ctx.open_store()
            try:
                record(writer, document)
            finally:
                writer.close()
        else:
            raise StoreError("the database is read-only")
    except StoreError as exc:
        if not ctx.quiet:
            click.echo(f"note: focus list not recorded for next week's follow-up: {exc}", err=True)


def publish(ctx: Context, document: Report, output: Output) -> dict[str, Any]:
    """Write the report; the written paths go to stdout (unless --json: returned for its document)."""
    if output.to_stdout:
        click.echo(RENDERERS[output.formats[0]](document), nl=False)
        paths: list[Path] = []
    else:
        paths = write_report(
            document,
            output.out,
            output.formats,
            ctx.settings.profile.reader(None).id,
            site=output.site,
            site_url=ctx.settings.site_url,
        )
        if not output.as_json:
            for path in paths:
                click.echo(str(path))
    high = document.stats.get("high", 0)
    if not ctx.quiet:
        click.echo(f"report: {plural(len(document.items), 'item')}, {high} high priority", err=True)
    return {"written": [str(path) for path in paths], "items": len(document.items), "high_priority": high}


def publish_for_targets(
    ctx: Context, document: Report, output: Output, report_for: Callable[[str, str | None], Report]
) -> list[str]:
    """Also write the pages the delivery targets will link to: each language and reader a target
    asks for besides the one written (a chat target with `lang = "en"` links to the `.en` page,
    which a zh-only site would not have). Written beside it; nothing for a report sent to stdout."""
    if output.to_stdout or not ctx.settings.delivery:
        return []
    wanted = {(target.lang or document.lang, target.reader) for target in ctx.settings.delivery}
    written: list[str] = []
    for lang, reader in sorted(wanted, key=lambda pair: (pair[0], pair[1] or "")):
        other = report_for(lang, reader)
        if (other.lang, other.reader) == (document.lang, document.reader):
            continue
        paths = write_report(
            other,
            output.out,
            output.formats,
            ctx.settings.profile.reader(None).id,
            site=output.site,
            site_url=ctx.settings.site_url,
        )
        written += [str(path) for path in paths]
        if not output.as_json:
            for path in paths:
                click.echo(str(path))
    return written


def window_reports(
    ctx: Context, store: Store, window: Window, options: dict[str, Any], built: Report | None = None
) -> Callable[[str, str | None], Report]:
    """The window's report in each language and for each reader a delivery target asks for, each
    built once (`built`: the one already written)."""
    cache: dict[tuple[str, str], Report] = {}
    if built is not None:
        cache[(built.lang, built.reader)] = built

    def report_for(lang: str, reader: str | None) -> Report:
        reader_id = ctx.settings.profile.reader(reader or options.get("reader")).id
        if (lang, reader_id) not in cache:
            wanted = options | {"lang": lang, "reader": reader_id}
            cache[(lang, reader_id)] = build_window_report(ctx, store, window, **wanted)
        return cache[(lang, reader_id)]

    return report_for


def deliver_window(
    ctx: Context,
    targets: Sequence[Any],
    report_for: Callable[[str, str | None], Report],
    store: Store,
    lang: str,
    force: bool,
) -> list[Outcome]:
    """Deliver, then one line per target on stderr: failures always, the rest unless -q."""
    outcomes = deliver(targets, report_for, store, ctx.settings, default_lang=lang, force=force, env=os.environ)
    for outcome in outcomes:
        where = f"{outcome.target} ({outcome.kind})"
        if outcome.status is Status.FAILED:
            click.echo(f"error: delivery to {where} failed: {outcome.note}", err=True)
        elif not ctx.quiet:
            verb = "delivered to" if outcome.status is Status.SENT else "skipped"
            click.echo(f"{verb} {where}" + (f": {outcome.note}" if outcome.note else ""), err=True)
    return outcomes
