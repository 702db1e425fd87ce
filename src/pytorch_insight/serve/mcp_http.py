"""`mcp --http`: the MCP server over streamable HTTP, guarded.

Anyone who can reach the port can read the whole store, so:
- a bearer token (`PYTORCH_INSIGHT_MCP_TOKEN`) is required on every request when it is set, and
  must be set to listen anywhere but on loopback;
- the Host and Origin headers are checked on every address (the SDK checks them only when bound
  to localhost): a web page the user opens cannot reach the server through a name it controls
  (DNS rebinding), and a browser page of another origin is refused even on loopback."""

from __future__ import annotations

import hmac
import ipaddress
import json
import socket
import sys
from collections.abc import Iterable

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Receive, Scope, Send

from pytorch_insight.errors import ConfigError, InsightError

HTTP_PATH = "/mcp"
TOKEN_VARIABLE = "PYTORCH_INSIGHT_MCP_TOKEN"
WILDCARDS = ("0.0.0.0", "::", "")
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_names(host: str, extra: Iterable[str]) -> list[str]:
    """The names a client may use in its Host header: loopback's, the bound address, and, bound
    to every address, this machine's names; plus those given with --allow-host."""
    names = list(LOOPBACK_NAMES)
    if host not in WILDCARDS:
        names.append(f"[{host}]" if ":" in host else host)
    if host in WILDCARDS or not is_loopback(host):
        names += [socket.gethostname(), socket.getfqdn()]
    names += [name.strip() for name in extra if name.strip()]
    return list(dict.fromkeys(names))


def transport_security(host: str, port: int, extra: Iterable[str]) -> TransportSecuritySettings:
    names = host_names(host, extra)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{name}:{port}" for name in names],
        allowed_origins=[f"{scheme}://{name}:{port}" for name in names for scheme in ("http", "https")],
    )


class BearerToken:
    """Refuses every HTTP request without `Authorization: Bearer <token>` (401, compared in
    constant time); the server's start-up and shut-down (lifespan) pass."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps({"error": "unauthorized: send Authorization: Bearer <token>"}).encode()
                headers = [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="pytorch-insight"'),
                    (b"content-length", str(len(body)).encode()),
                ]
                await send({"type": "http.response.start", "status": 401, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def serve_http(
    server: MCPServer,
    port: int,
    host: str,
    *,
    quiet: bool = False,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
) -> None:
    if not token and not is_loopback(host):
        raise ConfigError(
            f"mcp --http on {host} serves the whole store to the network: set {TOKEN_VARIABLE} "
            "(clients then send Authorization: Bearer <token>), or listen on 127.0.0.1"
        )
    # Run by hand rather than `server.run`, which cannot turn off uvicorn's access log (it goes to
    # stdout, where this tool writes only results), and on a socket bound here, so a busy port is
    # one line of error rather than uvicorn's log of a failed startup.
    try:
        listening = socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as exc:
        raise InsightError(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=HTTP_PATH, host=host, transport_security=transport_security(host, port, allowed_hosts)
    )
    if token:
        app = BearerToken(app, token)
    config = uvicorn.Config(app, log_level="warning" if quiet else "info", access_log=False)
    if not quiet:
        where = f"[{host}]" if ":" in host else host
        guard = "bearer token required" if token else "loopback only, no token"
        print(f"serving MCP at http://{where}:{port}{HTTP_PATH} ({guard}; Ctrl-C stops)", file=sys.stderr, flush=True)
    with listening:
        uvicorn.Server(config).run(sockets=[listening])
