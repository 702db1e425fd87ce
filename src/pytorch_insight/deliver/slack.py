"""Slack incoming webhook: a Block Kit message (header, overview, one section per top item, the
link to the full report) with a plain `text` fallback. Slack answers `ok`, or an error word with
a 4xx status."""

from __future__ import annotations

import json
import re
from typing import Any

from pytorch_insight.deliver.job import DeliveryError, Job, joined, largest_fitting
from pytorch_insight.deliver.message import Digest, Entry, Paragraph, shortened
from pytorch_insight.deliver.post import answer_text, host_of, post
from pytorch_insight.text import shorten

# Slack's documented limits: a header's plain text 150 characters, a section's text 3,000, 50
# blocks a message, 40,000 characters of top-level text.
HEADER_LIMIT = 150
SECTION_LIMIT = 3000
MAX_BLOCKS = 50
TEXT_LIMIT = 40_000
# Slack also rejects messages whose blocks together are much longer (msg_blocks_too_long, at about
# 13,000 characters by its users' measurements, undocumented): stay well below.
BLOCKS_BUDGET = 12_000
URL_ESCAPES = str.maketrans({char: f"%{ord(char):02X}" for char in "|<> "})
# mrkdwn's formatting marks: *bold*, _italic_, ~strike~, `code`. Slack documents no escape for
# them; a mark opens or closes only beside a space, punctuation or the end of the text, so a zero
# width space on each side leaves it a plain character.
MRKDWN_MARKS = re.compile(r"[*_~`]")
ISOLATED = "\u200b\\g<0>\u200b"


def escape(text: str) -> str:
    """Text shown as it is in mrkdwn: &, < and > as the entities Slack documents, and the
    formatting marks isolated so that a title like `*stars*` or `__init__` is never formatted."""
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return MRKDWN_MARKS.sub(ISOLATED, text)


def paragraph(part: Paragraph) -> str:
    """A paragraph in mrkdwn: its lead-in in Slack's bold (*single* asterisks), then the text."""
    return f"*{escape(part.lead)}*: {escape(part.text)}" if part.lead else escape(part.text)


def overview(digest: Digest) -> str:
    """Totals and overview paragraphs (kept apart) in one section, shortened until it fits."""
    paragraphs = digest.overview
    while True:
        text = joined((fitted(digest.totals, SECTION_LIMIT), *(paragraph(part) for part in paragraphs)))
        if len(text) <= SECTION_LIMIT or not paragraphs:
            return text
        size = sum(len(part.lead) + len(part.text) for part in paragraphs)
        paragraphs = shortened(paragraphs, size * 3 // 4)


def fitted(text: str, limit: int) -> str:
    """`text` escaped, shortened (before escaping, so no entity is cut) until it fits `limit`."""
    escaped = escape(text)
    while len(escaped) > limit:
        text = shorten(text, max(1, len(text) - (len(escaped) - limit) - 1))
        escaped = escape(text)
    return escaped


def link(url: str, text: str) -> str:
    return f"<{url.translate(URL_ESCAPES)}|{escape(text)}>"


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def entry_text(entry: Entry) -> str:
    ref = link(entry.url, entry.ref) if entry.url else escape(entry.ref)
    head = f"{escape(entry.label)}  *{ref}* {escape(entry.title)}"
    if not entry.line:
        return head
    return f"{head}\n{fitted(entry.line, SECTION_LIMIT - len(head) - 1)}"


def payload(digest: Digest) -> dict[str, Any]:
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": shorten(digest.heading, HEADER_LIMIT)}},
        section(overview(digest)),
    ]
    if digest.entries:
        blocks += [{"type": "divider"}, section(f"*{escape(digest.word('top'))}*")]
        blocks += [section(entry_text(entry)) for entry in digest.entries]
    footer = [escape(digest.word("more", count=digest.omitted))] if digest.omitted else []
    if digest.link:
        footer.append(link(digest.link, digest.word("full")))
    if footer:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": "  ·  ".join(footer)}]})
    fallback = joined((digest.heading, digest.totals, digest.link or ""), "\n")
    return {"text": shorten(fallback, TEXT_LIMIT), "blocks": blocks, "unfurl_links": False}


def fits(message: dict[str, Any]) -> bool:
    blocks = message["blocks"]
    return len(blocks) <= MAX_BLOCKS and len(json.dumps(blocks, ensure_ascii=False)) <= BLOCKS_BUDGET


def send(job: Job) -> str:
    message = largest_fitting(job.digest, payload, fits)
    body = json.dumps(message, ensure_ascii=False).encode()
    response = post(job.url, body, job.http, clock=job.clock)
    answer = answer_text(response)
    if response.status_code != 200 or answer != "ok":
        raise DeliveryError(f"Slack ({host_of(job.url)}) answered {response.status_code}: {answer or 'no text'}")
    return f"{len(message['blocks'])} blocks"
