"""Reading issue and PR bodies: template sections, prose without code or markup, sentences."""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(.+?)\s*#*\s*$", re.M)
FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|<img\b[^>]*>", re.I)
HTML_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
LINK = re.compile(r"\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)")
BOILERPLATE = re.compile(
    r"^\s*(?:cc:?\s+@.*|Stack from \[ghstack\].*|\*\s+(?:__->__\s+)?#\d+\s*|Differential Revision:.*|"
    r"Pull Request resolved:.*|Approved by:.*|Reviewed By:.*|(?:Fixes|Closes|Resolves):?\s+(?:#\d+|https?://\S+)\.?\s*|"
    r"Authored with .*|Test Plan:?\s*)$",
    re.I | re.M,
)
# fbcode exports: "Summary:" opens the description, "Test Plan:" a block of commands and links that
# runs up to the reviewers, the revision or the end.
SUMMARY_PREFIX = re.compile(r"^\s*Summary:\s*", re.M)
TEST_PLAN = re.compile(
    r"^\s*Test Plan:.*?(?=^\s*(?:Reviewed By|Differential Revision|Rollback Plan|cc )|\Z)", re.M | re.S
)
# Issue-template prompts kept as plain lines: "1) What is the root cause problem".
TEMPLATE_PROMPT = re.compile(
    r"^[ \t]*\d+[.)][ \t]*(?:what|why|how|who|when|where|is|are|does|do|did)\b[^.!?\n]*$", re.I | re.M
)
# Sentences that are no statement about the item: questions (template prompts among them), requests
# to review bots, checklist items, stack-trace lines.
NOT_A_STATEMENT = re.compile(
    r"\?\W*$|@\w*(?:claude|copilot|codex|gemini|bot)\b|^\[[ xX]\]|^File \"|^Traceback\b|, line \d+, in \w|"
    r"^\s*at [\w.$]+\(",
    re.I,
)
# A full stop ends a sentence unless it closes a common abbreviation ("e.g.", "i.e.", "vs.").
SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bcf\.)(?<!\bapprox\.)(?<!\bNo\.)"
    r"\s+(?=[A-Z`\"'(\[])|\n\s*\n|\n(?=\s*(?:[-*]|\d+[.)])\s)"
)
# Markdown bold markers; `__` is left alone, since it belongs to names such as __torch_dispatch__.
EMPHASIS = re.compile(r"\*\*")
EMOJI = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF]\s*")
MAX_SENTENCE = 400


@dataclass(frozen=True)
class Body:
    sections: dict[str, str]  # lower-cased heading (emoji removed) -> raw text under it; "" = before any heading
    code_blocks: list[str]


def parse_body(text: str | None) -> Body:
    text = text or ""
    sections: dict[str, str] = {}
    headings = list(HEADING.finditer(text))
    sections[""] = text[: headings[0].start()] if headings else text
    for index, heading in enumerate(headings):
        end = headings[index + 1].start() if index + 1 < len(headings) else len(text)
        name = EMOJI.sub("", heading.group(1)).strip().lower().rstrip(":")
        sections.setdefault(name, text[heading.end() : end])
    return Body(sections, [block.strip() for block in FENCE.findall(text)])


def prose(text: str) -> str:
    """Text a person wrote, without code blocks, images, HTML tags, ghstack and cc boilerplate."""
    text = FENCE.sub("\n\n", text)
    text = TEST_PLAN.sub("\n\n", text)
    text = SUMMARY_PREFIX.sub("", text)
    text = TEMPLATE_PROMPT.sub("\n", text)
    text = BOILERPLATE.sub("", text)
    text = IMAGE.sub(" ", text)
    text = HTML_TAG.sub(" ", text)
    text = LINK.sub(r"\1", text)
    text = HEADING.sub("\n\n", text)
    text = EMPHASIS.sub("", text)
    return re.sub(r"[ \t]+", " ", text).strip()


def shorten(text: str, limit: int) -> str:
    """`text` cut at a word boundary to at most `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def sentences(text: str) -> list[str]:
    """Sentences (and list items) of prose, whitespace folded, empty ones dropped."""
    found = []
    for part in SENTENCE_END.split(prose(text)):
        sentence = " ".join(part.split()).lstrip("-* ").strip()
        if len(sentence) >= 12 and any(ch.isalpha() for ch in sentence) and not NOT_A_STATEMENT.search(sentence):
            found.append(shorten(sentence, MAX_SENTENCE))
    return found


def section(body: Body, *names: str) -> str:
    """The first section whose heading contains one of `names`."""
    for name in names:
        for heading, text in body.sections.items():
            if heading and name in heading:
                return text
    return ""
