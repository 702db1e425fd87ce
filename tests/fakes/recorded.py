"""A local server that answers every GET with one recorded real exchange from
tests/data/api-samples/ (status, headers and body as GitHub sent them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.server import LocalServer, Reply

# Headers describing the recorded transfer, not the answer: the local server frames its own body.
TRANSFER_HEADERS = {"content-length", "transfer-encoding", "content-encoding", "connection", "status"}


def recorded_reply(path: Path) -> Reply:
    exchange = json.loads(path.read_text())
    headers = {name: value for name, value in exchange["headers"] if name.lower() not in TRANSFER_HEADERS}
    return Reply(exchange["status"], json.dumps(exchange["body"]).encode(), headers)


class RecordedServer(LocalServer):
    def __init__(self, sample: Path) -> None:
        super().__init__()
        self.reply = recorded_reply(sample)

    def answer(self, path: str, query: dict[str, list[str]], headers: Any) -> Reply:
        return self.reply
