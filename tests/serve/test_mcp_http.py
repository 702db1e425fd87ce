"""`pytorch-insight mcp --http PORT` as a real process on 127.0.0.1, driven by the MCP SDK's
streamable-HTTP client; stdout stays empty (no access log), Ctrl-C stops it cleanly, and a busy
port is one line of error."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp.client import Client

from tests.serve.conftest import report_document
from tests.serve.test_mcp_stdio import TOOLS, call, server_parameters

STARTUP_S = 60


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(db: str, tmp_path: Path, port: int) -> subprocess.Popen[str]:
    parameters = server_parameters(db, tmp_path)
    return subprocess.Popen(
        [sys.executable, *parameters.args, "--http", str(port)],
        env=os.environ | (parameters.env or {}),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def http_server(insight_db: str, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    port = free_port()
    process = start(insight_db, tmp_path, port)
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + STARTUP_S
        line = ""
        while "serving MCP at" not in line and time.monotonic() < deadline and process.poll() is None:
            line = process.stderr.readline()
        assert "serving MCP at" in line, f"the server did not start: {line!r}"
        yield process, f"http://127.0.0.1:{port}/mcp"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_streamable_http_answers_like_the_report(
    http_server: tuple[subprocess.Popen[str], str],
    insight_db: str,
    latest_week: tuple[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    process, url = http_server
    since, until = latest_week
    expected = report_document(insight_db, since, until, capsys)

    async def scenario() -> None:
        async with Client(url) as client:
            assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
            high = await call(client, "search_items", priority="high", page_size=50)
            assert [row["id"] for row in high["items"]] == [
                r["id"] for r in expected["items"] if r["priority"] == "high"
            ]
            report = await call(client, "get_report")
            assert report["window"] == {"since": since, "until": until}
            assert [entry["id"] for entry in report["focus"]] == [entry["id"] for entry in expected["focus"]]
            bad = await client.call_tool("get_report", {"until": "2026-04-31"})
            assert bad.is_error and "until must be a date" in bad.content[0].text

    anyio.run(scenario)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0 and out == "" and "Traceback" not in err


def test_a_busy_port_is_one_line_of_error(insight_db: str, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        process = start(insight_db, tmp_path, taken.getsockname()[1])
        out, err = process.communicate(timeout=STARTUP_S)
    assert process.returncode == 1 and out == ""
    assert err.startswith("error: cannot listen on 127.0.0.1 port") and err.count("\n") == 1, err
