"""`report --llm` end to end: model-written analysis where it passed, rules elsewhere, and a second
run over unchanged items that makes no model call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytorch_insight.cli import main
from pytorch_insight.store import LLMLedger, Store
from tests.analysis.test_llm import GOOD, SECRET
from tests.conftest import RAW_WEEKS
from tests.fakes.openai import FakeOpenAI, completion

WINDOW = ("--since", "2026-04-07", "--until", "2026-04-20")


def cli(*args: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
        raise SystemExit(0)
    assert exit_info.value.code in (0, None)


def test_report_with_a_model_then_again_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db, out = str(tmp_path / "insight.db"), tmp_path / "site"
    cli("import", "-q", "--db", db, str(RAW_WEEKS))
    with FakeOpenAI() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        server.play(GOOD, completion("not json"), completion("still not json"))
        common = (
            "--db",
            db,
            *WINDOW,
            "--out",
            str(out),
            "--focus",
            "4",
            "--deep",
            "3",
            "--llm",
            "test-model",
            "--llm-concurrency",
            "1",
        )
        cli("report", "-q", *common, "--lang", "en")
        first_calls = len(server.requests)
        cli("report", "-q", *common, "--lang", "en")
        assert len(server.requests) == first_calls  # everything came from the cache
    report = json.loads((out / "2026-04-07_2026-04-20.en.json").read_text())
    writers = [entry["analysis"]["analyser"] for entry in report["focus"]]
    assert writers.count("rules") >= 2 and report["footer"]["analyser"] == "test-model"
    assert report["footer"]["llm"]["calls"] == 0 and report["footer"]["llm"]["cache_hits"] >= 1
    calls = LLMLedger(Store.open(db)).calls()
    assert len(calls) == first_calls and {c["model"] for c in calls} == {"test-model"}
    for path in [*out.iterdir(), *Path(db).parent.glob("insight.db*")]:
        assert SECRET.encode() not in path.read_bytes()
