"""A local Slack Web API: conversations.history / conversations.replies (cursor paging),
users.info, Bearer auth, and Slack's error shape (HTTP 200 with ``ok: false``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.fakes.server import LocalServer, Reply


@dataclass
class Message:
    ts: str
    user: str
    text: str
    replies: list[Message] = field(default_factory=list)
    subtype: str | None = None


class FakeSlack(LocalServer):
    def __init__(self, channels: dict[str, list[Message]], users: dict[str, str], token: str, page: int = 100) -> None:
        super().__init__()
        self.channels, self.users, self.token, self.page = channels, users, token, page

    def answer(self, path: str, query: dict[str, list[str]], headers: Any) -> Reply:
        if headers.get("Authorization") != f"Bearer {self.token}":
            return Reply.json(200, {"ok": False, "error": "invalid_auth"})
        arg = {key: values[-1] for key, values in query.items()}
        if path == "/users.info":
            if arg.get("user") not in self.users:
                return Reply.json(200, {"ok": False, "error": "user_not_found"})
            name = self.users[arg["user"]]
            return Reply.json(
                200,
                {
                    "ok": True,
                    "user": {
                        "id": arg["user"],
                        "name": name,
                        "deleted": False,
                        "is_bot": False,
                        "profile": {"display_name": name, "real_name": name},
                    },
                },
            )
        if arg.get("channel") not in self.channels:
            return Reply.json(200, {"ok": False, "error": "channel_not_found"})
        messages = self.channels[arg["channel"]]
        if path == "/conversations.history":
            oldest, latest = float(arg.get("oldest", 0)), float(arg.get("latest", 9e12))
            chosen = sorted((m for m in messages if oldest <= float(m.ts) <= latest), key=lambda m: m.ts, reverse=True)
            return self._paged(chosen, arg)
        if path == "/conversations.replies":
            parent = next((m for m in messages if m.ts == arg.get("ts")), None)
            if parent is None:
                return Reply.json(200, {"ok": False, "error": "thread_not_found"})
            return self._paged([parent, *parent.replies], arg, thread=parent.ts)
        return Reply.json(404, {"ok": False, "error": "unknown_method"})

    def _paged(self, messages: list[Message], arg: dict[str, str], thread: str | None = None) -> Reply:
        start = int(arg.get("cursor") or 0)
        size = min(int(arg.get("limit", self.page)), self.page)
        chunk = messages[start : start + size]
        more = start + size < len(messages)
        body = {
            "ok": True,
            "messages": [self._message(m, thread) for m in chunk],
            "has_more": more,
            "pin_count": 0,
            "response_metadata": {"next_cursor": str(start + size) if more else ""},
        }
        return Reply.json(200, body)

    @staticmethod
    def _message(message: Message, thread: str | None) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "message", "ts": message.ts, "text": message.text}
        data.update({"user": message.user} if message.user else {"subtype": "bot_message", "bot_id": "B0001"})
        if message.subtype:
            data["subtype"] = message.subtype
        if message.replies:
            data.update(
                thread_ts=message.ts,
                reply_count=len(message.replies),
                reply_users_count=len({r.user for r in message.replies}),
                latest_reply=message.replies[-1].ts,
            )
        elif thread:
            data["thread_ts"] = thread
        return data
