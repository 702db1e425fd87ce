"""`mcp --http --host 0.0.0.0` keeps the DNS-rebinding protection (a foreign Host or Origin is
refused, the server's own names are answered, by the MCP SDK's client too), and get_item bounds
every list it returns (an item with 200,000 labels answers in kilobytes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client import Client

from pytorch_insight.config import load_settings
from pytorch_insight.serve.queries import LIST_LIMIT, Queries
from pytorch_insight.store import Store
from tests.pipeline.helpers import item
from tests.serve.test_mcp_http import STARTUP_S, free_port
from tests.serve.test_mcp_stdio import server_parameters

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


@pytest.fixture
def open_server(insight_db: str, tmp_path: Path) -> Iterator[int]:
    port = free_port()
    parameters = server_parameters(insight_db, tmp_path)
    process = subprocess.Popen(
        [sys.executable, *parameters.args, "--http", str(port), "--host", "0.0.0.0", "--allow-host", "insight.lan"],
        env=os.environ | (parameters.env or {}),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        deadline, line = time.monotonic() + STARTUP_S, ""
        while "serving MCP at" not in line and time.monotonic() < deadline and process.poll() is None:
            line = process.stderr.readline()
        assert "serving MCP at" in line, f"the server did not start: {line!r}"
        yield port
    finally:
        process.kill()
        process.wait()


def post(port: int, **headers: str) -> int:
    sent = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json", **headers}
    return httpx.post(f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, headers=sent, timeout=10).status_code


def test_a_server_on_every_address_refuses_foreign_hosts_and_origins(open_server: int) -> None:
    port = open_server
    assert post(port, Host=f"evil.example:{port}") == 421
    assert post(port, Host="evil.example") == 421
    assert post(port, Origin="http://evil.example") == 403
    assert post(port, Host=f"insight.lan:{port}", Origin=f"http://insight.lan:{port}") == 200
    assert post(port, Origin=f"http://localhost:{port}") == 200

    async def scenario() -> None:
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            assert (await client.list_tools()).tools

    anyio.run(scenario)


def test_get_item_bounds_its_lists(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "insight.db"))
    big = item(7, "an item with very many labels", "body", created="2026-04-08T10:00:00Z")
    store.save_items([big.model_copy(update={"labels": [f"label-{n}" for n in range(200_000)]})])
    queries = Queries(store, load_settings(db=str(tmp_path / "insight.db"), env={}).profile, lang="en")
    answer = queries.get_item("github:pytorch/pytorch#7", since="2026-04-07", until="2026-04-13")
    assert len(answer["item"]["labels"]) == LIST_LIMIT and answer["item"]["labels_total"] == 200_000
    assert len(json.dumps(answer)) < 100_000
