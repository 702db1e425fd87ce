"""A lead-in and the list it introduces, quoted together: "The same code runs correctly with:" says
nothing until its list is read."""

from __future__ import annotations

import re

from pytorch_insight.text import lead_in, prose

LIST_ITEM = re.compile(r"^[ \t]*+(?:[-*+]|\d++[.)])[ \t].*$", re.M)
# A line ending in ":" and the list right below it.
LEAD_IN_LIST = re.compile(r":[ \t]*\n(?:[ \t]*\n)*+((?:[ \t]*+(?:[-*+]|\d++[.)])[ \t].*(?:\n|$))+)")
LIST_SUMMARY_ITEMS = 6
LEAD_TAIL = 20  # the last characters of a lead-in sentence that find its line in the text
BULLET = re.compile(r"^(?:[-*+]|\d+[.)])\s*")


def with_its_list(chosen: list[str], text: str) -> list[str]:
    """A lead-in that ends in ":" keeps the list it introduces, whole: cut to the items long enough
    to quote, it drops conditions and reads as a broader claim ("aborts when: <one of four
    conditions>"). A list too long to quote is said to go on."""
    lead = chosen[0]
    if not lead_in(lead):
        return chosen
    for block in LEAD_IN_LIST.finditer(text):
        line = text[text.rfind("\n", 0, block.start()) + 1 : block.start() + 1]
        if not " ".join(prose(line).split()).endswith(lead[-LEAD_TAIL:]):
            continue  # another lead-in's list (a ghstack's, say)
        items = [BULLET.sub("", " ".join(prose(item).split())) for item in LIST_ITEM.findall(block.group(1))]
        items = [item for item in items if item]
        if items:
            listed = "; ".join(items[:LIST_SUMMARY_ITEMS]) + ("; …" if len(items) > LIST_SUMMARY_ITEMS else "")
            return [f"{lead} {listed}"]
    return chosen


def without_lists_after(text: str, lead: re.Pattern[str]) -> str:
    """`text` with each list blanked whose lead-in line (the line ending in ":") `lead` finds in."""
    kept, end = [], 0
    for block in LEAD_IN_LIST.finditer(text):
        line = text[text.rfind("\n", 0, block.start()) + 1 : block.start()]
        if lead.search(line):
            kept.append(text[end : block.start(1)])
            end = block.end(1)
    return "".join(kept) + text[end:] if kept else text
