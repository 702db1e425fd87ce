"""What a text says of the items it names: the issues a change fixes ("Fixes #N", "closes o/r#N",
an issue URL on a line of its own or after words that say so, the issue number its title ends with),
and the words that make a named item no fix of it (related, hedged, the problem's origin, a lead-in
such as "Related issue:")."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

from pytorch_insight.guard import guard
from pytorch_insight.model import Item, github_item_id
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.text import in_code_block, shorten

# "Fixes #N", "closes o/r#N", "Fixes <issue URL>", "Partial fix of <url>", "fix for #N", and the
# keyword set in bold ("**Fixes**: #N", "**Fixes:** #N"). The lookahead of the possible first letters
# (`(?=[fcra])`, which the words imply) lets the engine skip to them: a pattern led by `\b` is
# otherwise tried at every character of a description, most of the link stage's time.
CLOSING = re.compile(
    r"(?=[fcra])\b(?:fix(?:es|ed|s)?|close[sd]?|resolve[sd]?|address(?:es|ed)?)\b(?:\*\*)?\s*:?(?:\*\*)?\s*(?:(?:of|for)\s+)?",
    re.I,
)
# What Markdown or a slip puts between a closing word and its reference: a link's text ("Fixes
# [issue](<url>)", "Fixes [#N](<url>)": the URL is the target) or a stray "#" before a URL.
LINK_WRAP = re.compile(r"\[[^\]\n]{0,40}\]\(|#(?=https?://)")
# Weaker forms, read as a fix only in a change that presents itself as a fix: "(Issue #N)",
# "referencing #N", "for #N", "issue: #N". (The lookahead: as in CLOSING.)
FIX_MENTION = re.compile(
    r"(?=[(irf])(?:\(\s*|\b)(?:issue|referenc(?:es|ing)|for)\b\s*:?\s*(?=#\d|https?://github\.com/)", re.I
)
# "This was introduced by the commit in issue #N", "a regression caused by #N": the weak form
# names where the problem came from, not what the change fixes.
ORIGIN_LEAD = re.compile(r"\b(?:introduced|caused|regressed|broken|broke)\b(?:\W+\w+){0,4}\W*$", re.I)
ORIGIN_REACH = 60
# "Similar to the existing workaround for issue #N": the weak form after a comparison on its line
# names another problem the change resembles, not one it fixes.
COMPARED_LEAD = re.compile(r"\b(?:similar|same as|existing|prior|previous|earlier)\b[^\n.]*$", re.I)
WEAK_NOT_FIX = re.compile(f"{ORIGIN_LEAD.pattern}|{COMPARED_LEAD.pattern}", re.I)
# A repository's name is tried only where a run of its characters starts (`(?<![\w.-])`): the leftmost
# match is the same, and each run is scanned once, not once from each of its characters (quadratic
# in a long run; on ordinary descriptions the pass takes half the time).
REFERENCE = re.compile(
    r"(?:(?<![\w.-])(?P<repo>[\w.-]+/[\w.-]+)#(?P<n1>\d+)|#(?P<n2>\d+)|"
    r"https?://github\.com/(?P<urepo>[\w.-]+/[\w.-]+)/(?P<path>issues|pull)/(?P<n3>\d+))"
)
# Between the references of one closing keyword: a comma, "and", blanks; never a line break (a
# reference that opens the next line or paragraph starts a sentence of its own).
REFERENCE_GAP = re.compile(r"[ \t]*(?:,|and|&)?[ \t]*", re.I)
PARTIAL_WORD = re.compile(r"\bpartial(?:ly)?\b", re.I)
PARTIAL = re.compile(rf"{PARTIAL_WORD.pattern}\s+$", re.I)  # the word just before a closing keyword
PARTIAL_REACH = 12
# "Resolves #1. May also resolve #2": a hedged closing word names what the change might fix.
HEDGE_WORDS = r"\b(?:may|might|could|possibly|potentially)\s+(?:also\s+)?"
HEDGE = re.compile(rf"{HEDGE_WORDS}$", re.I)
HEDGE_REACH = 24
# "May also resolve <issue URL>": the same hedge before an issue URL.
HEDGED_LINE = re.compile(rf"{HEDGE_WORDS}(?:fix|close|resolve|address)\w*\W*$", re.I)
# A reference to a PR or an issue, by number or by either URL.
NUMBER_FORM = r"(?<![\w/])#(?P<n2>\d+)"
URL_FORM = r"https?://github\.com/(?P<urepo>[\w.-]+/[\w.-]+)/(?:issues|pull)/(?P<n3>\d+)"
UNQUALIFIED_OR_PULL = f"{NUMBER_FORM}|{URL_FORM}"
REFERENCE_OR_PULL = re.compile(rf"(?:(?<![\w.-])(?P<repo>[\w.-]+/[\w.-]+)#(?P<n1>\d+)|{UNQUALIFIED_OR_PULL})")
# The repository-qualified form ("o/r#N") is the costly one to look for: it is tried wherever a word
# starts, most of a long description's scan. A text holds it only where a "/", a name and "#N"
# follow each other (found by a search the engine starts at each "/"); any other is searched for the
# other forms alone, which match where the whole pattern would.
QUALIFIED_HINT = re.compile(r"/[\w.-]+#\d")
NUMBER_REFERENCE, URL_REFERENCE = re.compile(NUMBER_FORM), re.compile(URL_FORM)
URL_HOST = "github.com/"
SCHEMES = ("https://", "http://")
GITHUB_URL = re.compile(r"https?://github\.com/([\w.-]+/[\w.-]+)/(issues|pull)/(\d+)")
LINE_MARKS = " \t-*+>:"  # what a list or a quote puts before a line's own words
# Words that present the issue URL after them as the one a change fixes ("For <url>", "a fix to <url>").
FIX_LEAD = re.compile(
    rf"\b(?:fix\w*|for|address\w*|resolv\w*|clos\w*|solv\w*)(?:\s+(?:to|for|of))?\s*:?\s*(?:{LINK_WRAP.pattern})?$",
    re.I,
)
# A description that ends its account with the issue on a line of its own ("...\n#N"): the
# reference is the PR's subject. Only an issue known to be one is taken this way.
OWN_LINE = re.compile(r"^[ \t]*(?:(?P<repo>[\w.-]+/[\w.-]+)?#(?P<number>\d+))[ \t]*$", re.M)
LEAD_IN_REACH = 120
NOT_A_FIX = re.compile(
    r"\b(?:related|see|similar|follow[- ]?up|part of|tracking|umbrella|cf\.|context|pull request resolved)\b", re.I
)
QUOTE_LIMIT = 160
# A revert that names the issue the reverted change brought about ("bisected as the cause of the
# cache bug (#N)", "it broke #N") cures that issue: the revert is its fix. "Caused by #N" names
# where a problem came from instead.
CAUSED_ISSUE = re.compile(
    r"\b(?:cause[sd]?(?!\s+by)(?:\s+of)?|broke|breaks|introduced|regressed)\b[^.\n#]{0,80}?(?<![\w/])#(\d+)\b", re.I
)


def references_or_pulls(text: str) -> Iterator[re.Match[str]]:
    """The matches of REFERENCE_OR_PULL in `text` (read each with `reference_id`)."""
    if QUALIFIED_HINT.search(text):
        return REFERENCE_OR_PULL.finditer(text)
    return iter(_unqualified(text))


def _unqualified(text: str) -> list[re.Match[str]]:
    """The matches of UNQUALIFIED_OR_PULL, tried only where one can start: at a "#" and at the scheme
    before "github.com/". The engine would try its alternation at every character of a description,
    most of the link stage's time; str.find skips ahead in C. Neither form holds the other's first
    character, so the two never overlap and their matches in order are the engine's."""
    starts = _positions(text, "#")
    for host in _positions(text, URL_HOST):
        starts += [host - len(scheme) for scheme in SCHEMES if text.startswith(scheme, max(0, host - len(scheme)))]
    found = []
    for start in sorted(starts):
        pattern = NUMBER_REFERENCE if text.startswith("#", start) else URL_REFERENCE
        if match := pattern.match(text, start):
            found.append(match)
    return found


def _positions(text: str, needle: str) -> list[int]:
    found, position = [], text.find(needle)
    while position >= 0:
        found.append(position)
        position = text.find(needle, position + 1)
    return found


def reference_id(match: re.Match[str], repo: str | None) -> str:
    """The item a match of `references_or_pulls` names; `repo`: the one a bare "#N" is in."""
    groups = match.groupdict()
    target_repo = groups.get("repo") or groups.get("urepo") or repo or ""
    return github_item_id(target_repo, int(groups.get("n1") or groups.get("n2") or groups["n3"]))


def caused_issues(text: str, repo: str | None, issue: Callable[[str, int], bool]) -> list[tuple[str, int, str]]:
    """(repo, number, the words that say it) for each known issue a revert's text says the reverted
    change caused."""
    if repo is None or "#" not in text or not guard(CAUSED_ISSUE).may_match(text):
        return []
    return [
        (repo, int(match.group(1)), quoted(match.group(0)))
        for match in CAUSED_ISSUE.finditer(text)
        if issue(repo, int(match.group(1)))
    ]


def closing_references(
    text: str,
    repo: str | None,
    keywords: re.Pattern[str] = CLOSING,
    origin: re.Pattern[str] | None = None,
    issue: Callable[[str, int], bool] = lambda repo, number: False,
) -> list[tuple[str, int, str]]:
    """(repo, number, the words that say it) for every ``Fixes #N``, ``closes o/r#N``,
    ``resolves <issue URL>`` ...; none whose keyword the words before it (`origin`) make the
    problem's origin, nor one hedged ("may also resolve #N"). A PR URL counts only where `issue`
    knows the number as an issue (GitHub serves an issue at its /pull/ URL too, and "Fixes <that
    URL>" is written)."""
    found: list[tuple[str, int, str]] = []
    # A reference holds a "#" or an issue URL; and few texts hold a closing word at all.
    if ("#" not in text and "github.com/" not in text) or not guard(keywords).may_match(text):
        return found
    for keyword in keywords.finditer(text):
        if origin is not None and origin.search(text, max(0, keyword.start() - ORIGIN_REACH), keyword.start()):
            continue
        if HEDGE.search(text, max(0, keyword.start() - HEDGE_REACH), keyword.start()):
            continue
        wrapped = LINK_WRAP.match(text, keyword.end())
        position = wrapped.end() if wrapped else keyword.end()
        while (match := REFERENCE.match(text, position)) is not None:
            target_repo = match.group("repo") or match.group("urepo") or repo
            number = match.group("n1") or match.group("n2") or match.group("n3")
            if target_repo and (match.group("path") != "pull" or issue(target_repo, int(number))):
                # "Partially fixes #N" is quoted whole: the link is a fix, but not a whole one.
                lead = PARTIAL.search(text, max(0, keyword.start() - PARTIAL_REACH), keyword.start())
                start = lead.start() if lead else keyword.start()
                linked = wrapped is not None and wrapped.group(0).startswith("[")
                end = match.end() + (linked and text.startswith(")", match.end()))  # the link's ")"
                found.append((target_repo, int(number), quoted(text[start:end])))
            gap = REFERENCE_GAP.match(text, match.end())
            position = gap.end() if gap else match.end()
    return found


def issue_urls(text: str, fix: bool) -> list[tuple[str, int, str]]:
    """(repo, number, its line) for every issue URL that reads like the one a change fixes: on a line
    of its own, after words that say so ("For <url>", "a tentative fix to <url>"), or anywhere in a
    change that says it fixes ("related: <url>" never). A change that fixes nothing names an issue
    for other reasons too ("the motivating kernel is in <url>")."""
    if "/issues/" not in text:  # few texts link an issue: the rest are not searched for code blocks
        return []
    found = []
    in_code = in_code_block(text)
    for match in GITHUB_URL.finditer(text):
        if match.group(2) != "issues" or in_code(match.start()):
            continue  # a code comment's link is the code's, not a statement of the change
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = text[line_start : match.start()]
        alone = not before.strip(LINE_MARKS)
        if NOT_A_FIX.search(before) or HEDGED_LINE.search(before) or not (fix or alone or FIX_LEAD.search(before)):
            continue
        if alone and under_lead_in(text, line_start):
            continue
        found.append((match.group(1), int(match.group(3)), quoted(text[line_start : match.end()])))
    return found


def under_lead_in(text: str, line_start: int) -> bool:
    """The line at `line_start` sits under a lead-in line that names it for another reason than a
    fix ("**ISSUE Related:**", "See also:"). A lead-in is short: only its last characters are read."""
    head = text[max(0, line_start - LEAD_IN_REACH) : line_start].rstrip()
    lead = head[head.rfind("\n") + 1 :].strip(" \t*_#>")
    return lead.endswith(":") and bool(NOT_A_FIX.search(lead))


# "[Release 2.10] umbrella issue - CI failures", "Release tracker": an issue that gathers others.
UMBRELLA = re.compile(r"\b(?:umbrella|tracker|tracking issue|meta[- ]issue)\b", re.I)


def umbrella(target: Assessment | None) -> bool:
    """The issue gathers others: a change that links it on a line of its own, without saying it fixes
    it, is one piece of that work, not its fix."""
    return target is not None and bool(UMBRELLA.search(target.item.title or ""))


# "Fix the cached bound in pooling (#N)": PyTorch titles end in "(#N)", most often the PR's own
# number (or, in a reland, the first version's); another number that is an issue of the window, on
# a fix, is the issue it fixes.
TITLE_NUMBER = re.compile(r"\(#(\d+)\)\s*$")


def title_issue(item: Item, by_id: Mapping[str, Assessment]) -> list[tuple[tuple[str, int], str]]:
    """((repo, number), evidence) for the issue of the window a fix PR's title ends by naming."""
    match = TITLE_NUMBER.search(item.title or "")
    if match is None or int(match.group(1)) == item.number:
        return []
    target = (item.repo or "", int(match.group(1)))
    known = by_id.get(github_item_id(*target))
    if known is None or known.item.kind != "issue":
        return []
    return [(target, f'issue number closing a fix\'s title: "{quoted(item.title or "")}"')]


def own_line_issues(body: str, repo: str | None, by_id: Mapping[str, Assessment]) -> list[tuple[tuple[str, int], str]]:
    """((repo, number), evidence) for each issue of the window a PR body names on a line of its own."""
    found = []
    if "#" not in body:
        return found
    for match in OWN_LINE.finditer(body):
        if under_lead_in(body, match.start()):
            continue
        target = (match.group("repo") or repo or "", int(match.group("number")))
        known = by_id.get(github_item_id(*target))
        if known is not None and known.item.kind == "issue":
            found.append((target, f'issue named on a line of its own in the PR body: "{quoted(match.group(0))}"'))
    return found


def line_at(text: str, start: int, end: int) -> str:
    """The whole line (or lines) of `text` holding the span from `start` to `end`."""
    line_end = text.find("\n", end)
    return text[text.rfind("\n", 0, start) + 1 : line_end if line_end >= 0 else None]


def quoted(text: str) -> str:
    """The source's own words for a link, on one line and bounded, for the evidence."""
    return shorten(" ".join(text.split()), QUOTE_LIMIT)


def partial_fix(evidence: str) -> bool:
    """Whether a fix link's quoted words make it a partial fix ("Partially fixes #N", "Partial fix of
    ...", "It partially addresses <url>"); the evidence may name where the words stand first
    (`closing keyword in PR body: "..."`). The words end at the reference, so any "partial" in them
    qualifies it."""
    return PARTIAL_WORD.search(evidence.rsplit(': "', 1)[-1]) is not None
