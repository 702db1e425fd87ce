"""`pytorch-insight learn`: harvests the labelled issues from a local GitHub through its search API
(one query per label of the profile, paged), then trains; or trains on files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

import pytest

from pytorch_insight.config import load_profile
from pytorch_insight.pipeline.severity import read_model
from tests.conftest import DATA
from tests.test_cli import run

CORPUS = DATA / "learn" / "corpus.jsonl"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)


def corpus_rows() -> list[dict[str, Any]]:
    """The fixture corpus as GitHub threads of one repository (dates at noon, as GitHub gives times)."""
    rows = []
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        rows.append(
            {
                "repo": "pytorch/pytorch",
                "number": data["number"],
                "kind": "issue",
                "state": data.get("state") or "open",
                "title": data["title"],
                "author": "someone",
                "created": data.get("created") or "2024-01-01",
                "labels": data["labels"],
                "body": data["text"],
                "comments": [],
                "url": f"https://github.com/pytorch/pytorch/issues/{data['number']}",
            }
        )
    unique = {row["number"]: row for row in rows}
    return list(unique.values())


def test_learn_harvests_each_label_by_search_and_trains(capsys, start_github, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    rows = corpus_rows()
    github = start_github(rows, search_limit=1000)  # the waits for a spent search budget are tested with collect
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    # Without a token the client allows itself 10 searches a minute, and the profile's labels make
    # some 30: a short budget period keeps the pacing without minutes of waiting.
    config = tmp_path / "config" / "pytorch-insight" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[workers]\nsearch_period = 0.2\n", encoding="utf-8")
    out = tmp_path / "model.json.gz"
    code, stdout, err = run(
        capsys, "learn", "--repo", "pytorch/pytorch", "--pages", "5", "--out", str(out), "--db", str(tmp_path / "i.db")
    )
    assert code == 0, err
    assert stdout.strip() == str(out)
    model = read_model(out)
    corpus_file = tmp_path / "data" / "pytorch-insight" / "learn" / "pytorch__pytorch.corpus.jsonl"
    harvested = [json.loads(line) for line in corpus_file.read_text(encoding="utf-8").splitlines()]
    wanted = {label for labels in load_profile("pytorch").judgement.classes.values() for label in labels}
    expected = {row["number"] for row in rows if set(row["labels"]) & (wanted | {"triaged"})}
    assert {line["number"] for line in harvested} == expected
    assert model.card["examples"] == len(expected)
    searches = [unquote_plus(path) for path, status in github.log if path.startswith("/search/issues")]
    assert any('label:"module: crash"' in q for q in searches)
    assert all(status == 200 for path, status in github.log)
    assert "PYTORCH_INSIGHT_SEVERITY_MODEL=" in err


def test_learn_from_files_needs_no_network_and_prints_the_card_as_json(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "m.json.gz"
    code, stdout, err = run(capsys, "learn", "--corpus", str(CORPUS), "--out", str(out), "--json")
    assert code == 0, err
    document = json.loads(stdout)
    assert document["model"] == str(out)
    assert document["card"]["evaluation"]["per_class"]


def test_learn_refuses_a_corpus_with_nothing_to_learn_in_one_line(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"repo": "a/b", "number": 1, "labels": ["x"], "title": "t", "text": ""}\n', encoding="utf-8")
    code, _, err = run(capsys, "learn", "--corpus", str(empty), "--out", str(tmp_path / "m.json.gz"))
    assert code != 0
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("error: ") and "too few" in err
