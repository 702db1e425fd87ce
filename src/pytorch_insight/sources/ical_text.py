"""Published calendars are often not quite iCalendar: a stray line a script printed, an event that
never ends, two calendars pasted into one file. The parser refuses the whole document for any of
these, so the text is mended line by line first and each mended line is named in the note."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A content line starts with a property name and then its parameters (`;`) or its value (`:`).
CONTENT_LINE = re.compile(r"[A-Za-z0-9-]+[;:]")
NAMED = 3  # the note names this many mended lines, then counts the rest
QUOTED = 40  # characters of a dropped line quoted in the note


@dataclass
class MendedCalendar:
    text: str
    problems: list[str] = field(default_factory=list)
    components: int = 0  # BEGIN lines kept: none means the document is no calendar at all

    def note(self) -> list[str]:
        if not self.problems:
            return []
        named = "; ".join(self.problems[:NAMED])
        more = f" and {len(self.problems) - NAMED} more" if len(self.problems) > NAMED else ""
        plural = "s" if len(self.problems) > 1 else ""
        return [f"{len(self.problems)} malformed calendar line{plural} skipped or mended: {named}{more}"]


def unfold(text: str) -> list[tuple[int, str]]:
    """The logical lines (RFC 5545 folding undone) with the number of their first physical line."""
    logical: list[tuple[int, str]] = []
    for number, line in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        if line[:1] in (" ", "\t") and logical:
            logical[-1] = (logical[-1][0], logical[-1][1] + line[1:])
        elif line.strip():
            logical.append((number, line))
    return logical


def mend_calendar(text: str) -> MendedCalendar:
    """`text` with what is not a content line dropped, an END without its BEGIN dropped, an event
    left open closed where the next one begins, and every component closed at the end."""
    mended = MendedCalendar("")
    out: list[str] = []
    stack: list[str] = []
    for number, line in unfold(text):
        if not CONTENT_LINE.match(line):
            mended.problems.append(f"line {number} ({line[:QUOTED]!r}) is no content line")
            continue
        name, _, value = line.partition(":")
        key, value = name.split(";", 1)[0].upper(), value.strip().upper()
        if key == "BEGIN":
            if value in ("VEVENT", "VCALENDAR") and value in stack:
                mended.problems.append(f"line {number}: BEGIN:{value} inside an open {value}, which is closed")
                out += _close(stack, until=value)
            stack.append(value)
            mended.components += 1
        elif key == "END":
            if value not in stack:
                mended.problems.append(f"line {number}: END:{value} without its BEGIN")
                continue
            ends = _close(stack, until=value)
            if len(ends) > 1:
                mended.problems.append(f"line {number}: END:{value} closes {', '.join(e[4:] for e in ends[:-1])} too")
            out += ends[:-1]  # the components left open inside it; the END itself follows
        elif not stack:
            mended.problems.append(f"line {number}: {key} outside any component")
            continue
        out.append(line)
    if stack:
        mended.problems.append(f"the document ends inside {', '.join(stack)}, which is closed")
        out += _close(stack, until=stack[0])
    mended.text = "\r\n".join(out) + "\r\n"
    return mended


def _close(stack: list[str], until: str) -> list[str]:
    """END lines for the open components down to and including `until`, popped from `stack`."""
    ends = []
    while stack:
        name = stack.pop()
        ends.append(f"END:{name}")
        if name == until:
            break
    return ends
