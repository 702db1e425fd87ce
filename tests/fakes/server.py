"""A small threaded HTTP server on 127.0.0.1 for the protocol fakes."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that timed out and hung up is part of the tests, not an error worth printing."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (a slow server)

    @classmethod
    def json(cls, status: int, data: Any, **headers: str) -> Reply:
        return cls(status, json.dumps(data).encode(), {"Content-Type": "application/json; charset=utf-8", **headers})


@dataclass
class Trouble:
    """Answer the next `times` requests whose path matches `path` with `reply`."""

    path: str
    reply: Reply
    times: int = 1


class LocalServer:
    """Subclasses implement `answer(path, query, headers)`; troubles are served before it."""

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency
        self.troubles: list[Trouble] = []
        self.log: list[tuple[str, int]] = []
        self.headers_seen: list[dict[str, str]] = []
        self.lock = threading.Lock()
        self._server: QuietServer | None = None

    def answer(self, path: str, query: dict[str, list[str]], headers: Any) -> Reply:
        raise NotImplementedError

    def answer_post(self, path: str, headers: Any, body: bytes) -> Reply:
        return Reply.json(405, {"error": "method not allowed"})

    def add_trouble(self, trouble: Trouble) -> None:
        with self.lock:
            self.troubles.append(trouble)

    def _trouble(self, path: str) -> Reply | None:
        with self.lock:
            for trouble in self.troubles:
                if trouble.times > 0 and re.search(trouble.path, path):
                    trouble.times -= 1
                    return trouble.reply
        return None

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        """The request handler; the default one serves troubles, then `answer`."""
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall between headers and body

            def log_message(self, *_args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (the name http.server dispatches to)
                parts = urlsplit(self.path)
                self.respond(lambda: owner.answer(parts.path, parse_qs(parts.query), self.headers))

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.respond(lambda: owner.answer_post(urlsplit(self.path).path, self.headers, body))

            def respond(self, make: Any) -> None:
                owner.headers_seen.append(dict(self.headers.items()))
                if owner.latency:
                    time.sleep(owner.latency)
                reply = owner._trouble(urlsplit(self.path).path) or make()
                if reply.delay:
                    time.sleep(reply.delay)
                owner.log.append((self.path, reply.status))
                self.send_response(reply.status)
                for name, value in {**reply.headers, "Content-Length": str(len(reply.body))}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(reply.body)

        return Handler

    def start(self, port: int = 0) -> str:
        self._server = QuietServer(("127.0.0.1", port), self.handler_class())
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self.url

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()
