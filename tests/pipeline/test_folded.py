import json
import random
import re
from pathlib import Path

import pytest

from pytorch_insight.folded import case_blind
from pytorch_insight.pipeline.facts import FactExtractor
from tests.pipeline.helpers import PROFILE

RAW = Path(__file__).resolve().parents[1] / "data" / "raw"
WORDS = ["H100", "h100", "8xH100", "8 x H100", "MI300X", "gfx942", "sm_90a", "Apple M2 Pro", "NVLink", "TPU v5"]
WORDS += ["vLLM", "Hugging Face", "release/2.12", "cherry-pick", "2.12 regression", "64 GPUs", "70B model"]
WORDS += ["TP = 8", "FSDP(2) + TP", "multi-node", "by default", "MoE", " ", "x", "1", ".", "/", "_", "\n", "-"]


def vocabularies() -> list[re.Pattern[str]]:
    extractor = FactExtractor(PROFILE.severity)
    found = [extractor.hardware, extractor.downstream, extractor.release, extractor.scale, extractor.default_path]
    return [vocabulary[0].pattern for vocabulary in found if vocabulary]


def texts() -> list[str]:
    rows = [json.loads(line) for path in sorted(RAW.glob("*.jsonl")) for line in path.read_text().splitlines()]
    rng = random.Random(5)
    made = ["".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))) for _ in range(3000)]
    return [f"{row['title'] or ''}\n{row['body'] or ''}" for row in rows] + made


@pytest.mark.parametrize("pattern", vocabularies(), ids=lambda p: p.pattern[:40])
def test_a_folded_search_finds_what_the_case_blind_pattern_finds(pattern: re.Pattern[str]) -> None:
    folded = case_blind(pattern)
    assert folded.lowered is not None
    for text in texts():
        match = pattern.search(text)
        assert folded.search(text) == ((match.start(), match.group(0)) if match else None), text[:80]


def test_what_folding_cannot_rewrite_is_searched_as_written() -> None:
    scoped = case_blind(re.compile(r"(?i)a(?-i:B)"))
    assert scoped.lowered is None and scoped.search("xaB") == (1, "aB") and scoped.search("xab") is None
    # The Kelvin sign is "k" to a case-blind pattern; text that holds it is not lower-cased
    kelvin = case_blind(re.compile(r"(?i)\bkernel\b"))
    assert kelvin.search("a \u212aernel") == (2, "\u212aernel") and kelvin.search("a KERNEL") == (2, "KERNEL")
