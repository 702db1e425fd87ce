"""Local webhooks that behave as the platforms document theirs: Slack's incoming webhook, a
Feishu (Lark) custom bot, a DingTalk robot and a generic receiver of signed JSON. Each checks the
URL's token, the signature exactly as its platform defines it (computed here independently of
the code under test), the payload's shape and the platform's size limits, answers the way the
platform does (Slack: `ok` or an error word with 4xx; Feishu and DingTalk: HTTP 200 with a code),
and keeps what it accepted."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Any
from urllib.parse import parse_qs

from tests.fakes.server import LocalServer, Reply

SIGNATURE_WINDOW_S = 3600  # Feishu and DingTalk: the timestamp must be within an hour


class WebhookServer(LocalServer):
    def __init__(self) -> None:
        super().__init__()
        self.accepted: list[Any] = []
        self.rejected: list[str] = []

    def answer(self, path: str, query: dict[str, list[str]], headers: Any) -> Reply:
        return Reply.json(405, {"error": "method not allowed"})

    def handler_class(self) -> type:
        """As LocalServer's, but the POST answer also sees the query string (DingTalk signs there)."""
        owner = self
        base = super().handler_class()

        class Handler(base):  # type: ignore[misc, valid-type]
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                path, _, query = self.path.partition("?")
                self.respond(lambda: owner.receive(path, parse_qs(query), self.headers, body))

        return Handler

    def receive(self, path: str, query: dict[str, list[str]], headers: Any, body: bytes) -> Reply:
        raise NotImplementedError

    def reject(self, reply: Reply, why: str) -> Reply:
        self.rejected.append(why)
        return reply


def _json(body: bytes) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


class FakeSlackWebhook(WebhookServer):
    """POST /services/T…/B…/<token>: Block Kit as Slack validates it (a header's plain text up to
    150 characters, a section's text up to 3,000, at most 50 blocks, `text` up to 40,000)."""

    def __init__(self, token: str = "XXXXsecretSLACKtoken") -> None:
        super().__init__()
        self.path = f"/services/T0001/B0001/{token}"

    @property
    def hook_url(self) -> str:
        return self.url + self.path

    def receive(self, path: str, query: dict[str, list[str]], headers: Any, body: bytes) -> Reply:
        if path != self.path:
            return self.reject(Reply(404, b"no_service"), "unknown hook")
        message = _json(body)
        if not isinstance(message, dict):
            return self.reject(Reply(400, b"invalid_payload"), "not JSON")
        if not message.get("text") and not message.get("blocks"):
            return self.reject(Reply(400, b"no_text"), "no text")
        if len(message.get("text") or "") > 40_000 or not self._blocks_valid(message.get("blocks", [])):
            return self.reject(Reply(400, b"invalid_blocks"), "blocks")
        self.accepted.append(message)
        return Reply(200, b"ok", {"Content-Type": "text/html"})

    @staticmethod
    def _blocks_valid(blocks: Any) -> bool:
        if not isinstance(blocks, list) or len(blocks) > 50:
            return False
        for block in blocks:
            kind = block.get("type")
            if kind == "header":
                text = block["text"]
                if text.get("type") != "plain_text" or not 0 < len(text.get("text", "")) <= 150:
                    return False
            elif kind == "section":
                text = block["text"]
                if text.get("type") not in ("mrkdwn", "plain_text") or not 0 < len(text.get("text", "")) <= 3000:
                    return False
            elif kind == "context":
                elements = block.get("elements") or []
                if not 0 < len(elements) <= 10 or any(len(e.get("text", "")) > 3000 for e in elements):
                    return False
            elif kind != "divider":
                return False
        return True


class FakeFeishuBot(WebhookServer):
    """POST /open-apis/bot/v2/hook/<token>: with a signing secret, `timestamp` (seconds) and `sign`
    = Base64(HMAC-SHA256(key = timestamp + "\\n" + secret, message = nothing)) in the body; the body
    at most 20 KB; an interactive card needs a header and elements."""

    def __init__(self, secret: str | None, token: str = "feishu-hook-token-0001") -> None:
        super().__init__()
        self.secret = secret
        self.path = f"/open-apis/bot/v2/hook/{token}"

    @property
    def hook_url(self) -> str:
        return self.url + self.path

    def receive(self, path: str, query: dict[str, list[str]], headers: Any, body: bytes) -> Reply:
        if path != self.path:
            return self.reject(
                Reply.json(
                    200, {"code": 19001, "msg": "param invalid: incoming webhook access token invalid", "data": {}}
                ),
                "token",
            )
        if len(body) > 20 * 1024:
            return self.reject(Reply.json(200, {"code": 9499, "msg": "Bad Request", "data": {}}), "size")
        message = _json(body)
        if not isinstance(message, dict):
            return self.reject(Reply.json(400, {"code": 9499, "msg": "Bad Request", "data": {}}), "not JSON")
        if self.secret is not None and not self._signed(message):
            return self.reject(
                Reply.json(
                    200,
                    {
                        "code": 19021,
                        "msg": "sign match fail or timestamp is not within one hour from current time",
                        "data": {},
                    },
                ),
                "signature",
            )
        card = message.get("card")
        if message.get("msg_type") != "interactive" or not isinstance(card, dict) or not card.get("elements"):
            return self.reject(Reply.json(200, {"code": 11246, "msg": "card content invalid", "data": {}}), "card")
        self.accepted.append(message)
        return Reply.json(200, {"code": 0, "msg": "success", "data": {}})

    def _signed(self, message: dict[str, Any]) -> bool:
        timestamp = message.get("timestamp")
        if not isinstance(timestamp, str) or not timestamp.isdigit():
            return False
        if abs(time.time() - int(timestamp)) > SIGNATURE_WINDOW_S:
            return False
        key = f"{timestamp}\n{self.secret}".encode("utf-8")
        expected = base64.b64encode(hmac.new(key, digestmod=hashlib.sha256).digest()).decode()
        return hmac.compare_digest(expected, str(message.get("sign", "")))


class FakeDingTalkRobot(WebhookServer):
    """POST /robot/send?access_token=…[&timestamp=<ms>&sign=…]: sign = URL-encoded
    Base64(HMAC-SHA256(key = secret, message = timestamp + "\\n" + secret)); a markdown message
    needs a title and a text; the body is kept under 20,000 bytes."""

    def __init__(self, secret: str | None, token: str = "dingtalkaccesstoken0001") -> None:
        super().__init__()
        self.secret, self.token = secret, token

    @property
    def hook_url(self) -> str:
        return f"{self.url}/robot/send?access_token={self.token}"

    def receive(self, path: str, query: dict[str, list[str]], headers: Any, body: bytes) -> Reply:
        arg = {key: values[-1] for key, values in query.items()}
        if path != "/robot/send" or arg.get("access_token") != self.token:
            return self.reject(Reply.json(200, {"errcode": 300001, "errmsg": "token is not exist"}), "token")
        if self.secret is not None and not self._signed(arg):
            return self.reject(Reply.json(200, {"errcode": 310000, "errmsg": "sign not match"}), "signature")
        if len(body) > 20_000:
            return self.reject(Reply.json(200, {"errcode": 460101, "errmsg": "message too long"}), "size")
        message = _json(body)
        markdown = message.get("markdown") if isinstance(message, dict) else None
        if not isinstance(markdown, dict) or message.get("msgtype") != "markdown":
            return self.reject(Reply.json(200, {"errcode": 40035, "errmsg": "missing parameter"}), "shape")
        if not markdown.get("title") or not markdown.get("text"):
            return self.reject(Reply.json(200, {"errcode": 40035, "errmsg": "missing parameter"}), "shape")
        self.accepted.append(message)
        return Reply.json(200, {"errcode": 0, "errmsg": "ok"})

    def _signed(self, arg: dict[str, str]) -> bool:
        timestamp, sign = arg.get("timestamp", ""), arg.get("sign", "")
        if not timestamp.isdigit() or abs(time.time() * 1000 - int(timestamp)) > SIGNATURE_WINDOW_S * 1000:
            return False
        # parse_qs already undid the URL encoding: `sign` is the Base64 text again.
        assert self.secret is not None
        digest = hmac.new(self.secret.encode(), f"{timestamp}\n{self.secret}".encode(), hashlib.sha256).digest()
        return hmac.compare_digest(base64.b64encode(digest).decode(), sign)


class FakeReceiver(WebhookServer):
    """POST /hooks/insight: the body must carry `X-Insight-Signature-256: sha256=<hex HMAC-SHA256(secret,
    body)>` (401 otherwise) and be a JSON object."""

    def __init__(self, secret: str | None) -> None:
        super().__init__()
        self.secret = secret

    @property
    def hook_url(self) -> str:
        return self.url + "/hooks/insight"

    def receive(self, path: str, query: dict[str, list[str]], headers: Any, body: bytes) -> Reply:
        if path != "/hooks/insight":
            return self.reject(Reply.json(404, {"error": "not found"}), "path")
        if self.secret is not None:
            expected = "sha256=" + hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(expected, headers.get("X-Insight-Signature-256", "")):
                return self.reject(Reply.json(401, {"error": "bad signature"}), "signature")
        document = _json(body)
        if not isinstance(document, dict):
            return self.reject(Reply.json(400, {"error": "not a JSON object"}), "shape")
        self.accepted.append(document)
        return Reply(204, b"")
