"""A local OpenAI-compatible server that plays queued answers: valid, invalid or truncated JSON,
hallucinations, echoed injections, 429 with Retry-After, 500, a timeout."""

from __future__ import annotations

import json
import time
from collections import deque
from typing import Any

from tests.fakes.server import LocalServer, Reply


def completion(content: str, finish: str = "stop", prompt_tokens: int = 100, completion_tokens: int = 50) -> Reply:
    return Reply.json(
        200,
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "test-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        },
    )


def answer(**fields: str) -> Reply:
    return completion(json.dumps(fields))


class FakeOpenAI(LocalServer):
    """POST /v1/chat/completions answers with the next queued reply (a valid empty answer when none is left)."""

    def __init__(self) -> None:
        super().__init__()
        self.queue: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []

    def play(self, *replies: Reply) -> None:
        self.queue.extend(replies)

    def answer(self, path: str, query: dict[str, list[str]], headers: Any) -> Reply:
        return Reply.json(404, {"error": {"message": "not found"}})

    def answer_post(self, path: str, headers: Any, body: bytes) -> Reply:
        if path != "/v1/chat/completions":
            return Reply.json(404, {"error": {"message": f"no route {path}"}})
        self.requests.append(json.loads(body))
        return self.queue.popleft() if self.queue else answer()
