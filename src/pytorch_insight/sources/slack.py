"""Slack channels of the profile: messages of the window and their threads, users resolved to
names. Only with SLACK_TOKEN; without it the source is skipped and says so."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from pytorch_insight.config import SlackConfig
from pytorch_insight.errors import RateLimited, RemoteError
from pytorch_insight.http import HttpClient, RequestStats, Unreachable
from pytorch_insight.model import Comment, CoverageStatus, Item, SourceStatus
from pytorch_insight.sources import (
    MALFORMED,
    Emit,
    Progress,
    finished,
    malformed_reason,
    skipped_note,
    unreachable_note,
)
from pytorch_insight.window import Window

PAGE = 200
SKIPPED_SUBTYPES = {"channel_join", "channel_leave", "channel_topic", "channel_purpose", "channel_name"}
AUTH_ERRORS = {"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"}


class SlackError(RemoteError):
    """Slack answered 200 with ``{"ok": false, "error": ...}``."""


def _time(ts: str) -> str:
    """Slack's ``ts`` is seconds plus a per-channel sequence number, not microseconds."""
    moment = datetime.fromtimestamp(int(float(ts)), tz=timezone.utc)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


class SlackSource:
    name = "slack"

    def __init__(self, client: HttpClient | None, config: SlackConfig) -> None:
        self.client = client
        self.config = config
        self.users: dict[str, str] = {}
        self.skipped: list[str] = []  # messages that do not fit an item (a ts that is no time)

    def fetch(self, window: Window, emit: Emit, progress: Progress) -> SourceStatus:
        if self.client is None:
            return SourceStatus(name=self.name, status=CoverageStatus.SKIPPED, note="skipped: no SLACK_TOKEN")
        if not self.config.channels:
            return SourceStatus(
                name=self.name, status=CoverageStatus.SKIPPED, note="skipped: no channels in the profile"
            )
        stats, notes, stored, paused = RequestStats(), [], 0, False
        self.skipped = []
        for channel in self.config.channels:
            try:
                for item in self._channel(stats, channel, window):
                    emit([item])
                    stored += 1
                    progress.update(self.name, f"#{channel}", stored)
            except SlackError as exc:
                if str(exc) in AUTH_ERRORS:
                    return SourceStatus(
                        name=self.name,
                        status=CoverageStatus.FAILED,
                        items=stored,
                        requests=stats.requests,
                        note=f"Slack rejected SLACK_TOKEN ({exc})",
                    )
                notes.append(f"#{channel}: {exc}")
            except Unreachable as exc:  # no network: the other channels would fail the same way
                return finished(self.name, stats, stored, [*notes, unreachable_note(exc, "SLACK_API_URL")])
            except RemoteError as exc:  # rate limits included: the other channels still get their turn
                notes.append(f"#{channel}: {exc}")
                paused = paused or isinstance(exc, RateLimited)
        # A spent rate limit is a pause, not a failure, even before the first message.
        return finished(self.name, stats, stored, notes + skipped_note(self.skipped, "message"), paused=paused)

    def _call(self, stats: RequestStats, method: str, params: dict[str, Any]) -> dict[str, Any]:
        data = self.client.get_json(f"/{method}", stats, params=params).data if self.client else {}
        if not data.get("ok", False):
            raise SlackError(str(data.get("error") or "unknown_error"))
        return data

    def _paged(self, stats: RequestStats, method: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        cursor = ""
        while True:
            data = self._call(stats, method, {**params, "limit": PAGE, **({"cursor": cursor} if cursor else {})})
            messages.extend(data.get("messages", []))
            cursor = (data.get("response_metadata") or {}).get("next_cursor") or ""
            if not cursor:
                return messages

    def _channel(self, stats: RequestStats, channel: str, window: Window) -> list[Item]:
        oldest, latest = f"{window.start.timestamp():.6f}", f"{window.end.timestamp():.6f}"
        history = self._paged(
            stats,
            "conversations.history",
            {"channel": channel, "oldest": oldest, "latest": latest, "inclusive": "true"},
        )
        items = []
        for message in sorted(history, key=lambda m: m.get("ts", "")):
            if message.get("subtype") in SKIPPED_SUBTYPES or "ts" not in message:
                continue
            replies: list[dict[str, Any]] = []
            if message.get("reply_count"):
                thread = self._paged(stats, "conversations.replies", {"channel": channel, "ts": message["ts"]})
                replies = [reply for reply in thread if reply.get("ts") != message["ts"]]
            try:
                items.append(self._item(stats, channel, message, replies))
            except MALFORMED as exc:  # one odd message never costs the channel
                self.skipped.append(f"#{channel} {message.get('ts')} ({malformed_reason(exc)})")
        return items

    def _user(self, stats: RequestStats, user_id: str | None) -> str | None:
        if not user_id:
            return None
        if user_id not in self.users:
            try:
                user = self._call(stats, "users.info", {"user": user_id}).get("user") or {}
                profile = user.get("profile") or {}
                self.users[user_id] = profile.get("display_name") or user.get("name") or user_id
            except SlackError:
                self.users[user_id] = user_id  # a deleted or foreign user keeps its id
        return self.users[user_id]

    def _author(self, stats: RequestStats, message: dict[str, Any]) -> str | None:
        """A person's name; an integration's name marked `[bot]`, so it never counts as a contributor."""
        if message.get("bot_id") and not message.get("user"):
            return f"{message.get('username') or message['bot_id']}[bot]"
        return self._user(stats, message.get("user"))

    def _item(self, stats: RequestStats, channel: str, message: dict[str, Any], replies: list[dict[str, Any]]) -> Item:
        text = message.get("text") or ""
        ts = message["ts"]
        url = (
            f"{self.config.workspace_url.rstrip('/')}/archives/{channel}/p{ts.replace('.', '')}"
            if self.config.workspace_url
            else None
        )
        return Item(
            id=f"slack:{channel}/{ts}",
            source=self.name,
            kind="slack",
            repo=channel,
            url=url,
            title=(text.splitlines() or [""])[0][:100],
            body=text,
            author=self._author(stats, message),
            created=_time(ts),
            updated=_time(message["latest_reply"]) if message.get("latest_reply") else None,
            comments=[
                Comment(
                    id=r.get("ts"),
                    author=self._user(stats, r.get("user")),
                    date=_time(r["ts"]),
                    kind="reply",
                    body=r.get("text") or "",
                )
                for r in replies
                if "ts" in r
            ],
            comment_count=message.get("reply_count") or len(replies),
            reactions=sum(r.get("count", 0) for r in message.get("reactions") or []),
            raw={"message": message, "replies": replies},
        )
