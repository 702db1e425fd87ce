"""Report model -> Markdown (GFM) and one self-contained HTML page, from Jinja2 templates and the
message catalogue. Source text is escaped in HTML; Markdown from sources is rendered with raw
HTML and images disabled, so a report never runs or loads anything from a source."""

from __future__ import annotations

import re
from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup

from pytorch_insight.report.charts import activity_chart, area_chart
from pytorch_insight.report.i18n import PRIORITY_MARK, STATUS_MARK, Catalogue
from pytorch_insight.report.model import Report

MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#])")


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).disable("image")


def markdown_to_html(text: str | None) -> Markup:
    """Markdown from a source or the catalogue as HTML; raw HTML in it is shown as text."""
    return Markup(_markdown().render(text or ""))


def markdown_inline_to_html(text: str | None) -> Markup:
    """One line of Markdown (code spans, emphasis) as inline HTML, raw HTML shown as text."""
    return Markup(_markdown().renderInline(text or ""))


def md_inline(text: str | None) -> str:
    """Source text for a Markdown paragraph: raw HTML neutralised, markdown kept."""
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_cell(text: str | None) -> str:
    """Source text for a Markdown table cell or heading: every markdown character escaped."""
    flat = " ".join((text or "").split())
    return MD_SPECIAL.sub(r"\\\1", flat).replace("&", "&amp;")


def code_block(text: str | None) -> str:
    """A fenced block long enough never to be closed by the code it holds."""
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", text or "")), default=0) + 1)
    return f"{fence}\n{text or ''}\n{fence}"


@lru_cache(maxsize=1)
def template_environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("pytorch_insight", "report/templates"),
        autoescape=select_autoescape(enabled_extensions=("html.j2", "xml.j2"), default_for_string=False, default=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.filters.update(
        markdown=markdown_to_html,
        markdown_inline=markdown_inline_to_html,
        md_inline=md_inline,
        md_cell=md_cell,
        code_block=code_block,
    )
    environment.globals.update(priority_mark=PRIORITY_MARK, status_mark=STATUS_MARK)
    return environment


def _context(report: Report) -> dict[str, object]:
    t = Catalogue(report.lang)
    return {
        "report": report,
        "t": t,
        "area_chart": Markup(area_chart(report.coverage.areas, t("chart_areas"))),
        "activity_chart": Markup(activity_chart(report.activity, t("chart_activity"))),
        "generated_date": report.generated_at[:10],
    }


def render_markdown(report: Report) -> str:
    return template_environment().get_template("report.md.j2").render(**_context(report))


def render_html(report: Report) -> str:
    return template_environment().get_template("report.html.j2").render(**_context(report))
