"""The offline analyser: extracts, never composes. Every sentence and figure it returns is
copied from the item, its comments or its linked items; what they do not say stays empty."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pytorch_insight.analysis.model import (
    Analysis,
    AnalysisContext,
    Comparison,
    Facts,
    FileChange,
    FixState,
)
from pytorch_insight.model import Item, github_item_id
from pytorch_insight.pipeline import Assessment
from pytorch_insight.text import Body, parse_body, section, sentences

SUMMARY_SECTIONS = (
    "describe the bug",
    "summary",
    "issue",
    "problem",
    "the feature, motivation and pitch",
    "motivation",
    "description",
    "context",
)
ROOT_CAUSE = re.compile(
    r"\b(?:root cause|caused by|because|due to|the (?:issue|problem|bug) (?:is|was) that|"
    r"this happens (?:when|because)|the reason (?:is|was))\b",
    re.I,
)
IMPACT = re.compile(
    r"\b(?:regress\w*|slower|faster|speed-?up|throughput|latency|affects?|all users|every|breaks?|"
    r"broken|fails?|failing|wrong|incorrect|oom|out of memory|crash\w*|hangs?|deadlock\w*|tok/s|%)",
    re.I,
)
WORKAROUND = re.compile(
    r"\b(?:work-?around|work around|as a temporary (?:fix|solution)|in the meantime|"
    r"you can (?:set|disable|use|pass)|mutes? (?:this|the) (?:issue|problem)|avoids? (?:this|the) "
    r"(?:issue|problem)|makes? (?:it|the (?:issue|problem)) go away)\b",
    re.I,
)
MECHANISM = re.compile(r"`[^`]+`|\b[\w/]+\.(?:py|cpp|cu|h|hpp|c|cc|yaml|yml)\b|\b\w+\(\)")
VERSION_PATTERNS = (
    (
        "torch",
        re.compile(r"\b(?:torch|pytorch)`?(?:\s+version)?\s*[:=]*\s*`?v?(\d+\.\d+(?:\.\d+)?(?:[+.][\w.]+)?)", re.I),
    ),
    ("CUDA", re.compile(r"\bCUDA(?:\s+version)?\s*[:=]?\s*`?(\d+\.\d+(?:\.\d+)?)")),
    ("ROCm", re.compile(r"\bROCm(?:\s+version)?\s*[:=]?\s*`?(\d+\.\d+(?:\.\d+)?)", re.I)),
    ("Python", re.compile(r"\bPython(?:\s+version)?\s*[:=]?\s*`?(3\.\d+(?:\.\d+)?)", re.I)),
    ("triton", re.compile(r"\btriton(?:\s+version)?`?\s*[:=]?\s*`?(\d+\.\d+(?:\.\d+)?)", re.I)),
)
HARDWARE = re.compile(
    r"\b(?:[HB]\d{2,3}|GB\d{3}|A100|A10G?|L40S?|L4|V100|T4|MI\d{3}X?|gfx\d{3,4}|"
    r"Apple M[1-5](?: (?:Pro|Max|Ultra))?|RTX ?\d{4}|TPU ?v\d\w?|Gaudi ?\d?)\b"
)
NUMBER = re.compile(
    r"(?<![\w.])[~+\-]?\d+(?:\.\d+)?\s?(?:ms|µs|us|sec|GiB|GB|MiB|MB|%|x|tok/s|tokens/s|TFLOPS|GB/s|it/s)(?![\w/]|\.\.)"
)
COMPARISON = re.compile(
    r"(\d+(?:\.\d+)?)\s?(ms|µs|us|s|GB|MB|tok/s|TFLOPS|GB/s|it/s)\s*(?:vs\.?|versus|->|→|to)\s*(\d+(?:\.\d+)?)\s?\2(?![\w/])"
)
ERROR_LINE = re.compile(r"^\s*((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\b(?::[^\n]{0,200}|\([^\n]{0,80}\))?)", re.M)
INLINE_ERROR = re.compile(r"`((?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\b[^`]{0,160})`")
API = re.compile(r"\btorch(?:\.[A-Za-z_]\w*)+")
CODE_SPAN = re.compile(r"`([^`\n]{2,60})`")
TITLE_TAG = re.compile(r"\[([^\]]{1,40})\]")
LANDED = ("merged", "landed")


class RuleAnalyser:
    name = "rules"

    def analyse_batch(self, pairs: Sequence[tuple[Assessment, bool]], context: AnalysisContext) -> list[Analysis]:
        return [self.analyse(assessment, context, deep) for assessment, deep in pairs]

    def analyse(self, assessment: Assessment, context: AnalysisContext, deep: bool) -> Analysis:
        item = assessment.item
        body = parse_body(item.body)
        thread = [c.body or "" for c in item.comments if not context.profile.is_bot(c.author)]
        summary = summarise(body)
        state, refs = fix_state(assessment, context)
        analysis = Analysis(
            summary=summary,
            fix_state=state,
            fix_refs=refs,
            fix_ref_states=timeline_prs(item) if state == "referenced" else {},
            facts=facts(item, body),
            analyser=self.name,
        )
        if not analysis.facts.files:  # an issue's story touches the files its fixes change
            analysis.facts.files = [
                FileChange.model_validate(change)
                for ref in refs
                if ref in context.by_id
                for change in (context.by_id[ref].item.model_extra or {}).get("files", [])
            ]
        if not deep:
            return analysis
        analysis.details = " ".join(first(mechanism_sentences(item, body), 2, exclude=summary))
        analysis.root_cause = " ".join(first(root_cause_sentences(body, thread), 2))
        analysis.impact = " ".join(first(impact_sentences(body), 2, exclude=summary + analysis.root_cause))
        # A PR's body describes its fix; only an explicit section there, or the thread, offers a workaround.
        workaround, code = find_workaround(body, thread, search_body=item.kind not in ("pull_request", "commit"))
        analysis.workaround, analysis.workaround_code = workaround, code
        return analysis


def first(found: Iterable[str], limit: int, exclude: str = "") -> list[str]:
    """The first `limit` distinct sentences not already used in `exclude`."""
    chosen: list[str] = []
    for sentence in found:
        if sentence not in chosen and sentence not in exclude:
            chosen.append(sentence)
        if len(chosen) == limit:
            break
    return chosen


def summarise(body: Body) -> str:
    """The first two sentences of the template's description, else of the body."""
    text = section(body, *SUMMARY_SECTIONS) or body.sections.get("", "") or next(iter(body.sections.values()), "")
    found = sentences(text) or sentences("\n\n".join(body.sections.values()))
    return " ".join(found[:2])


def mechanism_sentences(item: Item, body: Body) -> list[str]:
    text = item.body or ""
    return [s for s in sentences(text) if MECHANISM.search(s)]


def root_cause_sentences(body: Body, thread: list[str]) -> list[str]:
    explicit = section(body, "root cause", "cause")
    if explicit and sentences(explicit):
        return sentences(explicit)
    texts = ["\n\n".join(body.sections.values()), *thread]
    return [s for text in texts for s in sentences(text) if ROOT_CAUSE.search(s)]


def impact_sentences(body: Body) -> list[str]:
    explicit = section(body, "impact")
    if explicit and sentences(explicit):
        return sentences(explicit)
    text = section(body, *SUMMARY_SECTIONS) or "\n\n".join(body.sections.values())
    return [s for s in sentences(text) if IMPACT.search(s) and (NUMBER.search(s) or IMPACT.search(s))]


def find_workaround(body: Body, thread: list[str], search_body: bool = True) -> tuple[str, str]:
    """A workaround sentence and, when the same text offers one, the code block that goes with it."""
    explicit = section(body, "workaround", "work around", "mitigation")
    if explicit and sentences(explicit):
        blocks = parse_body(explicit).code_blocks
        return " ".join(sentences(explicit)[:2]), blocks[0] if blocks else ""
    texts = (["\n\n".join(body.sections.values())] if search_body else []) + thread
    for text in texts:
        for sentence in sentences(text):
            if WORKAROUND.search(sentence):
                return sentence, _code_after(text, sentence)
    return "", ""


def _code_after(text: str, sentence: str) -> str:
    """The code block that follows a workaround sentence within a few lines, if any."""
    anchor = text.find(sentence[:40])
    if anchor < 0:
        return ""
    rest = text[anchor : anchor + len(sentence) + 400]
    block = re.search(r"```[^\n]*\n(.*?)```", rest, re.S)
    return block.group(1).strip() if block else ""


def facts(item: Item, body: Body) -> Facts:
    text = f"{item.title or ''}\n{item.body or ''}"
    return Facts(
        components=[tag for tag in TITLE_TAG.findall(item.title or "")],
        apis=_distinct(API.findall(text) + [span for span in CODE_SPAN.findall(text) if "." in span or "(" in span])[
            :6
        ],
        versions=_most_specific(
            f"{name} {match}" for name, pattern in VERSION_PATTERNS for match in pattern.findall(text)
        )[:6],
        hardware=_distinct(HARDWARE.findall(text))[:4],
        numbers=_distinct(" ".join(n.split()) for n in NUMBER.findall(text))[:8],
        comparisons=comparisons(text),
        errors=_distinct(
            ERROR_LINE.findall("\n".join(body.code_blocks))
            + INLINE_ERROR.findall(text)
            + ERROR_LINE.findall(item.body or "")
        )[:3],
        files=[FileChange.model_validate(f) for f in (item.model_extra or {}).get("files", [])],
    )


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


def fix_state(assessment: Assessment, context: AnalysisContext) -> tuple[FixState, list[str]]:
    """Where the fix stands, from the item's own state and the states of its linked changes."""
    item = assessment.item

    def linked(kind: str) -> list[Assessment]:
        return [context.by_id[r.target] for r in assessment.relations if r.type == kind and r.target in context.by_id]

    if item.kind in ("pull_request", "commit"):
        reverts = [r.target for r in assessment.relations if r.type == "reverted_by"]
        if reverts:
            return "reverted", reverts
        if item.state in LANDED:
            return "merged" if item.kind == "pull_request" else "landed", []
        return ("open", []) if item.state == "open" else ("closed", [])
    fixes = linked("fixed_by")
    refs = [fix.id for fix in fixes]
    if any(fix.item.state in LANDED for fix in fixes):
        reverted = [fix for fix in fixes if any(r.type == "reverted_by" for r in fix.relations)]
        return ("reverted", refs) if reverted and len(reverted) == len(fixes) else ("landed", refs)
    if fixes:
        return ("open", refs) if any(fix.item.state == "open" for fix in fixes) else ("closed", refs)
    if timeline_prs(item):
        return "referenced", list(timeline_prs(item))
    return ("closed", []) if item.state == "closed" else ("none", [])


def timeline_prs(item: Item) -> dict[str, str]:
    """PR id -> state for the PRs that the issue's timeline shows referencing it (collected for
    the likely focus issues; they may lie outside the window)."""
    found = {}
    for ref in (item.model_extra or {}).get("timeline_refs") or []:
        if ref.get("event") == "cross-referenced" and ref.get("kind") == "pull_request" and ref.get("repo"):
            found[github_item_id(ref["repo"], ref["number"])] = ref.get("state") or "open"
    return found


def _most_specific(versions: Iterable[str]) -> list[str]:
    """Distinct versions, leaving out one that another spells out further (torch 2.12 < torch 2.12.0)."""
    found = _distinct(versions)
    return [v for v in found if not any(other != v and other.startswith(v) for other in found)]


def _distinct(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(value.strip() for value in values if value.strip()))
