"""Quoted source text stays verbatim in every format: Markdown and HTML characters in a quote are
shown, not applied (`2**32` is not an emphasised 32), code spans stay code, and text whose lines are
its layout (an ASCII call tree) is shown as a code block instead of being run into one line."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from pytorch_insight.report.model import Report
from pytorch_insight.report.render import render_html, render_markdown
from pytorch_insight.report.verbatim import html_quote, html_text, md_cell_text, md_quote, md_text
from pytorch_insight.text import prose, sentences
from tests.pipeline.helpers import item
from tests.report.fixtures import report_of

OVERFLOW_BODY = """### 🐛 Describe the bug

`torch.cumsum` returns wrong results on H100 once a tensor holds more than 2**32 elements, and 2**31 *is* fine.

The root cause is that the index is an `int32` in `reduce_kernel`.

### Versions

PyTorch version: 2.12.0
"""

TREE_BODY = """### 🐛 Describe the bug

Memory grows by 2 GB per step until OOM on H100 because the graph keeps each output alive:

  Trainer.step()
  └── compiled_fn()
      ├── forward()   # saves activations
      └── backward()  # frees nothing

The step takes 12.4 ms vs 13.9 ms in eager.
"""


def rendered(lang: str = "en") -> tuple[Report, str, str]:
    report = report_of(
        [
            item(2001, "cumsum gives wrong results past 2**32 elements", OVERFLOW_BODY, labels=["high priority"]),
            item(2002, "Memory grows every step under torch.compile", TREE_BODY, labels=["high priority"]),
        ],
        lang,
    )
    return report, render_markdown(report), render_html(report)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_stars_in_a_quote_are_shown_not_applied(lang: str) -> None:
    report, markdown, html = rendered(lang)
    entry = next(e for e in report.focus if e.ref == "#2001")
    assert "2**32" in entry.analysis.summary  # the JSON keeps the text as written
    assert "2\\*\\*32" in markdown and "2\\*\\*31 \\*is\\* fine" in markdown
    shown = MarkdownIt("commonmark").render(markdown)
    assert "2**32 elements" in shown and "<em>is</em>" not in shown and "<strong>" not in shown.split("2**32")[0][-40:]
    assert "2**32 elements" in html and "2**31 *is* fine" in html
    assert not re.search(r"<(?:em|strong)>(?:32|is)</(?:em|strong)>", html)


def test_code_spans_in_a_quote_stay_code() -> None:
    _, markdown, html = rendered()
    assert "`torch.cumsum` returns wrong results" in markdown
    assert "| `torch.cumsum` returns wrong results on H100" in markdown  # the activity table's cell too
    assert "<code>torch.cumsum</code> returns wrong results" in html
    assert "<code>int32</code> in <code>reduce_kernel</code>" in html


def test_a_call_tree_keeps_its_lines_as_a_code_block() -> None:
    report, markdown, html = rendered()
    tree = (
        "Trainer.step()\n└── compiled_fn()\n    ├── forward() # saves activations\n    └── backward() # frees nothing"
    )
    quoted = [e.analysis.summary + e.analysis.root_cause for e in report.focus if e.ref == "#2002"][0]
    assert tree in quoted
    indented = "\n".join("  " + line for line in tree.split("\n"))
    lead = "  Memory grows by 2 GB per step until OOM on H100 because the graph keeps each output alive:"
    assert f"  ```\n{lead}\n{indented}\n  ```" in markdown  # a fenced block in its list item, the lead on its own line
    assert "<pre><code>" in html and "└── compiled_fn()\n    ├── forward()" in html
    assert "Trainer.step() └── compiled_fn()" not in markdown + html  # never run into one line


def test_prose_drops_bold_markers_but_keeps_powers_and_layout() -> None:
    assert prose("**Note**: 2**32 and x**2 stay.") == "Note: 2**32 and x**2 stay."
    assert sentences("A tree:\n  a()\n  └── b()\n      └── c()") == ["A tree:\n  a()\n  └── b()\n      └── c()"]
    assert sentences("Prose that wraps\nover two lines, like most text.") == [
        "Prose that wraps over two lines, like most text."
    ]


def test_the_filters_escape_every_active_character() -> None:
    hostile = "2**32 _x_ [a](javascript:x) <b> ~~s~~ &amp; `a*b` https://x.org/a_b_c"
    assert MarkdownIt("commonmark").renderInline(md_text(hostile)) == (
        "2**32 _x_ [a](javascript:x) &lt;b&gt; ~~s~~ &amp;amp; <code>a*b</code> https://x.org/a_b_c"
    )
    assert str(html_text(hostile)) == (
        "2**32 _x_ [a](javascript:x) &lt;b&gt; ~~s~~ &amp;amp; <code>a*b</code> https://x.org/a_b_c"
    )
    assert md_quote("a *b*") == "“a \\*b\\*”"
    assert md_cell_text("`a|b` or c|d") == "`a\\|b` or c\\|d"  # a pipe never ends a table cell
    assert str(html_quote("x\n  y()")) == "<pre><code>x\n  y()</code></pre>"
