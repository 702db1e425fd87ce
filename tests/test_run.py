"""`run` = collect + report, the README's main job, end to end against the local GitHub server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.cli import main
from pytorch_insight.config import load_profile
from pytorch_insight.jsonl import item_from_line
from pytorch_insight.model import Item
from pytorch_insight.pipeline import assess
from tests.fakes.github import FakeGitHub

PATCH = "@@ -10,6 +10,8 @@ def select_algorithm(choices, layout):\n+    cache_key = (layout.stride,)\n"


def cli(*args: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    assert exit_info.value.code in (0, None)


def ref(item_id: str) -> str:
    """How the report names a GitHub item: "#N" in pytorch/pytorch, "owner/name#N" elsewhere."""
    repo, number = item_id.removeprefix("github:").rsplit("#", 1)
    return f"#{number}" if repo == "pytorch/pytorch" else f"{repo}#{number}"


def fixed_issue(rows: list[dict[str, Any]]) -> tuple[Item, list[str]]:
    """The highest-ranked issue of the rows, not noise, that PRs of the rows fix, and the ids of those PRs."""
    ranked = assess([item_from_line(row) for row in rows], load_profile("pytorch"))
    by_id = {a.id: a for a in ranked}
    for a in ranked:
        fixes = [r.target for r in a.relations if r.type == "fixed_by" and r.target in by_id]
        if a.item.kind == "issue" and not a.noise and fixes:
            return a.item, fixes
    raise AssertionError("no issue of the shared fortnight is fixed by a PR of it")


def test_run_writes_both_languages_with_every_section(
    tmp_path: Path,
    shared_rows: list[dict[str, Any]],
    start_github: Callable[..., FakeGitHub],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [dict(row) for row in shared_rows]
    issue, fixes = fixed_issue(rows)
    for row in rows:  # the shared threads never show files; give the fix PRs of that issue some to show
        if f"github:{row['repo']}#{row['number']}" in fixes:
            row["files"] = [{"filename": "torch/_inductor/stride_cache.py", "patch": PATCH}]
    monkeypatch.setenv("GITHUB_API_URL", start_github(rows).url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    downstream = tmp_path / "vendor"
    downstream.mkdir()
    (downstream / "backend.py").write_text("from torch._inductor import stride_cache\nselect_algorithm(x, y)\n")
    out, db = tmp_path / "site", str(tmp_path / "insight.db")
    window = ("--since", "2026-04-07", "--until", "2026-04-20")
    cli("run", "-q", "--source", "github", "--db", db, *window, "--out", str(out), "--downstream", str(downstream))
    cli("report", "-q", "--db", db, *window, "--out", str(out), "--lang", "en", "--downstream", str(downstream))
    stems = ("2026-04-07_2026-04-20", "2026-04-07_2026-04-20.en")
    assert {p.name for p in out.iterdir()} == {f"{s}.{f}" for s in stems for f in ("md", "html", "json")} | {
        "index.html",
        "feed.xml",
    }
    report = json.loads((out / "2026-04-07_2026-04-20.en.json").read_text())
    assert report["lang"] == "en" and report["coverage"]["sources"][0]["status"] == "ok"
    focus = {entry["id"]: entry for entry in report["focus"]}
    fix = focus[issue.id]  # the issue leads the story of its fix, and shows its files
    assert all(ref(pr) in fix["story"] for pr in fixes)
    assert fix["analysis"]["facts"]["files"][0]["functions"] == ["select_algorithm"]
    assert fix["analysis"]["facts"]["downstream"] == [
        "backend.py:1: from torch._inductor import stride_cache",
        "backend.py:2: select_algorithm(x, y)",
    ]
    markdown = (out / "2026-04-07_2026-04-20.md").read_text()
    for heading in ("## 1. 概览", "## 2. 重点关注", "## 3. 社区动态", "## 4. 关键人物动态", "## 5. 附录"):
        assert heading in markdown
    assert "select_algorithm" in markdown and "backend.py:2" in markdown
