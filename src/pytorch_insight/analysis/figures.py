"""The figures of one item: the components, APIs, versions, hardware, numbers, measured comparisons,
error lines and changed files its title and text name, each copied as written."""

from __future__ import annotations

import re
from collections.abc import Iterable

from pytorch_insight.analysis.causes import HARM
from pytorch_insight.analysis.model import Comparison, Facts, FileChange
from pytorch_insight.model import Item
from pytorch_insight.text import Body, bounded

VERSION_PATTERNS = (
    (
        "torch",
        re.compile(
            # a pre-release's tag stays with its number: "2.9.0a0+gitabc1234" is no 2.9.0 release; "ROCM used
            # to build PyTorch: 6.9" is the version of what built it
            r"(?<!used to build )\b(?:torch|pytorch)`?(?:\s+version)?\s*[:=]*\s*`?v?(\d\.\d{1,2}(?:\.\d+)?"
            r"(?:(?:a|b|rc|dev)\d+)?"
            r"(?:[+.][\w.]+)?)(?!\d)",
            re.I,
        ),
    ),
    ("CUDA", re.compile(r"\bCUDA(?:\s+version)?\s*[:=]?\s*`?(\d+\.\d+(?:\.\d+)?)")),
    ("ROCm", re.compile(r"\bROCm(?:\s+version)?\s*[:=]?\s*`?(\d+\.\d+(?:\.\d+)?)", re.I)),
    ("Python", re.compile(r"\bPython(?:\s+version)?\s*[:=]?\s*`?(3\.\d+(?:\.\d+)?)", re.I)),
    ("triton", re.compile(r"\btriton(?:\s+version)?`?\s*[:=]?\s*`?(\d+\.\d+(?:\.\d+)?)", re.I)),
)
# A sentence or a line: versions are read from each apart, so one that names where the problem does
# not occur is left out.
PIECES = re.compile(r"(?<=[.!?])\s+|\n")
WORKS = re.compile(
    r"\b(?:not an? (?:issue|problem)|no (?:issue|problem)s?|works?|worked|working|fine(?!-)|unaffected|"
    r"not affected|passe[sd])\b",
    re.I,
)
# The words of harm the root-cause rules read, and those of a version that broke something.
FAILS = re.compile(rf"{HARM.pattern}|\b(?:broke\w*|regress\w*|not work\w*|n't work\w*)\b", re.I)
HARDWARE = re.compile(
    r"\b(?:[HB]\d{2,3}|GB\d{3}|A100|A10G?|L40S?|L4|V100|T4|MI\d{3}X?|gfx\d{3,4}|"
    r"Apple M[1-5](?: (?:Pro|Max|Ultra))?|RTX ?\d{4}|TPU ?v\d\w?|Gaudi ?\d?)\b"
)
# "2.5-4x" is one range, kept whole, and "1,000x" one number, whose thousands are not read apart.
NUMBER = re.compile(
    r"(?<![\w.,])[~+\-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?[-–]\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)?"
    r"\s?(?:ms|µs|us|sec|GiB|GB|MiB|MB|%|x|tok/s|tokens/s|TFLOPS|GB/s|it/s)(?![\w/]|\.\.)"
)
# Numbers, error lines and comparisons are read from the whole body: each pattern starts only where
# a number or a line starts, so a run of digits or blank lines is read once (linear in the body).
COMPARISON = re.compile(
    r"(?<!\d)(\d+(?:\.\d+)?)\s?(ms|µs|us|s|GB|MB|tok/s|TFLOPS|GB/s|it/s)\s*(?:vs\.?|versus|->|→|to)\s*(\d+(?:\.\d+)?)\s?\2(?![\w/])"
)
ERROR_LINE = re.compile(
    r"^[ \t]*+(?=[\w.])((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\b(?::[^\n]{0,200}|\([^\n]{0,80}\))?)", re.M
)
INLINE_ERROR = re.compile(r"`((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\b[^`]{0,160})`")
API = re.compile(r"\btorch(?:\.[A-Za-z_]\w*)+")
CODE_SPAN = re.compile(r"`([^`\n]{2,60})`")
TITLE_TAG = re.compile(r"\[([^\]]{1,40})\]")
URL = re.compile(r"https?://\S+")


def facts(item: Item, body: Body) -> Facts:
    text = f"{item.title or ''}\n{bounded(item.body)}"
    seen = [part for part in PIECES.split(text) if not works_there(part)]  # where the problem may be seen
    return Facts(
        components=[tag for tag in TITLE_TAG.findall(item.title or "")],
        apis=_distinct(API.findall(text) + [span for span in CODE_SPAN.findall(text) if "." in span or "(" in span])[
            :6
        ],
        versions=_most_specific(
            f"{name} {match}" for name, pattern in VERSION_PATTERNS for part in seen for match in pattern.findall(part)
        )[:6],
        # A link's anchor is no hardware: "…/kernel.cu#L10-L40" names lines, not an L40.
        hardware=_distinct(HARDWARE.findall(URL.sub(" ", text)))[:4],
        numbers=_distinct(" ".join(n.split()) for n in NUMBER.findall(text))[:8],
        comparisons=comparisons(text),
        # An inline error quoted across a line break is one line of the report.
        errors=_most_specific(
            ERROR_LINE.findall("\n".join(body.code_blocks))
            + [" ".join(error.split()) for error in INLINE_ERROR.findall(text)]
            + ERROR_LINE.findall(bounded(item.body))
        )[:3],
        files=[FileChange.model_validate(f) for f in (item.model_extra or {}).get("files", [])],
    )


def works_there(sentence: str) -> bool:
    """The sentence names where things work ("on torch 2.4 it runs fine"), and no failure: its
    versions are not the setup the problem is seen on."""
    return WORKS.search(sentence) is not None and FAILS.search(sentence) is None


def comparisons(text: str) -> list[Comparison]:
    """Side-by-side measurements and the change between them, e.g. 12.4 ms vs 13.9 ms = +12.1 %."""
    found = []
    for before, unit, after in COMPARISON.findall(text):
        a, b = float(before), float(after)
        if a:
            found.append(
                Comparison(
                    before=a,
                    after=b,
                    unit=unit,
                    change_pct=round((b - a) / a * 100, 1),
                    text=f"{before} {unit} → {after} {unit}",
                )
            )
    return found[:3]


SPECIFIC_LIMIT = 64


def _most_specific(values: Iterable[str]) -> list[str]:
    """Distinct values, leaving out one that another spells out further (torch 2.12 < torch 2.12.0, an
    error's name < the error with its message). Only the first SPECIFIC_LIMIT are compared, each with
    each: a hostile body may hold thousands."""
    found = _distinct(values)[:SPECIFIC_LIMIT]
    return [v for v in found if not any(other != v and other.startswith(v) for other in found)]


def _distinct(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(value.strip() for value in values if value.strip()))
