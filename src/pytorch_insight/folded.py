"""Case-blind patterns searched as case-sensitive ones, in lower-cased ASCII text.

The engine tries a case-blind alternation of words (a profile's hardware or downstream users) at
every position, entering each alternative in turn: a case-sensitive one turns an alternative away
by its first character. For an ASCII text, lower-casing it changes no position, so the same pattern
rewritten for lower-case text (each literal and class as the set of lower-case ASCII characters it
matches) finds the same spans there. A text with other characters is searched as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The parser `re` compiles with (see guard.py); a pattern holding what this does not rewrite is
# searched as it is.
from re import _constants as sre
from re import _parser as sre_parse

ASCII = [chr(code) for code in range(128)]
CATEGORIES = {
    sre.CATEGORY_DIGIT: r"\d",
    sre.CATEGORY_NOT_DIGIT: r"\D",
    sre.CATEGORY_SPACE: r"\s",
    sre.CATEGORY_NOT_SPACE: r"\S",
    sre.CATEGORY_WORD: r"\w",
    sre.CATEGORY_NOT_WORD: r"\W",
}
ANCHORS = {
    sre.AT_BEGINNING: "^",
    sre.AT_BEGINNING_STRING: r"\A",
    sre.AT_BOUNDARY: r"\b",
    sre.AT_NON_BOUNDARY: r"\B",
    sre.AT_END: "$",
    sre.AT_END_STRING: r"\Z",
}
REPEATS = {sre.MAX_REPEAT: "", sre.MIN_REPEAT: "?", sre.POSSESSIVE_REPEAT: "+"}


class Unsupported(Exception):
    """A part of a pattern this module does not rewrite."""


@dataclass(frozen=True)
class CaseBlind:
    """A case-blind pattern, and its rewriting for lower-cased ASCII text when there is one."""

    pattern: re.Pattern[str]
    lowered: re.Pattern[str] | None

    def search(self, text: str, lowered: str | None = None, start: int = 0) -> tuple[int, str] | None:
        """Where the pattern's first match in `text` from `start` begins, and its words as `text`
        writes them (`lowered`: text.lower(), if at hand)."""
        if self.lowered is not None and text.isascii():
            found = self.lowered.search(lowered if lowered is not None else text.lower(), start)
            return (found.start(), text[found.start() : found.end()]) if found else None
        match = self.pattern.search(text, start)
        return (match.start(), match.group(0)) if match else None


def case_blind(pattern: re.Pattern[str]) -> CaseBlind:
    if not pattern.flags & re.IGNORECASE:
        raise ValueError(f"{pattern.pattern!r} is not case-blind")
    try:
        written = _written(sre_parse.parse(pattern.pattern, pattern.flags), pattern.flags)
        lowered = re.compile(written, pattern.flags & ~(re.IGNORECASE | re.VERBOSE))
    except (Unsupported, re.error):
        lowered = None
    return CaseBlind(pattern, lowered)


def _written(nodes: sre_parse.SubPattern | list, flags: int) -> str:
    """The nodes as a pattern for lower-cased ASCII text, case-sensitive."""
    return "".join(_node(op, value, flags) for op, value in nodes)


def _node(op: object, value: object, flags: int) -> str:  # noqa: C901 - one branch per kind of node
    if op in (sre.LITERAL, sre.NOT_LITERAL, sre.IN):
        return _characters(_single(op, value), flags)
    if op is sre.ANY:
        return "."
    if op is sre.AT and value in ANCHORS:
        return ANCHORS[value]
    if op is sre.BRANCH:
        return "(?:" + "|".join(_written(branch, flags) for branch in value[1]) + ")"  # type: ignore[index]
    if op is sre.SUBPATTERN:
        group, add, remove, inner = value  # type: ignore[misc]
        if (add | remove) & re.IGNORECASE:
            raise Unsupported("a group that turns case folding on or off")
        return ("(" if group is not None else "(?:") + _written(inner, flags) + ")"
    if op in REPEATS:
        low, high, inner = value  # type: ignore[misc]
        bounds = f"{{{low},}}" if high is sre.MAXREPEAT else f"{{{low},{high}}}"
        return "(?:" + _written(inner, flags) + ")" + bounds + REPEATS[op]
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        direction, inner = value  # type: ignore[misc]
        kind = ("=" if op is sre.ASSERT else "!") if direction == 1 else ("<=" if op is sre.ASSERT else "<!")
        return f"(?{kind}" + _written(inner, flags) + ")"
    if op is sre.ATOMIC_GROUP:
        return "(?>" + _written(value, flags) + ")"  # type: ignore[arg-type]
    if op is sre.GROUPREF:
        return f"(?:\\{value})"  # both sides of a back reference are lower-cased alike
    raise Unsupported(str(op))


def _single(op: object, value: object) -> str:
    """One character's node as a pattern of its own, as written."""
    if op is sre.LITERAL:
        return re.escape(chr(value))  # type: ignore[arg-type]
    if op is sre.NOT_LITERAL:
        return "[^" + re.escape(chr(value)) + "]"  # type: ignore[arg-type]
    parts = []
    for kind, item in value:  # type: ignore[attr-defined]
        if kind is sre.NEGATE:
            parts.append("^")
        elif kind is sre.LITERAL:
            parts.append(re.escape(chr(item)))
        elif kind is sre.RANGE:
            parts.append(re.escape(chr(item[0])) + "-" + re.escape(chr(item[1])))
        elif kind is sre.CATEGORY and item in CATEGORIES:
            parts.append(CATEGORIES[item])
        else:
            raise Unsupported(str(kind))
    return "[" + "".join(parts) + "]"


def _characters(single: str, flags: int) -> str:
    """The lower-case ASCII characters `single` matches with the pattern's flags, as a class."""
    node = re.compile(single, flags)
    found = [char for char in ASCII if not char.isupper() and node.fullmatch(char)]
    if not found:
        return "(?!)"  # nothing in a lower-cased ASCII text
    return re.escape(found[0]) if len(found) == 1 else "[" + "".join(map(re.escape, found)) + "]"
