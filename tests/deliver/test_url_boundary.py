"""An item address that is not a web page (`javascript:...`, `data:`, `file:`) leaves the project
nowhere: not in the report's JSON document, not in the signed webhook body, not in MCP's answers.
The renderers never linked it; machine consumers got it raw."""

from __future__ import annotations

import json

import pytest

from pytorch_insight.config import load_profile
from pytorch_insight.serve.queries import Queries
from pytorch_insight.store import Store
from tests.deliver.conftest import Platforms
from tests.deliver.test_deliver import deliver
from tests.report.fixtures import report_of, week

HOSTILE = ("javascript:alert(document.cookie)", "JaVaScRiPt:alert(1)", "data:text/html,<b>x</b>", "file:///etc/passwd")


def hostile_week(url: str) -> list:
    return [item.model_copy(update={"url": url}) if item.number == 1001 else item for item in week()]


@pytest.mark.parametrize("url", HOSTILE)
def test_the_report_document_carries_web_addresses_only(url: str) -> None:
    document = json.loads(report_of(hostile_week(url)).model_dump_json())
    assert url not in json.dumps(document)
    entry = next(entry for entry in document["focus"] if entry["id"] == "github:pytorch/pytorch#1001")
    assert entry["url"] is None
    assert next(i for i in document["items"] if i["number"] == 1002)["url"].startswith("https://github.com/")


def test_the_webhook_and_mcp_never_get_a_script_address(
    capsys: pytest.CaptureFixture[str], platforms: Platforms
) -> None:
    url = HOSTILE[0]
    store = Store.open(platforms.db)
    store.save_items([item for item in hostile_week(url) if item.number == 1001])
    store.close()
    code, _, err = deliver(capsys, platforms, "--to", "archive")
    assert code == 0, err
    body = json.dumps(platforms.receiver.accepted[0])
    assert "javascript:" not in body and "https://github.com/pytorch/pytorch/pull/1002" in body

    queries = Queries(Store.open(platforms.db, readonly=True), load_profile("pytorch"), lang="en")
    item = queries.get_item("#1001", since="2026-04-07", until="2026-04-13")
    assert item["item"]["url"] is None
    answers = [
        item,
        queries.search(since="2026-04-07", until="2026-04-13"),
        queries.report_json("2026-04-07", "2026-04-13"),
    ]
    assert "javascript:" not in json.dumps(answers)
