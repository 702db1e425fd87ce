"""`run --deliver`: collect, write the report, then deliver the same document."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytorch_insight.cli import main
from tests.deliver.conftest import Platforms
from tests.fakes.github import FakeGitHub
from tests.report.fixtures import week as platform_items


def test_run_delivers_the_report_it_wrote(
    capsys: pytest.CaptureFixture[str],
    platforms: Platforms,
    tmp_path: Path,
    shared_rows: list[dict[str, Any]],
    start_github: Callable[..., FakeGitHub],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [row for row in shared_rows if "2026-04-07" <= (row.get("created") or "") < "2026-04-14"][:40]
    monkeypatch.setenv("GITHUB_API_URL", start_github(rows).url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    out = tmp_path / "site"
    args = ["run", "--source", "github", "--db", str(tmp_path / "run.db"), "--config", str(platforms.config)]
    args += ["--since", "2026-04-07", "--until", "2026-04-13", "--out", str(out), "--deliver", "-q"]
    with pytest.raises(SystemExit) as exit_info:
        main(args)
        raise SystemExit(0)
    _, err = capsys.readouterr()
    assert exit_info.value.code in (0, None), err
    assert (out / "2026-04-07_2026-04-13.html").exists()
    assert len(platforms.slack.accepted) == len(platforms.receiver.accepted) == len(platforms.mail.received) == 1
    # The webhook got the very document `run` wrote (same generation time), not a rebuilt one.
    written = (out / "2026-04-07_2026-04-13.json").read_text(encoding="utf-8")
    assert f'"generated_at": "{platforms.receiver.accepted[0]["generated_at"]}"' in written


def test_run_deliver_without_targets_fails_before_collecting(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "empty.toml"
    config.write_text('profile = "pytorch"\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--db", str(tmp_path / "x.db"), "--config", str(config), "--deliver"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("error: no [[delivery]] targets in the config file")
    assert not (tmp_path / "x.db").exists()


def test_every_page_a_message_links_to_is_published(
    capsys: pytest.CaptureFixture[str], platforms: Platforms, tmp_path: Path
) -> None:
    """The workflow's way: `run --site` publishes, a later `deliver` links. The Feishu target asks
    for English; its "Full report" button must open a page the site has."""
    site = tmp_path / "site"
    week = tmp_path / "week.jsonl"
    week.write_text("\n".join(item.model_dump_json() for item in platform_items()) + "\n", encoding="utf-8")
    db, config = str(tmp_path / "run.db"), str(platforms.config)
    window = ["--since", "2026-04-07", "--until", "2026-04-13"]
    for args in (
        ["run", "--offline", str(week), "--db", db, "--config", config, *window, "--site", str(site), "-q"],
        ["deliver", "--db", db, "--config", config, *window, "-q"],
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(args)
            raise SystemExit(0)
        assert exit_info.value.code in (0, None), capsys.readouterr().err
    base = "https://insight.example.org/weekly/"
    links = [
        platforms.slack.accepted[0]["blocks"][-1]["elements"][0]["text"],
        platforms.feishu.accepted[0]["card"]["elements"][-1]["actions"][0]["url"],
        platforms.dingtalk.accepted[0]["markdown"]["text"],
    ]
    pages = [found for text in links for found in re.findall(re.escape(base) + r"([\w.-]+\.html)", text)]
    assert len(pages) == 3 and "2026-04-07_2026-04-13.en.html" in pages
    for page in pages:
        assert (site / page).is_file(), page
