"""The log a lead-in announces: "I get the following error:" over a fenced log is quoted with the line
of that log that names the error, so the quote does not end on a colon that points at nothing."""

from __future__ import annotations

import re

from pytorch_insight.text import FENCE, bounded, lead_in, shorten

# The line of a log that names what went wrong: an exception with its message, or the signal a
# process died of. Its runs are bounded: a line that is one 64k-character word is tried once.
ERROR_LINE = re.compile(
    r"^[ \t]*+((?:[A-Za-z_][\w.]{0,120}\.)?[A-Z]\w{0,60}(?:Error|Exception)\b(?::[ \t]*+\S[^\n]*)?|"
    # a module's own exception class: "torch._dynamo.exc.Unsupported: dynamic shape operator: ..."
    r"(?:[A-Za-z_]\w{0,40}\.){1,8}[A-Z]\w{0,60}(?<!Warning):[ \t]*+\S[^\n]*|"
    r"(?:Segmentation fault|Illegal instruction|Floating point exception|Bus error|Aborted)\b[^\n]*)$",
    re.M,
)
# "Installed from pip (this is the expected behavior):", "With this PR:": the log shows what is right
# or what a change makes happen, not what goes wrong.
WANTED_LOG = re.compile(
    r"\b(?:expect\w*|should|correct\w*|works?|worked|working|fine|desired|intended|reference|"
    r"(?:after|with) (?:this|the) (?:pr|change|fix|patch|diff))\b",
    re.I,
)
LEAD_IN_WORDS = 4  # the last words of a lead-in that find it again in the body's raw text
ERROR_LINE_LIMIT = 160


def _last_words(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\w+", text[-200:].lower())[-LEAD_IN_WORDS:])


def announced_errors(sentences_read: list[str], text: str) -> list[tuple[str, str]]:
    """(sentence, error) for each of `sentences_read`: a lead-in that announces a log ("I get the
    following error:") run on into the line of the log that names the error, both verbatim and the
    log between them marked cut (a quote of the lead-in alone cuts away what it announces), with
    that line; else the sentence and ""."""
    text = bounded(text)
    if "```" not in text:
        return [(sentence, "") for sentence in sentences_read]
    announced: dict[tuple[str, ...], str] = {}
    for block in FENCE.finditer(text):
        before = text[max(0, block.start() - 400) : block.start()].rstrip()
        lead = before[before.rfind("\n") + 1 :]
        errors = ERROR_LINE.findall(block.group("code"))
        # "**Error:**" leads in as "Error:" does
        if lead_in(lead.rstrip("*_` \t")) and errors and not WANTED_LOG.search(lead):
            announced.setdefault(_last_words(lead), shorten(" ".join(errors[-1].split()), ERROR_LINE_LIMIT))
    found = []
    for sentence in sentences_read:
        error = announced.get(_last_words(sentence), "") if announced and lead_in(sentence) else ""
        found.append((f"{sentence} … {error}" if error else sentence, error))  # "…": the log cut away
    return found
