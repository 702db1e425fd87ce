"""`report --format json`: the document of REPORT_SPEC.md from a shared week, deterministic."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.cli import main
from tests.conftest import RAW_WEEKS
from tests.fakes.github import FakeGitHub

ITEM_KEYS = {
    "id",
    "number",
    "kind",
    "url",
    "title",
    "author",
    "created",
    "areas",
    "priority",
    "score",
    "rank",
    "reasons",
    "relations",
}


# A line of a PR body that is a closing keyword and one issue number, nothing else: "Fixes #N".
CLOSING_LINE = re.compile(r"^(?:Fix|Fixes|Closes|Resolves) #(\d+)[ \t]*$", re.M)


def closing_lines(rows: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(issue id, PR id, the line) for each such line of a PR of the fortnight naming an issue of it."""
    issues = {(row["repo"], row["number"]) for row in rows if row["kind"] == "issue"}
    return [
        (f"github:{row['repo']}#{match.group(1)}", f"github:{row['repo']}#{row['number']}", match.group(0).strip())
        for row in rows
        if row["kind"] == "pull_request"
        for match in CLOSING_LINE.finditer(row["body"] or "")
        if (row["repo"], int(match.group(1))) in issues
    ]


def cli(*args: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    assert exit_info.value.code in (0, None)


@pytest.fixture
def report_of_the_fortnight(tmp_path: Path) -> Callable[..., dict[str, Any]]:
    db = str(tmp_path / "insight.db")
    cli("import", "-q", "--db", db, str(RAW_WEEKS))

    def make(*extra: str, out: str = "out") -> dict[str, Any]:
        cli(
            "report",
            "-q",
            "--db",
            db,
            "--since",
            "2026-04-07",
            "--until",
            "2026-04-20",
            "--out",
            str(tmp_path / out),
            *extra,
        )
        reader = extra[extra.index("--reader") + 1] if "--reader" in extra else "generalist"
        stem = "2026-04-07_2026-04-20" + ("" if reader == "generalist" else f".{reader}")
        return json.loads((tmp_path / out / f"{stem}.json").read_text())

    return make


def test_the_document_holds_ranked_linked_classified_items(
    report_of_the_fortnight: Callable[..., dict[str, Any]], shared_rows: list[dict[str, Any]]
) -> None:
    report = report_of_the_fortnight()
    assert report["schema_version"] == "1"
    assert report["window"] == {"since": "2026-04-07", "until": "2026-04-20"}
    assert (report["profile"], report["reader"], report["analyser"]) == ("pytorch", "generalist", "rules")
    items = report["items"]
    assert len(items) == 185 and all(ITEM_KEYS <= set(entry) for entry in items)
    assert [entry["rank"] for entry in items] == list(range(1, 186))
    # high priority first (a triager's or the learned `high` class's mark needs no score to back it),
    # then best score first
    order = [(entry["priority"] != "high", -entry["score"]) for entry in items]
    assert order == sorted(order)
    assert all(entry["areas"] and entry["reasons"] is not None for entry in items)
    by_id = {entry["id"]: entry for entry in items}
    closing = closing_lines(shared_rows)
    assert closing  # the fortnight holds PRs that close its issues with a bare "Fixes #N" line
    for issue, pr, line in closing:
        assert {
            "type": "fixed_by",
            "target": pr,
            "evidence": f'closing keyword in PR body: "{line}"',
        } in by_id[issue]["relations"]
    assert report["stats"]["high"] == report["counts"]["priority"]["high"] > 0


def test_the_focus_list_leaves_out_noise_and_duplicates(report_of_the_fortnight: Callable[..., dict[str, Any]]) -> None:
    report = report_of_the_fortnight()
    by_id = {entry["id"]: entry for entry in report["items"]}
    assert 0 < len(report["focus"]) <= 12
    for entry in report["focus"]:
        item = by_id[entry["id"]]
        assert not item["noise"] and item["duplicate_of"] is None and item["priority"] in ("high", "medium")
        assert entry["reason"]
    assert not any(person["login"] in ("pytorchmergebot", "pytorchupdatebot") for person in report["contributors"])


def test_the_same_store_gives_the_same_document(report_of_the_fortnight: Callable[..., dict[str, Any]]) -> None:
    first, second = report_of_the_fortnight(out="a"), report_of_the_fortnight(out="b")
    first.pop("generated_at"), second.pop("generated_at")
    assert first == second


def test_another_reader_gets_another_ranking(report_of_the_fortnight: Callable[..., dict[str, Any]]) -> None:
    generalist = [entry["id"] for entry in report_of_the_fortnight()["focus"]]
    distributed = report_of_the_fortnight("--reader", "distributed", out="d")
    assert distributed["reader"] == "distributed"
    assert [entry["id"] for entry in distributed["focus"]] != generalist


def test_coverage_comes_from_the_last_collection(
    tmp_path: Path,
    shared_rows: list[dict[str, Any]],
    start_github: Callable[..., FakeGitHub],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", start_github(shared_rows).url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    db = str(tmp_path / "insight.db")
    window = ("--since", "2026-04-07", "--until", "2026-04-20")
    cli("collect", "-q", "--source", "github", "--db", db, *window)
    cli("report", "-q", "--db", db, *window, "--out", str(tmp_path))
    report = json.loads((tmp_path / "2026-04-07_2026-04-20.json").read_text())
    [github] = report["coverage"]["sources"]
    assert (github["name"], github["status"], github["items"]) == ("github", "ok", 156)
    assert {area["id"] for area in report["coverage"]["areas"]} >= {"compiler", "distributed", "rocm", "rfc"}
