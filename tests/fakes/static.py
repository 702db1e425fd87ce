"""A local web server for fixed documents: a blog feed, an iCalendar file, an events page."""

from __future__ import annotations

from typing import Any

from tests.fakes.server import LocalServer, Reply


class StaticSite(LocalServer):
    def __init__(self, documents: dict[str, tuple[str, str]]) -> None:
        """`documents`: path -> (content type, text)."""
        super().__init__()
        self.documents = documents

    def answer(self, path: str, query: dict[str, list[str]], headers: Any) -> Reply:
        if path not in self.documents:
            return Reply(404, b"<html><body>Not Found</body></html>", {"Content-Type": "text/html"})
        content_type, text = self.documents[path]
        return Reply(200, text.encode("utf-8"), {"Content-Type": content_type})
