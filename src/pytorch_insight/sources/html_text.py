"""Text from HTML (Discourse's cooked posts, feed summaries, event pages) with a real HTML parser.

Link targets are kept next to their text, so the links stage can still see GitHub URLs.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser

BLOCKS = {"p", "div", "br", "li", "ul", "ol", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "aside"}
SKIPPED = {"script", "style", "template"}


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.links: list[str | None] = []
        self.skip = 0
        self.json_ld: list[str] = []
        self._in_json_ld = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "script" and (attributes.get("type") or "").lower() == "application/ld+json":
            self._in_json_ld = True
            self.json_ld.append("")
        if tag in SKIPPED:
            self.skip += 1
        if tag in BLOCKS:
            self.parts.append("\n")
        if tag == "a":
            self.links.append(attributes.get("href"))

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIPPED and self.skip:
            self.skip -= 1
            self._in_json_ld = False
        if tag == "a" and self.links:
            href = self.links.pop()
            if href and href.startswith("http") and href not in self.parts[-1:]:
                self.parts.append(f" ({href})")
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_json_ld:
            self.json_ld[-1] += data
        elif not self.skip:
            self.parts.append(data)


def html_to_text(html: str | None) -> str:
    parser = _TextParser()
    parser.feed(html or "")
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)


def json_ld_objects(html: str) -> list[dict]:
    """Every JSON-LD object embedded in a page (a list or an @graph is flattened)."""
    parser = _TextParser()
    parser.feed(html)
    parser.close()
    found: list[dict] = []
    for block in parser.json_ld:
        try:
            data = json.loads(block)
        except ValueError:
            continue
        stack = data if isinstance(data, list) else [data]
        while stack:
            node = stack.pop(0)
            if isinstance(node, dict):
                found.append(node)
                stack.extend(node.get("@graph", []) if isinstance(node.get("@graph"), list) else [])
    return found
