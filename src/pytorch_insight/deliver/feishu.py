"""Feishu (Lark) custom bot: an interactive card. With the bot's signing secret the body carries
`timestamp` (seconds) and `sign` = Base64(HMAC-SHA256(key = timestamp + "\\n" + secret, message =
empty)), as Feishu documents it. Feishu answers HTTP 200 with `code` 0, or a non-zero `code` (a bad
signature, a missing keyword, a body over 20 KB) and its `msg`."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from pytorch_insight.deliver.job import DeliveryError, Job, largest_fitting
from pytorch_insight.deliver.message import Digest, Entry
from pytorch_insight.deliver.post import answer_text, host_of, post

# Feishu: "the request body may not exceed 20 KB".
BODY_LIMIT = 20 * 1024
# Characters lark_md would read as markup or as a link's text. Without the brackets no link can
# start, so parentheses stay: "Design proposals (RFCs)" keeps its words.
LARK_MD_SPECIAL = str.maketrans({char: None for char in "[]*_~`<>\\"})
URL_ESCAPES = str.maketrans({char: f"%{ord(char):02X}" for char in "()<> "})


def sign(timestamp: int, secret: str) -> str:
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()


def plain(text: str) -> dict[str, Any]:
    return {"tag": "div", "text": {"tag": "plain_text", "content": text}}


def entry_elements(entry: Entry) -> list[dict[str, Any]]:
    ref = entry.ref.translate(LARK_MD_SPECIAL)
    head = f"{entry.label.translate(LARK_MD_SPECIAL)}  " + (
        f"[{ref}]({entry.url.translate(URL_ESCAPES)})" if entry.url else ref
    )
    # Titles and conclusions come from the sources: plain text, never read as markup.
    return [
        {"tag": "div", "text": {"tag": "lark_md", "content": head}},
        plain(entry.title + (f"\n{entry.line}" if entry.line else "")),
    ]


def card(digest: Digest) -> dict[str, Any]:
    elements: list[dict[str, Any]] = [plain(digest.totals)]
    for paragraph in digest.overview:
        # The lead-in in lark_md's bold (profile text, its markup characters dropped); the
        # paragraph itself as plain text, never read as markup.
        if paragraph.lead:
            lead = paragraph.lead.translate(LARK_MD_SPECIAL)
            elements.append({"tag": "div", "text": {"tag": "lark_md", "content": f"**{lead}**"}})
        elements.append(plain(paragraph.text))
    if digest.entries:
        elements += [{"tag": "hr"}, {"tag": "div", "text": {"tag": "lark_md", "content": f"**{digest.word('top')}**"}}]
        for entry in digest.entries:
            elements += entry_elements(entry)
    if digest.omitted:
        elements.append(
            {"tag": "note", "elements": [{"tag": "plain_text", "content": digest.word("more", count=digest.omitted)}]}
        )
    if digest.link:
        button = {"tag": "button", "type": "primary", "url": digest.link}
        elements.append(
            {"tag": "action", "actions": [button | {"text": {"tag": "plain_text", "content": digest.word("full")}}]}
        )
    return {
        "config": {"wide_screen_mode": True},
        "header": {
            "template": "red" if digest.high else "blue",
            "title": {"tag": "plain_text", "content": digest.heading},
        },
        "elements": elements,
    }


def send(job: Job) -> str:
    signature: dict[str, str] = {}
    if job.credentials.secret:
        timestamp = int(job.clock.now())
        signature = {"timestamp": str(timestamp), "sign": sign(timestamp, job.credentials.secret)}

    def body_of(digest: Digest) -> bytes:
        return json.dumps({**signature, "msg_type": "interactive", "card": card(digest)}, ensure_ascii=False).encode()

    body = largest_fitting(job.digest, body_of, lambda data: len(data) <= BODY_LIMIT)
    response = post(job.url, body, job.http, clock=job.clock)
    where = f"Feishu ({host_of(job.url)})"
    try:
        answer = response.json()
    except ValueError:
        raise DeliveryError(f"{where} answered {response.status_code}: {answer_text(response) or 'no text'}") from None
    # The current answer carries `code`; older bots answered with `StatusCode`.
    code = answer.get("code", answer.get("StatusCode")) if isinstance(answer, dict) else None
    if response.status_code != 200 or code != 0:
        message = answer.get("msg") or answer.get("StatusMessage") if isinstance(answer, dict) else None
        raise DeliveryError(f"{where} answered {response.status_code}, code {code}: {message or answer_text(response)}")
    return f"{len(body)} bytes"
