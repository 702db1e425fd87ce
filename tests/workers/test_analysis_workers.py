"""`run --workers --llm`: every focus item's model call runs on a worker, its answer reaches the
report through the shared cache, and the dispatcher itself never reaches the model."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytorch_insight.store import LLMLedger, Store
from tests.fakes.github import FakeGitHub
from tests.fakes.openai import FakeOpenAI, answer
from tests.fakes.server import Reply
from tests.servers import free_port
from tests.workers.conftest import Workers, worker_config
from tests.workers.test_collect_workers import TOKEN, WINDOW, profile_file


class TitleModel(FakeOpenAI):
    """Answers each item with its own title: grounded, and telling which item was asked about."""

    def answer_post(self, path: str, headers: Any, body: bytes) -> Reply:
        if path != "/v1/chat/completions":
            return super().answer_post(path, headers, body)
        request = json.loads(body)
        self.requests.append(request)
        data = json.loads(request["messages"][1]["content"].removeprefix("<data>\n").removesuffix("\n</data>"))
        title = (data.get("item") or {}).get("title") or ""
        return answer(summary=title, action="track", urgency="P2", reason=title)


def test_the_focus_items_model_calls_run_on_the_workers(
    shared_rows: list[dict[str, Any]], tmp_path: Path, redis_url: str, workers: Callable[..., Workers]
) -> None:
    profile, out, db = profile_file(tmp_path), tmp_path / "reports", str(tmp_path / "insight.db")
    config = worker_config(tmp_path / "config.toml", redis_url)
    with config.open("a") as handle:
        handle.write('[llm]\nmodel = "test-model"\nmax_attempts = 1\ntimeout = 5.0\n')
    with FakeGitHub(shared_rows, now=time.time, tokens={TOKEN}) as github, TitleModel() as model:
        group = workers(config, db, {"GITHUB_API_URL": github.url, "GITHUB_TOKEN": TOKEN})
        group.env["OPENAI_BASE_URL"] = f"{model.url}/v1"
        group.start("analyst")
        # The dispatcher's own model address leads nowhere: what it reports came from the workers.
        group.env["OPENAI_BASE_URL"] = f"http://127.0.0.1:{free_port()}/v1"
        options = ["--focus", "4", "--deep", "2", "--lang", "en", "--format", "json", "--out", str(out)]
        command = group.command("run", "--workers", "--source", "github", "--profile", str(profile), "-q")
        done = subprocess.run(
            [*command, *WINDOW, *options], capture_output=True, text=True, timeout=180, env={**os.environ, **group.env}
        )
    assert done.returncode == 0, done.stderr
    report = json.loads((out / f"{WINDOW[1]}_{WINDOW[3]}.en.json").read_text())
    writers = [entry["analysis"]["analyser"] for entry in report["focus"]]
    assert writers and set(writers) == {"test-model"}
    asked = {json.loads(r["messages"][1]["content"][7:-8])["item"]["title"] for r in model.requests}
    assert {entry["title"] for entry in report["focus"]} <= asked
    usage = report["footer"]["llm"]
    assert usage["calls"] == len(model.requests) and usage["cache_hits"] >= len(writers)
    # The one call the dispatcher made itself (the overview, not a task) found no model.
    failed = [call["purpose"] for call in LLMLedger(Store.open(db)).calls() if call["outcome"] != "ok"]
    assert failed == ["overview"]
