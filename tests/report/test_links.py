"""Only http(s) and mailto addresses become links, in the HTML page, the Markdown report and
Markdown from the sources: a `javascript:` URL from an RSS <link>, an event's JSON-LD or an
imported line is shown as text, never as something a click runs."""

from __future__ import annotations

import re

import html5lib
import pytest
from markdown_it import MarkdownIt

from pytorch_insight.model import Item
from pytorch_insight.report.render import (
    markdown_inline_to_html,
    markdown_to_html,
    md_inline,
    render_html,
    render_markdown,
)
from tests.report.fixtures import report_of, week

HOSTILE_URLS = [
    "javascript:alert(document.domain)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "javascript&#58;alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "//evil.example/x",
    "/relative/path",
    "ftp://files.example/x",
    "https://\u202eevil.example",
    "https:alert(1)",
]
SAFE = re.compile(r"(?:https?://|mailto:)", re.I)


def report_with_urls(url: str):  # noqa: ANN201
    items = week()
    items[-1] = items[-1].model_copy(update={"url": url})  # the event: an RSS <link>, a JSON-LD url
    items.append(
        Item(
            id="blog:imported-1",
            source="blog",
            kind="blog",
            title="An imported post",
            url=url,
            body="A post.",
            created="2026-04-09T09:00:00Z",
        )
    )
    return report_of(items, "en")


@pytest.mark.parametrize("url", HOSTILE_URLS, ids=repr)
def test_only_http_and_mailto_urls_are_linkable(url: str) -> None:
    from pytorch_insight.text import safe_url

    assert safe_url(url) is None
    assert safe_url("https://github.com/pytorch/pytorch/issues/1") == "https://github.com/pytorch/pytorch/issues/1"
    assert safe_url("mailto:someone@example.com") == "mailto:someone@example.com"


@pytest.mark.parametrize("url", ["javascript:alert(document.domain)", "data:text/html,x", "/relative"], ids=repr)
def test_a_hostile_url_is_text_in_the_html_page(url: str) -> None:
    report = report_with_urls(url)
    report.focus[0].url = url  # a focus entry's own link too
    html = render_html(report)
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(html)
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs and all(SAFE.match(href) for href in hrefs), [h for h in hrefs if not SAFE.match(h)]
    assert "An imported post" in html  # the row is there, its title as plain text
    escaped = url.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert f'<span class="url">{escaped}</span>' in html  # the focus entry shows where it pointed


@pytest.mark.parametrize("url", ["javascript:alert(document.domain)", "data:text/html,x", "/relative"], ids=repr)
def test_a_hostile_url_is_text_in_the_markdown_report(url: str) -> None:
    report = report_with_urls(url)
    report.focus[0].url = url
    markdown = render_markdown(report)
    destinations = re.findall(r"\]\(([^)\s]*)", markdown)
    assert destinations and all(SAFE.match(d) for d in destinations), [d for d in destinations if not SAFE.match(d)]
    assert "| An imported post |" in markdown
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    assert all(SAFE.match(href) for href in re.findall(r'href="([^"]*)"', rendered))


def test_a_safe_url_with_markdown_characters_stays_one_link() -> None:
    report = report_with_urls("https://example.com/a_(b)|c")
    markdown = render_markdown(report)
    assert "(https://example.com/a_%28b%29%7Cc)" in markdown  # no ")" ends it early, no "|" splits the row


@pytest.mark.parametrize(
    "source",
    [
        "[click](javascript:alert(1))",
        "[click](JAVASCRIPT:alert(1))",
        "[click](jav&#x61;script:alert(1))",
        "[click](ftp://files.example/x)",
        "[click](relative/path)",
        "[click](<java script:alert(1)>)",
        "[click]\n\n[click]: javascript:alert(1)",
        "<javascript:alert(1)>",
    ],
    ids=repr,
)
@pytest.mark.parametrize("render", [markdown_to_html, markdown_inline_to_html])
def test_markdown_from_sources_links_to_http_and_mailto_only(source: str, render) -> None:  # noqa: ANN001
    html = str(render(source))
    assert "<a " not in html
    assert "click" in html or "javascript" in html  # shown as text


def test_markdown_from_sources_keeps_its_http_links() -> None:
    assert (
        str(markdown_to_html("[docs](https://pytorch.org/docs)"))
        == '<p><a href="https://pytorch.org/docs">docs</a></p>\n'
    )
    assert str(markdown_inline_to_html("[me](mailto:a@example.com)")) == '<a href="mailto:a@example.com">me</a>'


@pytest.mark.parametrize(
    "source",
    [
        "see [click](javascript:alert(1)) here",
        "see [click]\n\n[click]: javascript:alert(1)",
        "see `[click](javascript:alert(1))`` here",
        "see ![x](javascript:alert(1))",
        "see https://example.com/[click](javascript:alert(1))",
    ],
    ids=repr,
)
def test_source_text_in_the_markdown_report_makes_no_link(source: str) -> None:
    """md_inline output read by the most permissive Markdown viewer still links nothing."""
    permissive = MarkdownIt("commonmark")
    permissive.validateLink = lambda url: True  # type: ignore[method-assign]
    html = permissive.render(md_inline(source))
    assert 'href="javascript' not in html and "<img" not in html
