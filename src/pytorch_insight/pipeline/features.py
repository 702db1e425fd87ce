"""Text features extracted once per item and shared by every later stage.

Everything here is a pure function of one item, so the stages that use it stay linear in the
number of items.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from sys import intern

from pytorch_insight.guard import guard
from pytorch_insight.model import Item
from pytorch_insight.pickling import by_fields
from pytorch_insight.text import FENCE

WORD = re.compile(r"[a-z0-9][a-z0-9_.+\-]*[a-z0-9+]|[a-z0-9]")
# A title's words keep a leading underscore: "torch/_export" and "torch/export" name two modules.
TITLE_WORD = re.compile(r"_*[a-z0-9][a-z0-9_.+\-]*[a-z0-9+]|_*[a-z0-9]")
# An environment report pasted without a code fence ("Collecting environment information...",
# "PyTorch version: 2.8.0", "ROCM used to build PyTorch: N/A") names every platform the tool asks
# about, used or not: it is cut up to the next heading, so no area or word is read from it.
ENVIRONMENT = re.compile(
    r"^[ \t]*+(?:collecting environment information|pytorch version:)[^\n]*+(?:\n(?![ \t]*+#{1,6}[ \t])[^\n]*+)*+",
    re.M | re.I,
)
CC_LINE = re.compile(r"^[ \t]*cc:?[ \t]+(@[^\n]*)$", re.M | re.I)
HANDLE = re.compile(r"@([\w.-]+(?:/[\w.-]+)?)")
GHSTACK = re.compile(r"^[ \t]*+\*[ \t]++(?:__->__[ \t]++)?#(\d+)[ \t]*+$", re.M)
TITLE_TAG = re.compile(r"\[([^\]]{1,40})\]")
TAG_PARTS = re.compile(r"[-/,+ ]+")
# "GrommetFsdp": a lower-case letter followed by a capital joins two words.
CAMEL_JOINT = re.compile(r"(?<=[a-z])(?=[A-Z])")
NUMBER_SUFFIX = re.compile(r"(?<!\s)\s*+\(#\d*+(?:…|\.\.\.)?\)?\s*+$")  # "(#180916)", or cut short: "(#180…"
# Identifiers that can tie two items together: dotted API paths, snake_case names and CamelCase
# class names (torch.nn.functional.pad, flex_attention, CUDACachingAllocator), in one pass. Each
# starts with a letter after a non-word character, which the pattern takes (the text is searched
# with a space before it): a pattern that starts with a character set skips ahead to the next
# candidate, one that starts with `\b` tries every position. No run is given back (`*+`), since
# what follows it could never match what it gave back.
IDENTIFIER = re.compile(
    r"[^\w#](torch(?:\.[A-Za-z_]\w*+){2,}|[A-Za-z][A-Za-z0-9]*+(?:_[A-Za-z0-9]++){1,6}"
    r"|[A-Z][a-z0-9]*+[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*+|[A-Z]{2,}[a-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*+)\b"
)
BODY_LIMIT = 4000
EMPTY: frozenset[str] = frozenset()


@by_fields
@dataclass(slots=True)
class Features:
    text: str  # lower-cased title + body, code blocks and cc lines removed
    title: str  # lower-cased title
    labels: frozenset[str]  # lower-cased labels
    words: frozenset[str]
    title_words: frozenset[str]
    tags: frozenset[str]  # lower-cased bracket tags of the title: "inductor", "rfc" ...
    owners: frozenset[str]  # lower-cased handles from `cc @...` lines
    stack: tuple[int, ...]  # ghstack members listed in the body, this item included
    identifiers: frozenset[str] = field(default_factory=frozenset)
    participants: int = 0

    def for_linking(self) -> Features:
        """Only what fuse and link compare across items (ghstack lists, identifiers): the text and
        word sets are read per item (areas, signals) and would be most of a window's memory."""
        return Features("", "", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, self.stack, self.identifiers, self.participants)


def normalize_title(title: str | None) -> str:
    """A title reduced to its words, for spotting the same change submitted twice."""
    # The suffix pattern starts with a lookbehind, tried at every position: most titles have none.
    text = (NUMBER_SUFFIX.sub("", title) if title and "(#" in title else title or "").lower()
    return " ".join(TITLE_WORD.findall(text))


def title_tags(title: str) -> frozenset[str]:
    """Bracket tags, lower-cased, with the parts of compound ones: "[dtensor-compile]" also
    counts as "dtensor" and "compile", "[GrommetFsdp]" as "grommet" and "fsdp"."""
    tags = set()
    for written in TITLE_TAG.findall(title):
        tag = written.strip().lower()
        tags.add(tag)
        tags.update(part.lower() for part in TAG_PARTS.split(CAMEL_JOINT.sub(" ", written.strip())) if part)
    return frozenset(tags)


def extract_features(item: Item) -> Features:
    title = item.title or ""
    title_lower = title.lower()
    described = _described((item.body or "")[:BODY_LIMIT])
    author = (item.author or "").lower()  # logins are case-blind
    participants = len({c.author.lower() for c in item.comments if c.author and c.author.lower() != author})
    # No word or identifier runs across the line break between the title and the description, and
    # lower-casing keeps it as a boundary: the title's part and the description's join as read whole.
    identifiers = described.identifiers | _identifiers(" " + title)
    title_words = frozenset(map(intern, WORD.findall(title_lower)))
    return Features(
        text=f"{title_lower}\n{described.text}",
        title=title_lower,
        labels=frozenset(label.lower() for label in item.labels),
        words=described.words | title_words,
        title_words=title_words,
        tags=title_tags(title),
        owners=described.owners,
        stack=described.stack,
        identifiers=identifiers,
        participants=participants,
    )


@dataclass(frozen=True, slots=True)
class _Description:
    text: str  # lower-cased, code blocks and cc lines removed
    words: frozenset[str]
    identifiers: frozenset[str]
    owners: frozenset[str]  # lower-cased handles from `cc @...` lines
    stack: tuple[int, ...]  # ghstack members listed


# A window repeats descriptions (a commit carries its PR's, a bot posts one template, a cherry-pick
# copies its original's): each distinct one (cut at BODY_LIMIT) is read once.
@lru_cache(maxsize=512)
def _described(body: str) -> _Description:
    prose = FENCE.sub(" ", body)
    if guard(ENVIRONMENT).may_match(prose):
        prose = ENVIRONMENT.sub(" ", prose)
    owners: frozenset[str] = frozenset()
    # A cc line names someone: without an "@" there is none to read or remove.
    if "@" in prose and "cc" in prose.lower():
        lines: list[str] = []

        def read(line: re.Match[str]) -> str:  # each cc line read and removed in one pass
            lines.append(line.group(1))
            return " "

        prose = CC_LINE.sub(read, prose)
        owners = frozenset(handle.lower() for line in lines for handle in HANDLE.findall(line))
    text = prose.lower()
    return _Description(
        text=text,
        # One string per distinct word for the whole window, not one per item that uses it: a text
        # says most of its words more than once, and each is interned once.
        words=frozenset(map(intern, set(WORD.findall(text)))),
        identifiers=_identifiers("\n" + prose),
        owners=owners,
        stack=tuple(int(number) for number in GHSTACK.findall(body)) if "ghstack" in body else (),
    )


def _identifiers(text: str) -> frozenset[str]:
    """The identifiers of `text`, which starts with the non-word character the pattern takes."""
    return frozenset(
        token
        for token in IDENTIFIER.findall(text)
        if len(token) >= 6 and not token.lower().startswith(("test_", "http"))
    )


class KeywordSet:
    """Whole words (``fsdp``), phrases (``graph break``) and prefixes (``recompil*``), matched on
    the features' word sets and lower-cased text: far cheaper than one regular expression each."""

    def __init__(self, keywords: list[str]) -> None:
        lowered = [keyword.lower() for keyword in keywords]
        # A phrase is matched as a substring, so a trailing "*" on a phrase changes nothing.
        self.prefixes = tuple(k[:-1] for k in lowered if k.endswith("*") and " " not in k)
        plain = [k.rstrip("*") for k in lowered if not (k.endswith("*") and " " not in k)]
        self.words = frozenset(k for k in plain if " " not in k)
        self.phrases = tuple(k for k in plain if " " in k)

    def __bool__(self) -> bool:
        return bool(self.words or self.phrases or self.prefixes)

    def matches(self, words: frozenset[str], text: str) -> bool:
        return bool(
            not self.words.isdisjoint(words)
            or any(phrase in text for phrase in self.phrases)
            or (self.prefixes and any(word.startswith(self.prefixes) for word in words))
        )

    def find(self, words: frozenset[str], text: str) -> list[str]:
        """The keywords present, in a stable order: words, then phrases, then prefixed words (a word
        that is a keyword and has a keyword prefix is one hit, not two)."""
        exact = self.words & words
        found = sorted(exact) + [phrase for phrase in self.phrases if phrase in text]
        if self.prefixes:
            found += sorted(word for word in words - exact if word.startswith(self.prefixes))
        return found

    def found(self, words: frozenset[str], phrases: frozenset[str], prefixed: list[str]) -> list[str]:
        """`find` from what a caller already looked up for several sets at once: the words and
        phrases of the item among theirs, and its words with one of their prefixes, sorted."""
        exact = self.words & words
        hits = sorted(exact)
        if phrases:
            hits += [phrase for phrase in self.phrases if phrase in phrases]
        if self.prefixes and prefixed:
            hits += [word for word in prefixed if word.startswith(self.prefixes) and word not in exact]
        return hits
