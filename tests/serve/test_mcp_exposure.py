"""MCP answers are bounded: every list an answer holds is cut to its limit, its length said.
(The Host / Origin checks on every address are in test_mcp_guard.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from pytorch_insight.config import load_settings
from pytorch_insight.serve.queries import LIST_LIMIT, Queries
from pytorch_insight.store import Store
from tests.pipeline.helpers import item


def test_get_item_bounds_its_lists(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "insight.db"))
    big = item(7, "an item with very many labels", "body", created="2026-04-08T10:00:00Z")
    store.save_items([big.model_copy(update={"labels": [f"label-{n}" for n in range(200_000)]})])
    queries = Queries(store, load_settings(db=str(tmp_path / "insight.db"), env={}).profile, lang="en")
    answer = queries.get_item("github:pytorch/pytorch#7", since="2026-04-07", until="2026-04-13")
    assert len(answer["item"]["labels"]) == LIST_LIMIT and answer["item"]["labels_total"] == 200_000
    assert len(json.dumps(answer)) < 100_000
