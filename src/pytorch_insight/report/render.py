"""Report model -> Markdown (GFM) and one self-contained HTML page, from Jinja2 templates and the
message catalogue. Source text is escaped in HTML; Markdown from sources is rendered with raw
HTML and images disabled, so a report never runs or loads anything from a source, and with
underscores kept as text (only `*` emphasises), so `__torch_dispatch__` or `__init__` in a
summary stays an identifier instead of turning bold. Only http(s) and mailto addresses become
links, in both formats (a `javascript:` URL from a feed or an import is shown as text), and
titles are shortened wherever they are printed."""

from __future__ import annotations

import re
from functools import lru_cache

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markupsafe import Markup

from pytorch_insight.report.charts import activity_chart, area_chart
from pytorch_insight.report.i18n import FOLLOW_UP_MARK, PRIORITY_MARK, STATUS_MARK, Catalogue
from pytorch_insight.report.model import FocusEntry, Report
from pytorch_insight.report.tally import analyser_name
from pytorch_insight.report.verbatim import html_quote, html_text, md_cell_text, md_quote, md_text
from pytorch_insight.text import TITLE_LIMIT, safe_url, shorten

MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>|#])")
# The first activity table is shown open only when it is short: on a phone a table of 180 rows runs
# the page past 60,000 px before the reader reaches the people and the appendix.
OPEN_ROWS = 15


def _underscores_as_text(state: StateInline, silent: bool) -> bool:
    """A run of underscores is plain text: sources write identifiers (`__code__`,
    `_scaled_mm`), not `_emphasis_`. Runs before the emphasis rule, after code spans and escapes."""
    start = state.pos
    if state.src[start] != "_":
        return False
    end = start
    while end < state.posMax and state.src[end] == "_":
        end += 1
    if not silent:
        state.pending += state.src[start:end]
    state.pos = end
    return True


def _linkable(url: str) -> bool:
    """markdown-it's link check: its own lets any scheme but javascript/vbscript/file/data pass
    (and relative paths); a report links to http(s) and mailto only, the rest stays text."""
    return safe_url(url) is not None


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False}).disable("image")
    parser.inline.ruler.before("emphasis", "underscores_as_text", _underscores_as_text)
    parser.validateLink = _linkable  # type: ignore[method-assign]
    return parser


def markdown_to_html(text: str | None) -> Markup:
    """Markdown from a source or the catalogue as HTML; raw HTML in it is shown as text."""
    return Markup(_markdown().render(text or ""))


def markdown_inline_to_html(text: str | None) -> Markup:
    """One line of Markdown (code spans, emphasis) as inline HTML, raw HTML shown as text."""
    text = text or ""
    if not MARKDOWN_SYNTAX.search(text):  # plain text (most table cells): escaping is all there is to do
        return Markup(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))
    return Markup(_markdown().renderInline(text))


# Characters that can start inline Markdown (or an entity); text without them renders as itself.
MARKDOWN_SYNTAX = re.compile(r"[\\`*_\[\]<>&!~\n]|^\s|\s$")


def md_inline(text: str | None) -> str:
    """Source text for a Markdown paragraph: raw HTML neutralised, markdown kept, but underscores
    outside code spans and URLs escaped, so `__init__` or snake_case never turns into emphasis,
    and so are opening brackets: a source's `[x](javascript:...)` or `[x]: javascript:...` never
    becomes a link (the report's own links come from its templates)."""
    text = (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return CODE_OR_ESCAPED.sub(lambda m: "\\" + m.group(0) if m.group(0) in ("_", "[") else m.group(0), text)


# A code span as CommonMark reads it (single backticks, not part of a longer run), a bare URL, or
# a character to escape.
CODE_OR_ESCAPED = re.compile(r"(?<!`)`[^`\n]*`(?!`)|https?://[^\s)>\[\]]+|[_\[]")


def md_cell(text: str | None) -> str:
    """Source text for a Markdown table cell or heading: every markdown character escaped."""
    flat = " ".join((text or "").split())
    return MD_SPECIAL.sub(r"\\\1", flat).replace("&", "&amp;")


def short_title(text: str | None) -> str:
    """A title as printed in a heading, a table or the archive: at most TITLE_LIMIT characters."""
    return shorten(text or "", TITLE_LIMIT)


# Characters that would end a Markdown link destination early or split a table row.
MD_URL_ESCAPES = str.maketrans({char: f"%{ord(char):02X}" for char in "()<>[]|\\ "})


def md_url(url: str | None) -> str:
    """A (safe) URL as a Markdown link destination, percent-encoded where Markdown would read it."""
    return (url or "").translate(MD_URL_ESCAPES)


def code_block(text: str | None) -> str:
    """A fenced block long enough never to be closed by the code it holds."""
    fence = "`" * max(3, max((len(run) for run in re.findall(r"`+", text or "")), default=0) + 1)
    return f"{fence}\n{text or ''}\n{fence}"


def quote_label(t: Catalogue, entry: FocusEntry, field: str) -> str:
    """The label of a quoted field: "quoted", or "quoted from #N" when it comes from a linked item."""
    ref = entry.quoted_refs.get(field)
    return t("source_quote_from", ref=ref) if ref else t("source_quote")


def shown_date(t: Catalogue, date: str | None, estimated: bool, basis: str) -> str:
    """A creation date as a report prints it: as collected, or marked as estimated with what it was
    inferred from (a report stored before the basis was kept has only the mark)."""
    if not estimated:
        return date or ""
    return t("date_estimated_from", date=date, basis=basis) if basis else t("date_estimated", date=date)


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
        md_text=md_text,
        md_cell_text=md_cell_text,
        md_quote=md_quote,
        html_text=html_text,
        html_quote=html_quote,
        md_cell=md_cell,
        code_block=code_block,
        safe_url=safe_url,
        md_url=md_url,
        short_title=short_title,
    )
    environment.globals.update(
        priority_mark=PRIORITY_MARK,
        status_mark=STATUS_MARK,
        follow_up_mark=FOLLOW_UP_MARK,
        quote_label=quote_label,
        shown_date=shown_date,
        analyser_name=analyser_name,
        open_rows=OPEN_ROWS,
    )
    return environment


def _context(report: Report, archive: str | None = None) -> dict[str, object]:
    t = Catalogue(report.lang)
    priorities = {priority: t(f"stage_{priority}") for priority in PRIORITY_MARK}
    return {
        "report": report,
        "t": t,
        "area_chart": Markup(area_chart(report.coverage.areas, t("chart_areas"), priorities)),
        "activity_chart": Markup(activity_chart(report.activity, t("chart_activity"), t("col_items"))),
        "generated_date": report.generated_at[:10],
        "archive": archive,
    }


def render_markdown(report: Report) -> str:
    return template_environment().get_template("report.md.j2").render(**_context(report))


def render_html(report: Report, archive: str | None = None) -> str:
    """The page; `archive` is the address of the archive index it links back to (on a site)."""
    return template_environment().get_template("report.html.j2").render(**_context(report, archive))
