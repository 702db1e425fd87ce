"""Text quoted from a source, and the report's sentences that embed such quotes, shown as they were
written in every format: no character of theirs is read as markup (`2**32` stays `2**32`, not an
emphasised 32), code spans stay code, and a quote whose lines are its layout (an ASCII call tree,
unfenced code; text.py keeps their line breaks) is shown as a code block instead of one line.

Markdown gets backslash escapes, HTML gets entities; both keep the same code spans, so the two
formats and the JSON (which holds the plain text) say the same thing."""

from __future__ import annotations

import re

from markupsafe import Markup, escape

# A code span as CommonMark reads the common case (one backtick each side, not part of a longer run,
# on one line), or a bare URL (GitHub links it; escaping its characters would break it). Each attempt
# reads to the next backtick or blank only, so a run of backticks is read once.
CODE_OR_URL = re.compile(r"(?<!`)`([^`\n]+)`(?!`)|https?://[^\s<>()\[\]`]+")
# Characters that start inline Markdown: emphasis, code, links and images (an escaped "[" opens
# neither, so "]" and "!" stay as written), raw HTML, strike-through, escapes; `&` only where it
# would start an entity. The fewer escapes, the more the Markdown file reads like its source.
MD_ACTIVE = re.compile(r"[\\`*_\[<>~]|&(?=#?\w{1,32};)")


def laid_out(text: str) -> bool:
    """The quote keeps its lines (text.py joins the sentences of prose on one line)."""
    return "\n" in text.strip()


def _pieces(text: str) -> list[tuple[str, str]]:
    """("text" | "code" | "url", content) in order."""
    found, position = [], 0
    for match in CODE_OR_URL.finditer(text):
        if match.start() > position:
            found.append(("text", text[position : match.start()]))
        found.append(("code", match.group(1)) if match.group(1) is not None else ("url", match.group(0)))
        position = match.end()
    if position < len(text):
        found.append(("text", text[position:]))
    return found


def md_text(text: str | None) -> str:
    """Plain text (a quote, or a sentence of the report holding quotes) as inline Markdown that
    renders to exactly that text, its code spans kept; whitespace folds to single spaces."""
    flat = " ".join((text or "").split())
    parts = []
    for kind, content in _pieces(flat):
        if kind == "code":
            parts.append(f"`{content}`")
        elif kind == "url":
            parts.append(content)
        else:
            parts.append(MD_ACTIVE.sub(lambda m: "\\" + m.group(0), content))
    return "".join(parts)


def md_cell_text(text: str | None) -> str:
    """Plain text for a Markdown table cell: as `md_text`, with every pipe escaped, in code spans
    too (GitHub ends a cell at any unescaped pipe, even in code)."""
    return md_text(text).replace("|", "\\|")


def html_text(text: str | None) -> Markup:
    """Plain text as inline HTML: everything escaped, code spans as <code>."""
    flat = " ".join((text or "").split())
    return Markup("").join(
        Markup("<code>{}</code>").format(content) if kind == "code" else escape(content)
        for kind, content in _pieces(flat)
    )


def fence(text: str) -> str:
    """A fenced block long enough never to be closed by the text it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marker = "`" * max(3, longest + 1)
    return f"{marker}\n{text}\n{marker}"


def md_quote(text: str | None, indent: int = 2) -> str:
    """A quote as Markdown: “inline”, or a code block (indented to stay in its list item) when its
    lines are its layout."""
    text = (text or "").strip("\n")
    if not laid_out(text):
        return f"“{md_text(text)}”"
    pad = " " * indent
    return "\n\n" + "\n".join(pad + line if line else line for line in fence(text).split("\n")) + "\n"


def html_quote(text: str | None) -> Markup:
    """A quote as HTML: a paragraph, or <pre> when its lines are its layout."""
    text = (text or "").strip("\n")
    if laid_out(text):
        return Markup("<pre><code>{}</code></pre>").format(text)
    return Markup("<p>{}</p>").format(html_text(text))
