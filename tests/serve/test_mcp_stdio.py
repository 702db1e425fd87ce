"""`pytorch-insight mcp` as a real process, driven by the MCP SDK's own client over stdio: the
tools and resources it lists, and each tool's answers checked against the store and against the
`report` command's JSON document of the same window."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

import pytorch_insight
from pytorch_insight.store import Store
from pytorch_insight.window import make_window
from tests.serve.conftest import BOUNDS_COMMENTS, BOUNDS_ID, TOKEN, report_document

SOURCE_ROOT = str(Path(pytorch_insight.__file__).resolve().parents[1])
TOOLS = {"search_items", "get_item", "get_report", "key_contributors", "source_coverage"}


def server_parameters(db: str, tmp_path: Path) -> StdioServerParameters:
    """The command under test (wherever the installed package points), with a private home."""
    env = {
        "PYTHONPATH": os.pathsep.join(filter(None, [SOURCE_ROOT, os.environ.get("PYTHONPATH")])),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    args = ["-m", "pytorch_insight", "mcp", "--db", db, "--lang", "en"]
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(tmp_path))


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    # The structured result and its text rendering say the same.
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def every_page(client: Client, **arguments: Any) -> list[dict[str, Any]]:
    rows, page = [], 1
    while page is not None:
        answer = await call(client, "search_items", page=page, page_size=50, **arguments)
        rows += answer["items"]
        page = answer["next_page"]
    return rows


def test_stdio_lists_and_answers_every_tool_as_the_report_and_store_say(
    insight_db: str, latest_week: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    since, until = latest_week
    expected = report_document(insight_db, since, until, capsys)
    window = {"since": since, "until": until}
    rows = expected["items"]
    store = Store.open(insight_db, readonly=True)
    stored = {item.id: item for item in store.items_in_window(make_window(since, until))}

    async def scenario() -> None:
        async with Client(server_parameters(insight_db, tmp_path)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            assert all(
                tool.annotations.read_only_hint and not tool.annotations.destructive_hint for tool in tools.values()
            )
            assert "compiler" in json.dumps(tools["search_items"].input_schema)  # the profile's areas are named

            # search_items: every item of the window, in the report's order, with its judgement
            everything = await every_page(client)
            assert [row["id"] for row in everything] == [row["id"] for row in rows]
            judged = {row["id"]: (row["priority"], row["areas"], row["rank"]) for row in rows}
            assert {row["id"]: (row["priority"], row["areas"], row["rank"]) for row in everything} == judged
            first = await call(client, "search_items", page_size=5)
            assert first["window"] == window and first["total"] == len(rows) and len(first["items"]) == 5

            for filters, keep in (
                ({"priority": "high"}, lambda row: row["priority"] == "high"),
                ({"area": "compiler"}, lambda row: "compiler" in row["areas"]),
                ({"kind": "pull_request"}, lambda row: row["kind"] == "pull_request"),
                ({"author": rows[0]["author"]}, lambda row: row["author"] == rows[0]["author"]),
                (
                    {"text": "Inductor"},
                    lambda row: (
                        "inductor" in f"{row['title']}\n{stored[row['id']].body or ''}".casefold()
                        or any("inductor" in label.casefold() for label in stored[row["id"]].labels)
                    ),
                ),
            ):
                found = [row["id"] for row in await every_page(client, since=since, until=until, **filters)]
                wanted = [row["id"] for row in rows if keep(row)]
                assert found == wanted and found, filters

            # get_item: the stored item, and the report's assessment, analysis and evidence of it
            lead = expected["focus"][0]
            item = await call(client, "get_item", item=lead["id"])
            assert item["in_window"] and item["item"]["title"] == stored[lead["id"]].title
            assert item["comments"]["total"] == len(stored[lead["id"]].comments)
            row = next(row for row in rows if row["id"] == lead["id"])
            assert item["assessment"]["priority"] == row["priority"] and item["assessment"]["reasons"] == row["reasons"]
            assert item["focus"]["analysis"] == lead["analysis"] and item["focus"]["action"] == lead["action"]
            assert item["focus"]["evidence"] == lead["evidence"][:50]
            assert {r["target"] for r in item["relations"]} == {r["target"] for r in row["relations"]}

            bounded = await call(client, "get_item", item="#999001")
            assert bounded["item"]["id"] == BOUNDS_ID and TOKEN not in json.dumps(bounded)
            assert "[redacted]" in bounded["item"]["body"] and bounded["item"]["body"].endswith("more characters]")
            assert bounded["comments"]["total"] == BOUNDS_COMMENTS and bounded["comments"]["next_page"] == 2

            # get_report: the report without its per-item lists
            report = await call(client, "get_report", since=since, until=until)
            assert [entry["id"] for entry in report["focus"]] == [entry["id"] for entry in expected["focus"]]
            assert report["overview"] == expected["overview"] and report["stats"] == expected["stats"]
            assert report["items_total"] == len(rows) and "items" not in report
            # with the follow-up of the week before, as the report command writes it
            assert report["follow_up"] == expected["follow_up"] and expected["follow_up"]["items"]

            people = await call(client, "key_contributors", page_size=50)
            assert [p["login"] for p in people["contributors"]] == [p["login"] for p in expected["contributors"]]
            assert [t["id"] for t in people["teams"]] == [t["id"] for t in expected["teams"]]

            coverage = await call(client, "source_coverage")
            assert coverage["sources"] == [
                s.model_dump(mode="json") for s in store.latest_statuses(make_window(since, until))
            ]
            assert coverage["sources"][0]["note"] == "rate limited"
            assert coverage["areas"] == expected["coverage"]["areas"] and coverage["funnel"] == expected["stats"]

            # a bad argument is a tool error of one line, and the server goes on answering
            bad = await client.call_tool("search_items", {"since": "2026-02-30"})
            assert bad.is_error and "since must be a date" in bad.content[0].text
            assert "\n" not in bad.content[0].text
            assert (await call(client, "source_coverage"))["window"] == window

            # resources: the latest report, which is the window above
            uris = {str(resource.uri) for resource in (await client.list_resources()).resources}
            assert uris == {"insight://reports/latest.json", "insight://reports/latest.md"}
            latest = json.loads((await client.read_resource("insight://reports/latest.json")).contents[0].text)
            assert latest["window"] == window and latest["focus"] == report["focus"]
            markdown = (await client.read_resource("insight://reports/latest.md")).contents[0].text
            assert markdown.startswith("# ") and lead["title"] in markdown
            # the follow-up's first item, linked (its reference is escaped in Markdown, its address is not)
            assert "### Since last week" in markdown and f"]({expected['follow_up']['items'][0]['url']})" in markdown

    anyio.run(scenario)
