"""The sentence-role corpus: sentences that their authors placed under a role heading or lead-in
("Root cause", "Workaround:", "Expected behavior" ...), labelled with that role, the heading itself
left out so a model learns what such a sentence says, not how it is introduced.

Used at training time only (`python -m pytorch_insight.learn.role_model`); the analysis reads the
fitted model through `analysis/roles.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pytorch_insight.headings import ROLE_HEADINGS, ROLE_OF
from pytorch_insight.text import EMOJI, LETTER, sentences

ROLES = tuple(ROLE_HEADINGS)
# Lines that end a section without starting a labelled one: trailers of exported PRs and commits.
TRAILERS = (
    "differential revision",
    "pull request resolved",
    "reviewed by",
    "approved by",
    "ghstack-source-id",
    "co-authored-by",
    "signed-off-by",
    "rollback plan",
    "reviewers",
    "subscribers",
    "tasks",
    "tags",
    "cc",
    "output",
    "result",
    "results",
    "notes",
    "note",
)
MARKDOWN_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]*(?P<name>[^\n]*?)[ \t#]*$")
# "**Root cause**", "**Root cause:** the text ...": a bold lead-in, the text after it in the section.
BOLD_HEADING = re.compile(r"^[ \t]{0,3}\*\*(?P<name>[^*\n]{1,40}?)[ \t]*:?[ \t]*\*\*[ \t]*:?[ \t]*(?P<rest>.*)$")
# "Root cause: the text ...": a plain lead-in, only for a known name (any line may begin "Word:").
PLAIN_LEAD = re.compile(r"^[ \t]{0,3}(?P<name>[A-Za-z][A-Za-z ,;/-]{0,40}?)[ \t]*:[ \t]*(?P<rest>.*)$")
# Lead-ins inside a paragraph ("As a workaround, set ..."; "The root cause is that ..."): the
# sentence is labelled and the lead-in cut off, as a heading is.
INLINE_LEADS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "workaround",
        re.compile(
            r"^(?:as an? (?:temporary |quick |simple )?work-?around\b|(?:a|the|one|possible|current|my|our) "
            r"(?:temporary |quick |simple |possible )?work-?around (?:is|was|would be|for now is)(?: to)?\b|"
            r"(?:temporary )?work-?around:)[\s,:]*",
            re.I,
        ),
    ),
    (
        "cause",
        re.compile(
            r"^(?:the (?:root )?cause (?:is|was)(?: that)?\b|root cause:|the reason (?:is|was) that\b|"
            r"this (?:is|was) caused by\b|"
            r"the (?:underlying|real|actual) (?:issue|problem|cause) (?:is|was)(?: that)?\b)"
            r"[\s,:]*",
            re.I,
        ),
    ),
    ("impact", re.compile(r"^impact:\s*", re.I)),
)
MIN_WORDS = 4
PER_THREAD = 6  # sentences a thread gives one role: one long PR does not make the role its own


def heading_role(name: str) -> str | None:
    """The role a heading names, None for a heading of no role."""
    return ROLE_OF.get(EMOJI.sub("", name).strip().strip("*_").strip().lower().rstrip(":").strip())


def _boundary(line: str) -> tuple[str | None, str, bool] | None:
    """(role, heading, text after it) when `line` starts a section, else None; a known trailer or
    any other heading starts a section of no role (None)."""
    for pattern in (MARKDOWN_HEADING, BOLD_HEADING):
        match = pattern.match(line)
        if match:
            name = match.group("name")
            return heading_role(name), name.strip(), match.groupdict().get("rest") or ""  # type: ignore[return-value]
    match = PLAIN_LEAD.match(line)
    if match:
        name = match.group("name").strip().lower()
        if name in ROLE_OF or name in TRAILERS:
            return ROLE_OF.get(name), match.group("name").strip(), match.group("rest")  # type: ignore[return-value]
    return None


def role_sections(text: str) -> list[tuple[str, str, str]]:
    """(role, heading, section text) for every section of `text` under a role heading or lead-in,
    in order; code fences are kept whole (a `# comment` inside one is no heading)."""
    found: list[tuple[str, str, str]] = []
    role: str | None = None
    heading, lines, fenced = "", [], False

    def close() -> None:
        if role and any(line.strip() for line in lines):
            found.append((role, heading, "\n".join(lines)))

    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        boundary = None if fenced else _boundary(line)
        if boundary is None:
            lines.append(line)
            continue
        close()
        role, heading, rest = boundary  # type: ignore[assignment]
        lines = [rest] if rest.strip() else []
    close()
    return found


def labelled_sentences(text: str) -> Iterator[tuple[str, str, str]]:
    """(role, heading, sentence) for the statements under role headings: prose sentences of at
    least MIN_WORDS words, at most PER_THREAD a role, laid-out code left out."""
    counts: dict[str, int] = {}
    led = inline_leads(sentences(text))  # a lead-in names the role of its own sentence, whatever the heading
    whole = {sentence for _, _, _, sentence in led}
    found = [(role, lead, rest) for role, lead, rest, _ in led] + [
        (role, heading, sentence)
        for role, heading, section in role_sections(text)
        for sentence in sentences(section)
        if sentence not in whole
    ]
    seen: set[str] = set()
    for role, heading, sentence in found:
        if "\n" in sentence or len([w for w in sentence.split() if LETTER.search(w)]) < MIN_WORDS:
            continue
        if counts.get(role, 0) >= PER_THREAD or sentence in seen:
            continue
        counts[role] = counts.get(role, 0) + 1
        seen.add(sentence)
        yield role, heading, sentence


def inline_leads(found: Iterable[str]) -> list[tuple[str, str, str, str]]:
    """(role, lead-in, the sentence after it, the whole sentence) for the sentences that open with a
    role's lead-in."""
    labelled = []
    for sentence in found:
        for role, lead in INLINE_LEADS:
            match = lead.match(sentence)
            if match and sentence[match.end() :].strip():
                labelled.append((role, match.group(0).strip(" ,:"), sentence[match.end() :].strip(), sentence))
                break
    return labelled


@dataclass(frozen=True, slots=True)
class RoleSentence:
    role: str
    text: str
    thread: str  # owner/name#number: the unit the evaluation splits by
    url: str
    heading: str


def read_role_corpus(paths: Iterable[Path]) -> list[RoleSentence]:
    """Every labelled sentence of the files, once per (thread, sentence)."""
    found: dict[tuple[str, str], RoleSentence] = {}
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                data = json.loads(line)
                if data.get("role") not in ROLES or not isinstance(data.get("text"), str):
                    continue
                record = RoleSentence(
                    data["role"], data["text"], data["thread"], data.get("url", ""), data.get("heading", "")
                )
                found.setdefault((record.thread, record.text), record)
    return list(found.values())


def write_role_corpus(records: Iterable[RoleSentence], path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(
                json.dumps(
                    {
                        "role": record.role,
                        "text": record.text,
                        "thread": record.thread,
                        "url": record.url,
                        "heading": record.heading,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            count += 1
    return count
