"""DNS-rebinding protection for `mcp --http` on any address.

A web page the user opens can make the browser send requests to any address, and DNS rebinding
lets it name the server with a domain of its own: only the Host and Origin headers give it away.
The MCP SDK checks them when it is told to, and tells itself to only for a loopback address;
bound to another address (`--host 0.0.0.0`) it would answer any Host. So the allowed names are
always given: loopback, the address bound, this machine's names and addresses when bound to all of
them, and whatever `--allow-host` adds (a name a proxy or a DNS record gives the machine).
"""

from __future__ import annotations

import socket
from collections.abc import Iterable

from mcp.server.transport_security import TransportSecuritySettings

LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def allowed_names(host: str, extra: Iterable[str] = ()) -> list[str]:
    """The host names a request to this server may carry (without port), sorted."""
    names = {*LOOPBACK, host, *extra}
    if host in WILDCARDS:
        names |= machine_names()
    return sorted(name for name in names if name and name not in WILDCARDS)


def machine_names() -> set[str]:
    """This machine's host name, its fully qualified name and the addresses they resolve to."""
    found = {socket.gethostname(), socket.getfqdn()}
    for name in list(found):
        try:
            found |= {info[4][0] for info in socket.getaddrinfo(name, None)}
        except OSError:  # a host name that does not resolve adds nothing
            continue
    return {name for name in found if name}


def transport_security(host: str, extra: Iterable[str] = ()) -> TransportSecuritySettings:
    """Host and Origin checks for a server bound to `host`: each allowed name with any port or
    none, as `http` and `https` origins."""
    spelled = [f"[{name}]" if ":" in name else name for name in allowed_names(host, extra)]
    hosts = [form for name in spelled for form in (name, f"{name}:*")]
    origins = [f"{scheme}://{form}" for scheme in ("http", "https") for form in hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)
