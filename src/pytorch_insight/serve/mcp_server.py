"""The store over the Model Context Protocol (the official SDK's MCPServer): read-only tools that
search a window's items and read one item, the report, its key contributors and source coverage,
and the latest report as resources. Over stdio by default, or streamable HTTP at /mcp."""

# No `from __future__ import annotations`: the SDK reads the tools' signatures, whose parameter
# descriptions name the profile's areas, from a function body.
import json
import socket
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeVar

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from pytorch_insight import __version__
from pytorch_insight.errors import InsightError
from pytorch_insight.serve.queries import KINDS, MAX_PAGE_SIZE, MAX_WINDOW_DAYS, PAGE_SIZE, PRIORITIES, Queries
from pytorch_insight.serve.rebinding import transport_security

T = TypeVar("T")
HTTP_PATH = "/mcp"
LATEST_JSON = "insight://reports/latest.json"
LATEST_MARKDOWN = "insight://reports/latest.md"
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

Since = Annotated[
    str | None,
    Field(description="First UTC day of the window, YYYY-MM-DD (default: 6 days before `until`)."),
]
Until = Annotated[
    str | None,
    Field(description="Last UTC day of the window, YYYY-MM-DD (default: the last day with stored activity)."),
]
Page = Annotated[int, Field(description="Page number, from 1.")]
PageSize = Annotated[int, Field(description=f"Rows per page, 1 to {MAX_PAGE_SIZE}.")]


def instructions(queries: Queries) -> str:
    return (
        f"Read-only access to a pytorch-insight store (profile {queries.profile.name}): a community's items "
        "(issues, pull requests, RFCs, commits, forum topics, blog posts, events, Slack threads) and the weekly "
        "report the pipeline builds from them. Every tool takes a window (`since`, `until`, UTC days, at most "
        f"{MAX_WINDOW_DAYS} days); without one it is the 7 days that end on the last day with stored activity. "
        "Areas, priorities and evidence are the pipeline's judgement for that window. Lists come in pages "
        "(`page`, `next_page`); long texts end with a '… [N more characters]' marker."
    )


def answer(call: Callable[[], T]) -> T:
    """The project's errors reach the client as the tool error's one line."""
    try:
        return call()
    except InsightError as exc:
        raise ToolError(str(exc)) from None


def build_server(queries: Queries) -> MCPServer:
    server = MCPServer(
        name="pytorch-insight",
        title="pytorch-insight",
        version=__version__,
        instructions=instructions(queries),
    )
    areas = ", ".join(area.id for area in queries.profile.areas) or "none"

    @server.tool(annotations=READ_ONLY)
    def search_items(
        since: Since = None,
        until: Until = None,
        area: Annotated[str | None, Field(description=f"A focus area: {areas} (or its name).")] = None,
        kind: Annotated[str | None, Field(description=f"One of: {', '.join(KINDS)}.")] = None,
        priority: Annotated[str | None, Field(description=f"One of: {', '.join(PRIORITIES)}.")] = None,
        author: Annotated[str | None, Field(description="An author's login.")] = None,
        text: Annotated[
            str | None, Field(description="Words that must all occur in the title, labels or description.")
        ] = None,
        page: Page = 1,
        page_size: PageSize = PAGE_SIZE,
    ) -> dict[str, Any]:
        """The window's items, best ranked first, that match every filter given: id, reference, kind,
        title, URL, author, areas, priority, score, rank, whether it is in the focus list."""
        return answer(
            lambda: queries.search(
                since=since,
                until=until,
                area=area,
                kind=kind,
                priority=priority,
                author=author,
                text=text,
                page=page,
                page_size=page_size,
            )
        )

    @server.tool(annotations=READ_ONLY)
    def get_item(
        item: Annotated[
            str,
            Field(description="An id from search_items, a GitHub issue or PR URL, `owner/repo#N` or `#N`."),
        ],
        since: Since = None,
        until: Until = None,
        comment_page: Annotated[int, Field(description="Page of the comments (20 a page), from 1.")] = 1,
    ) -> dict[str, Any]:
        """One stored item: its fields, description, comments, relations (with their evidence), and,
        when it belongs to the window, the pipeline's assessment (areas, priority, score, reasons) and,
        for a focus item, its analysis, suggested action and the evidence of every claim."""
        return answer(lambda: queries.get_item(item, since=since, until=until, comment_page=comment_page))

    @server.tool(annotations=READ_ONLY)
    def get_report(since: Since = None, until: Until = None) -> dict[str, Any]:
        """The window's report as JSON (the `report` command's document, rule analyser): overview,
        focus items with their analysis, counts, contributors, teams, coverage. Its per-item lists are
        left out: page through them with search_items."""
        return answer(lambda: queries.report_json(since, until))

    @server.tool(annotations=READ_ONLY)
    def key_contributors(
        since: Since = None, until: Until = None, page: Page = 1, page_size: PageSize = PAGE_SIZE
    ) -> dict[str, Any]:
        """The window's key contributors (the profile's people, then the most active authors; bots
        never) with their items and areas, and the teams."""
        return answer(lambda: queries.contributors(since=since, until=until, page=page, page_size=page_size))

    @server.tool(annotations=READ_ONLY)
    def source_coverage(since: Since = None, until: Until = None) -> dict[str, Any]:
        """How completely each source delivered the window (status, items, requests, note), the focus
        areas' coverage and the collection funnel."""
        return answer(lambda: queries.coverage(since=since, until=until))

    @server.resource(
        LATEST_JSON,
        name="latest-report",
        mime_type="application/json",
        description="The latest report as JSON (as get_report without a window).",
    )
    def latest_report_json() -> str:
        return json.dumps(read(queries.report_json), ensure_ascii=False, indent=2)

    @server.resource(
        LATEST_MARKDOWN,
        name="latest-report-markdown",
        mime_type="text/markdown",
        description="The latest report in Markdown.",
    )
    def latest_report_markdown() -> str:
        return read(queries.report_markdown)

    return server


def read(call: Callable[[], T]) -> T:
    """A resource's failure as a one-line resource error."""
    try:
        return call()
    except InsightError as exc:
        raise ResourceError(str(exc)) from None


def serve(
    queries: Queries,
    http_port: int | None = None,
    host: str = "127.0.0.1",
    quiet: bool = False,
    allowed_hosts: Sequence[str] = (),
) -> None:
    """Serve until the client closes standard input (stdio) or the process is stopped (HTTP);
    over HTTP only requests naming this server (Host, Origin: see rebinding.py) are answered."""
    server = build_server(queries)
    if http_port is None:
        server.run("stdio")
        return
    # Run by hand rather than `server.run`, which cannot turn off uvicorn's access log (it goes to
    # stdout, where this tool writes only results), and on a socket bound here, so a busy port is
    # one line of error rather than uvicorn's log of a failed startup.
    try:
        listening = socket.create_server((host, http_port), family=socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as exc:
        raise InsightError(f"cannot listen on {host} port {http_port}: {exc.strerror or exc}") from None
    security = transport_security(host, allowed_hosts)
    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host, transport_security=security)
    config = uvicorn.Config(app, log_level="warning" if quiet else "info", access_log=False)
    if not quiet:
        where = f"[{host}]" if ":" in host else host
        print(f"serving MCP at http://{where}:{http_port}{HTTP_PATH} (Ctrl-C stops)", file=sys.stderr, flush=True)
    with listening:
        uvicorn.Server(config).run(sockets=[listening])
