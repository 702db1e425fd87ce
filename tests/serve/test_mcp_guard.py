"""MCP's arguments and its HTTP door, through the SDK's own client and real processes: unknown
arguments are refused, a wrongly typed one is one line of error, the schema carries the allowed
values and limits; `mcp --http` takes a bearer token, needs one off loopback, and checks Host and
Origin on any address."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.client import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from tests.serve.test_mcp_http import STARTUP_S, free_port
from tests.serve.test_mcp_stdio import server_parameters

TOKEN = "s3cret-" + "x" * 24
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def test_arguments_are_strict_and_their_errors_one_line(insight_db: str, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with Client(server_parameters(insight_db, tmp_path)) as client:
            tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
            search = tools["search_items"]
            assert all(schema.get("additionalProperties") is False for schema in tools.values())
            properties = search["properties"]
            kinds = next(option for option in properties["kind"]["anyOf"] if "enum" in option)["enum"]
            assert "issue" in kinds and "pull_request" in kinds
            priorities = next(option for option in properties["priority"]["anyOf"] if "enum" in option)["enum"]
            assert set(priorities) == {"high", "medium", "low"}
            assert (properties["page_size"]["minimum"], properties["page_size"]["maximum"]) == (1, 50)
            assert (
                properties["page"]["minimum"] == 1 and tools["get_item"]["properties"]["comment_page"]["minimum"] == 1
            )

            for arguments, fragment in (
                ({"priorty": "high"}, "unknown argument 'priorty'"),
                ({"page_size": "many"}, "bad argument 'page_size'"),
                ({"page_size": 500}, "bad argument 'page_size'"),
                ({"kind": "tweet"}, "bad argument 'kind'"),
            ):
                result = await client.call_tool("search_items", arguments)
                text = result.content[0].text
                assert result.is_error and fragment in text, (arguments, text)
                assert "\n" not in text and "https://" not in text, text
            assert not (await client.call_tool("search_items", {"page_size": 5})).is_error  # still answering

    anyio.run(scenario)


def start(db: str, tmp_path: Path, port: int, *args: str, token: str | None = None) -> subprocess.Popen[str]:
    parameters = server_parameters(db, tmp_path)
    env = os.environ | (parameters.env or {})
    env.pop("PYTORCH_INSIGHT_MCP_TOKEN", None)
    if token:
        env["PYTORCH_INSIGHT_MCP_TOKEN"] = token
    return subprocess.Popen(
        [sys.executable, *parameters.args, "--http", str(port), *args],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def guarded(insight_db: str, tmp_path: Path) -> Iterator[int]:
    """A server on every address, with a token."""
    port = free_port()
    process = start(insight_db, tmp_path, port, "--host", "0.0.0.0", token=TOKEN)
    try:
        assert process.stderr is not None
        deadline, line = time.monotonic() + STARTUP_S, ""
        while "serving MCP at" not in line and time.monotonic() < deadline and process.poll() is None:
            line = process.stderr.readline()
        assert "serving MCP at" in line and TOKEN not in line, line
        yield port
    finally:
        process.kill()
        process.wait()


def post(port: int, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, headers=ACCEPT | headers, timeout=30)


def test_http_off_loopback_needs_a_token(insight_db: str, tmp_path: Path) -> None:
    process = start(insight_db, tmp_path, free_port(), "--host", "0.0.0.0")
    out, err = process.communicate(timeout=STARTUP_S)
    assert process.returncode == 2 and out == ""
    assert err.startswith("error: mcp --http on 0.0.0.0") and "PYTORCH_INSIGHT_MCP_TOKEN" in err
    assert err.count("\n") == 1, err


def test_http_takes_the_bearer_token_and_checks_host_and_origin(guarded: int) -> None:
    port = guarded
    assert post(port, {}).status_code == 401
    assert post(port, {"authorization": "Bearer wrong"}).status_code == 401
    bearer = {"authorization": f"Bearer {TOKEN}"}
    assert post(port, bearer).status_code == 200
    # The token does not make a foreign name or a foreign page acceptable (DNS rebinding).
    assert post(port, bearer | {"host": f"attacker.example:{port}"}).status_code in (400, 403, 421)
    assert post(port, bearer | {"origin": "http://attacker.example"}).status_code in (400, 403)

    async def scenario() -> dict[str, Any]:
        transport = streamable_http_client(
            f"http://127.0.0.1:{port}/mcp", http_client=create_mcp_http_client(headers=bearer)
        )
        async with Client(transport) as client:
            result = await client.call_tool("get_report", {})
            assert not result.is_error, result.content
            return result.structured_content

    assert anyio.run(scenario)["focus"]
