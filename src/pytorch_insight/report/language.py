"""How much of a report's own text is in the report's language.

A Chinese report quotes English sources and keeps technical names (Inductor, FSDP2, H100,
`torch.compile`) as they are; what it writes itself must be Chinese. This measures that: quotations,
code, links, URLs, item references, headings (item titles) and names (words with a capital,
a digit, an underscore, a dot or a slash) are set aside, and the letters left are counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A name is a run of Latin characters: it ends at a quotation mark or a CJK character, so "原文称“Foo"
# neither hides the report's own words nor opens a quote the name swallowed.
NAME_CHAR = r"[^\s“”‘’\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]"
SET_ASIDE = re.compile(
    r"“[^”\n]*”|‘[^’\n]*’|`[^`\n]*`|\[[^\]\n]*\]\([^)\n]*\)|https?://\S+|"
    r"[\w.-]+/[\w.-]+#\d+|#\d+|@[\w-]+|{name}*[A-Z0-9_./\\+\-]{name}*".format(name=NAME_CHAR)
)
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
LATIN = re.compile(r"[a-z]")
# Sections of the Markdown report that hold the report's own prose: overview, focus, people.
OWN_SECTIONS = re.compile(r"^## [124]\. .*?(?=^## |\Z)", re.M | re.S)


@dataclass(frozen=True)
class LanguageShare:
    native: int  # letters of the report's language
    foreign: int  # other letters the report wrote itself

    @property
    def share(self) -> float:
        total = self.native + self.foreign
        return self.native / total if total else 1.0


def own_text(markdown: str) -> str:
    """The report's own prose: its overview, focus and people sections, headings left out."""
    parts = OWN_SECTIONS.findall(markdown)
    lines = [line for part in parts for line in part.splitlines() if not line.lstrip().startswith("#")]
    return SET_ASIDE.sub(" ", "\n".join(lines))


def chinese_share(markdown: str) -> LanguageShare:
    text = own_text(markdown)
    return LanguageShare(len(CJK.findall(text)), len(LATIN.findall(text)))
