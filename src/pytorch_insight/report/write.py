"""Write a report as `<since>_<until>[.<reader>][.<lang>].{md,html,json}` and keep the folder's archive
(`index.html` and an Atom `feed.xml`) up to date, so the folder can be published as it is; as a
site (`--site`), the pages also link back to the archive and GitHub Pages gets its `.nojekyll`."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

from pytorch_insight.errors import ConfigError, InsightError
from pytorch_insight.redact import public_text
from pytorch_insight.report.i18n import LANGUAGES, Catalogue
from pytorch_insight.report.model import Report, web_url
from pytorch_insight.report.render import (
    render_html,
    render_markdown,
    short_title,
    template_environment,
)

FORMATS = ("md", "html", "json")
DEFAULT_LANG = "zh"
# The reader part is tried last (lazy `??`), so `.en.json` is a language, not a reader named "en".
REPORT_NAME = re.compile(
    r"^(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})(?:\.([\w-]+?))??(?:\.(" + "|".join(LANGUAGES) + r"))?\.json$"
)
ATOM = "http://www.w3.org/2005/Atom"


def parse_formats(text: str) -> tuple[str, ...]:
    """``"md,html,json"`` or any subset; unknown formats are a configuration error."""
    wanted = tuple(dict.fromkeys(part.strip().lower() for part in text.split(",") if part.strip()))
    unknown = [fmt for fmt in wanted if fmt not in FORMATS]
    if unknown or not wanted:
        raise ConfigError(f"unknown report format {', '.join(unknown) or repr(text)} (available: {', '.join(FORMATS)})")
    return wanted


def report_stem(report: Report, default_reader: str | None = None) -> str:
    """The default reader's report keeps the plain name; another reader's carries the reader, so
    `--reader compiler` never overwrites it."""
    reader = "" if default_reader is None or report.reader == default_reader else f".{report.reader}"
    suffix = "" if report.lang == DEFAULT_LANG else f".{report.lang}"
    return f"{report.window.since}_{report.window.until}{reader}{suffix}"


SITE_FORMATS = ("html", "json")  # the page, and the document the archive index is built from


def write_report(
    report: Report,
    out: Path,
    formats: tuple[str, ...] = FORMATS,
    default_reader: str | None = None,
    site: bool = False,
    site_url: str | None = None,
) -> list[Path]:
    """Write the report's files into `out` and update its archive. A site always gets the HTML page
    and the JSON document, its pages link to `index.html`, and a `.nojekyll` file keeps GitHub
    Pages from running the folder through Jekyll (every link is relative, so it works under a
    project's path, `https://<owner>.github.io/<repo>/`, as on any web server)."""
    if site:
        formats = tuple(fmt for fmt in FORMATS if fmt in formats or fmt in SITE_FORMATS)
    renderers = {
        "json": lambda r: r.model_dump_json(indent=2) + "\n",
        "md": render_markdown,
        "html": lambda r: render_html(r, archive="index.html" if site else None),
    }
    written = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        if site:
            (out / ".nojekyll").touch()
        for fmt in formats:
            path = out / f"{report_stem(report, default_reader)}.{fmt}"
            path.write_text(renderers[fmt](report), encoding="utf-8")
            written.append(path)
        if "json" in formats:
            update_archive(out, site_url)
    except OSError as exc:
        raise InsightError(f"cannot write the report to {out}: {exc.strerror}") from None
    return written


@dataclass(frozen=True)
class ArchiveEntry:
    stem: str
    since: str
    until: str
    reader: str  # empty for the default reader
    lang: str
    title: str
    generated_at: str
    totals: str
    formats: tuple[str, ...]


def archive_entries(out: Path) -> list[ArchiveEntry]:
    """Every report in the folder (found by its JSON document), newest window first. What the
    documents say is made public again (short titles, no control characters, no secrets): a
    document may be older than this version, or not written by it."""
    clean = public_text()
    entries = []
    for path in sorted(out.glob("*.json")):
        match = REPORT_NAME.match(path.name)
        if not match:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a half-written or foreign file is not a report; the archive lists the rest
        stem = path.name.removesuffix(".json")
        entries.append(
            ArchiveEntry(
                stem=stem,
                since=match.group(1),
                until=match.group(2),
                reader=match.group(3) or "",
                lang=match.group(4) or DEFAULT_LANG,
                title=short_title(clean(str(data.get("title", "")))),
                generated_at=clean(str(data.get("generated_at", ""))),
                totals=short_title(clean(str((data.get("overview") or {}).get("totals", "")))),
                formats=tuple(fmt for fmt in FORMATS if (out / f"{stem}.{fmt}").exists()),
            )
        )
    return sorted(entries, key=lambda e: (e.until, e.since, e.lang, not e.reader), reverse=True)  # default reader first


def update_archive(out: Path, site_url: str | None = None) -> None:
    entries = archive_entries(out)
    lang = entries[0].lang if entries else DEFAULT_LANG
    index = template_environment().get_template("index.html.j2").render(entries=entries, t=Catalogue(lang))
    (out / "index.html").write_text(index, encoding="utf-8")
    (out / "feed.xml").write_bytes(atom_feed(entries, site_url))


def atom_feed(entries: list[ArchiveEntry], site_url: str | None = None) -> bytes:
    """The archive as Atom (RFC 4287): a feed author (required when entries name none), its own
    address as rel="self", and, when the site's address is known, absolute links, which feed
    readers need (a relative one resolves against wherever the reader found the feed)."""
    base = web_url(site_url.rstrip("/") + "/") if site_url else None

    def address(name: str) -> str:
        return urljoin(base, name) if base else name

    ElementTree.register_namespace("", ATOM)
    feed = ElementTree.Element(f"{{{ATOM}}}feed")
    title = entries[0].title if entries else "pytorch-insight"
    ElementTree.SubElement(feed, f"{{{ATOM}}}title").text = title
    ElementTree.SubElement(feed, f"{{{ATOM}}}id").text = "urn:pytorch-insight:archive"
    ElementTree.SubElement(feed, f"{{{ATOM}}}updated").text = max(
        (e.generated_at for e in entries), default="1970-01-01T00:00:00+00:00"
    )
    author = ElementTree.SubElement(feed, f"{{{ATOM}}}author")
    ElementTree.SubElement(author, f"{{{ATOM}}}name").text = "pytorch-insight"
    ElementTree.SubElement(feed, f"{{{ATOM}}}link", rel="self", type="application/atom+xml", href=address("feed.xml"))
    ElementTree.SubElement(feed, f"{{{ATOM}}}link", rel="alternate", type="text/html", href=address("index.html"))
    for entry in entries:
        node = ElementTree.SubElement(feed, f"{{{ATOM}}}entry")
        ElementTree.SubElement(
            node, f"{{{ATOM}}}title"
        ).text = f"{entry.title} {entry.since} – {entry.until} ({', '.join(filter(None, (entry.lang, entry.reader)))})"
        ElementTree.SubElement(node, f"{{{ATOM}}}id").text = f"urn:pytorch-insight:report:{entry.stem}"
        ElementTree.SubElement(node, f"{{{ATOM}}}updated").text = entry.generated_at
        page = f"{entry.stem}.html" if "html" in entry.formats else f"{entry.stem}.json"
        ElementTree.SubElement(
            node, f"{{{ATOM}}}link", href=address(page), hreflang="zh-CN" if entry.lang == "zh" else entry.lang
        )
        ElementTree.SubElement(node, f"{{{ATOM}}}summary").text = entry.totals
    ElementTree.indent(feed)
    return ElementTree.tostring(feed, encoding="utf-8", xml_declaration=True)
