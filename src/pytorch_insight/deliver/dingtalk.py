"""DingTalk robot: a markdown message. With the robot's signing secret the URL also carries
`timestamp` (milliseconds) and `sign` = URL-encoded Base64(HMAC-SHA256(key = secret, message =
timestamp + "\\n" + secret)), as DingTalk documents it. DingTalk answers HTTP 200 with `errcode` 0,
or a non-zero `errcode` (a bad signature, a keyword or IP rule, a flood limit) and its `errmsg`."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from typing import Any

from pytorch_insight.deliver.job import DeliveryError, Job, joined, largest_fitting
from pytorch_insight.deliver.message import Digest, Entry, Paragraph
from pytorch_insight.deliver.post import answer_text, host_of, post

# DingTalk asks for short robot messages; its markdown text is kept under 20,000 bytes.
BODY_LIMIT = 20_000
MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#~|])")
URL_ESCAPES = str.maketrans({char: f"%{ord(char):02X}" for char in "()<> "})


def sign(timestamp: int, secret: str) -> str:
    """The signature, Base64-encoded; the query string encoding URL-encodes it."""
    digest = hmac.new(secret.encode(), f"{timestamp}\n{secret}".encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def escape(text: str) -> str:
    return MD_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def paragraph(part: Paragraph, lang: str) -> str:
    """A paragraph in DingTalk markdown: the lead-in bold, the text escaped."""
    if not part.lead:
        return escape(part.text)
    return f"**{escape(part.lead)}**{'：' if lang == 'zh' else ': '}{escape(part.text)}"


def entry_line(entry: Entry) -> str:
    ref = f"[{escape(entry.ref)}]({entry.url.translate(URL_ESCAPES)})" if entry.url else escape(entry.ref)
    line = f"- {entry.label} **{ref}** {escape(entry.title)}"
    return f"{line}  \n  {escape(entry.line)}" if entry.line else line


def markdown(digest: Digest) -> dict[str, Any]:
    items = "\n".join(entry_line(entry) for entry in digest.entries)
    footer = [escape(digest.word("more", count=digest.omitted))] if digest.omitted else []
    if digest.link:
        footer.append(f"[{digest.word('full')}]({digest.link.translate(URL_ESCAPES)})")
    text = joined(
        (
            f"### {escape(digest.heading)}",
            escape(digest.totals),
            # one block per paragraph: a blank line between them, as markdown needs
            "\n\n".join(paragraph(part, digest.lang) for part in digest.overview),
            f"**{digest.word('top')}**\n\n{items}" if items else "",
            " · ".join(footer),
        )
    )
    # The title is what the chat list and notifications show.
    return {"msgtype": "markdown", "markdown": {"title": digest.heading, "text": text}}


def send(job: Job) -> str:
    params: dict[str, str] = {}
    if job.credentials.secret:
        timestamp = int(job.clock.now() * 1000)
        params = {"timestamp": str(timestamp), "sign": sign(timestamp, job.credentials.secret)}
    body = largest_fitting(
        job.digest,
        lambda digest: json.dumps(markdown(digest), ensure_ascii=False).encode(),
        lambda data: len(data) <= BODY_LIMIT,
    )
    response = post(job.url, body, job.http, params=params, clock=job.clock)
    where = f"DingTalk ({host_of(job.url)})"
    try:
        answer = response.json()
    except ValueError:
        raise DeliveryError(f"{where} answered {response.status_code}: {answer_text(response) or 'no text'}") from None
    code = answer.get("errcode") if isinstance(answer, dict) else None
    if response.status_code != 200 or code != 0:
        message = answer.get("errmsg") if isinstance(answer, dict) else None
        raise DeliveryError(
            f"{where} answered {response.status_code}, errcode {code}: {message or answer_text(response)}"
        )
    return f"{len(body)} bytes"
