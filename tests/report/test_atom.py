"""The archive's Atom feed as a real Atom parser (feedparser) reads it: a feed author (RFC 4287
requires one when the entries name none), its own address as rel="self", and absolute links
when the site's address is known; the zh archive page translates every column header."""

from __future__ import annotations

from pathlib import Path

import feedparser

from pytorch_insight.report.write import write_report
from tests.report.fixtures import fixed_report

SITE = "https://your-org.github.io/insight/"


def test_the_feed_names_its_author_itself_and_absolute_pages(tmp_path: Path) -> None:
    write_report(fixed_report("zh"), tmp_path, site_url=SITE.rstrip("/"))
    write_report(fixed_report("en"), tmp_path, site_url=SITE)
    parsed = feedparser.parse((tmp_path / "feed.xml").read_bytes())
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10" and parsed.feed.author == "pytorch-insight"
    links = {link.rel: link.href for link in parsed.feed.links}
    assert links["self"] == SITE + "feed.xml" and links["alternate"] == SITE + "index.html"
    assert [entry.link for entry in parsed.entries] == [
        SITE + "2026-04-07_2026-04-13.html",
        SITE + "2026-04-07_2026-04-13.en.html",
    ]


def test_without_a_site_address_the_feed_still_has_an_author_and_a_self_link(tmp_path: Path) -> None:
    write_report(fixed_report("zh"), tmp_path)
    parsed = feedparser.parse((tmp_path / "feed.xml").read_bytes())
    assert parsed.feed.author == "pytorch-insight"
    assert any(link.rel == "self" for link in parsed.feed.links)


def test_the_zh_archive_translates_its_column_headers(tmp_path: Path) -> None:
    write_report(fixed_report("zh"), tmp_path)
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    head = index.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert "Lang" not in head and "语言" in head
