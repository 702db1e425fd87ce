"""Where a story's fix stands: the item's own state, its linked changes' states, and what a closed
PR's thread says happened to it (a merge asked for, a revert asked for, another change preferred,
the change said to have landed). Only what the data shows; the rest is said to be unknown."""

from __future__ import annotations

import re
from collections.abc import Callable

from pytorch_insight.analysis.model import AnalysisContext, FixState
from pytorch_insight.config import Profile
from pytorch_insight.model import Comment, Item, Relation, closing_thread, github_item_id
from pytorch_insight.pipeline import Assessment
from pytorch_insight.pipeline.fuse import is_cherry_pick
from pytorch_insight.pipeline.link import URL_LINK, titled_alike
from pytorch_insight.pipeline.references import GITHUB_URL, REFERENCE, reference_id
from pytorch_insight.text import excerpt, sentences, shorten

LANDED = ("merged", "landed")
LINKED_SHOWN = 3
# A PR a report's description names as where its problem came from or was first seen: "Since <url>",
# "was recently added in <url>", "As seen in <url> when bumping", "<url> introduced a check". Listed
# under the fix state it would read as the fix.
# "torch 2.9 switched the kernel to a new tiling (<url>)": what a release did, where a
# regression came from.
ORIGIN_BEFORE = re.compile(
    r"\b(?:since|introduc\w*|caus\w*|regress\w*|broke\w*|added|seen|after|started|(?:py)?torch\s*v?\d+\.\d+)\b"
    r"[^.!?\n]{0,60}$",
    re.I,
)
ORIGIN_AFTER = re.compile(r"^[^.!?\n]{0,40}?\b(?:introduc\w*|added|caus\w*|broke\w*|regress\w*)\b", re.I)
ORIGIN_REACH = 80
LINK_TEXT_LIMIT = 100  # the longest link text read as the link's own
FIX_WORD = re.compile(r"\b(?:fix|patch|workaround|resolv|address)", re.I)
# How far before a link the words that call it a fix ("the patch:", "a fix in") are read.
FIX_REACH = 40


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
    if landed := [fix.id for fix in fixes if fix.item.state in LANDED]:
        reverted = [fix for fix in fixes if any(r.type == "reverted_by" for r in fix.relations)]
        # Only the fixes that landed are named as landed: another one closed or still open is not.
        return ("reverted", refs) if reverted and len(reverted) == len(fixes) else ("landed", landed)
    if fixes:
        if any(fix.item.state == "open" for fix in fixes):
            return "open", refs
        # The item's own state, not its fix PRs', says whether it is closed.
        return ("closed", refs) if item.state in ("closed", "merged", "landed") else ("unconfirmed", refs)
    # A closed report stays closed when only the window's PRs name it: the report says they do.
    if timeline_prs(item) or ((linked("named_by") or linked("tested_by")) and item.state != "closed"):
        return "referenced", list(referencing_prs(assessment, context))
    tracked = [r.target for r in assessment.relations if r.type == "tracks"]
    if tracked and item.state != "closed":
        # An umbrella's own fix is the progress of what it tracks.
        return "tracking", tracked
    return ("closed", []) if item.state == "closed" else ("none", [])


MERGE_QUOTE = 80
# "I have created a PR for this": a fix the thread announces without naming it.
PR_OPENED = re.compile(
    r"\b(?:created|opened|submitted|raised|sent|put up|filed)\s+(?:a|the|an)\s+(?:\w+\s+)?(?:pr|pull request)\b|"
    # "we've got a draft PR for this": one its author speaks of, not yet linked
    r"\b(?:i|we)(?:'ve|'m| have| am| are)?\s+(?:got\s+|working on\s+)?(?:a|an)\s+(?:working\s+|draft\s+|local\s+)?"
    r"(?:pr|pull request)\b",
    re.I,
)


# "We can bump to 9.15.1 https://github.com/o/r/pull/169412 as a cherrypick": a PR named in a comment;
# "Added a fix in #N": a bare number the words before it make a change.
PR_NAMED = re.compile(
    r"https?://github\.com/[\w.-]+/[\w.-]+/pull/\d+|\b(?:pr|pull request)\s*#\d+|"
    r"\bfix(?:ed)?\s+(?:is\s+)?(?:in|at|by)\s+#\d+",
    re.I,
)


def pr_named(comments: list[Comment], profile: Profile, dated: bool = False) -> str:
    """ "author: sentence" of the last comment naming a PR (the data holds no link of the issue to
    it, so whether it fixes the issue is only what that sentence says), with the comment's date
    after the author if `dated`; "" if none does. The last: an early comment names the PR that
    caused a problem or a related attempt, a late one the fix."""
    for comment in reversed(comments):
        body = comment.body or ""
        if profile.is_bot(comment.author) or not PR_NAMED.search(body):
            continue
        sentence = next((s for s in sentences(body) if PR_NAMED.search(s)), "")
        if sentence and "\n" not in sentence:
            when = f", {comment.date[:10]}" if dated and comment.date else ""
            return f"{comment.author or '?'}{when}: “{shorten(sentence, 2 * MERGE_QUOTE)}”"
    return ""


def pr_mentioned(item: Item, profile: Profile) -> str:
    """ "author: words" of the first comment saying a PR was opened (or is at hand) for this issue, "" if
    none does."""
    for comment in item.comments:
        if not profile.is_bot(comment.author) and (match := PR_OPENED.search(comment.body or "")):
            return f"{comment.author or '?'}: “{shorten(match.group(0), MERGE_QUOTE)}”"
    return ""


MERGE_FAILED = re.compile(r"\bmerge failed\b", re.I)


def merge_request(item: Item, profile: Profile) -> str:
    """ "author: command" of the last comment asking the merge tooling to land this closed PR, unless
    a later comment reports that the merge failed; "" when its thread shows none."""
    return _last_command(item, profile, profile.github.merge_commands, MERGE_FAILED)


def revert_request(item: Item, profile: Profile) -> str:
    """ "author: command" of the last comment asking the merge tooling to revert this closed PR (the
    tooling reverts what landed); "" when its thread shows none."""
    return _last_command(item, profile, profile.github.revert_commands)


def _last_command(item: Item, profile: Profile, patterns: list[str], failed: re.Pattern[str] | None = None) -> str:
    if item.kind != "pull_request" or item.state != "closed" or not patterns:
        return ""
    commands = [re.compile(pattern) for pattern in patterns]
    found = ""
    for comment in closing_thread(item):
        text = comment.body or ""
        if found and failed is not None and failed.search(text):
            found = ""
            continue
        if profile.is_bot(comment.author):
            continue
        for command in commands:
            if match := command.search(text):
                line = text[match.start() :].strip().splitlines()[0]
                found = f"{comment.author or '?'}: {shorten(line, MERGE_QUOTE)}"
                break
    return found


# "Superseded by #N", "closing in favour of #N", "I will abandon this PR": the change did not land.
SUPERSEDED = re.compile(
    r"\b(?:superseded by|replaced by|clos(?:e|ing)(?: this)? in favou?r of|"
    r"abandon(?:ed|ing)? this (?:pr|change|diff)|(?:will|going to) abandon|"
    # "we'll merge the other PR instead", "landing #N instead"
    r"(?:land|landing|merge|merging|go with|going with)\s+(?:this|that|the other(?: one| pr| change)?|#\d+)\s+"
    r"instead|"
    # "we went with the other PR"
    r"(?:accepted|merged|landed|went with|chose)\s+(?:the\s+)?other\s+(?:one|pr|pull request|change|diff|fix))\b|"
    # "Closing as the sprocket rewrite covers it", "We're closing it for now", "Closing this old draft.": a
    # sentence that opens by closing it, with its reason or alone, says it was closed unlanded; not
    # "Closing via <link>" nor "Closing as it landed internally", which say where it landed
    r"^(?![^.;]*\b(?:landed|merged|committed|via)\b)\W*(?:i'?m |i am |we'?re |we are )?"
    r"clos(?:e|ing)(?: (?:this|the|it)(?: \w+)?(?: pr| pull request| one| out| draft| change)?)?"
    r"\s*(?:[-—–,:]\s*)?(?:(?:as|because|since|due to|for now)\b|[.!—–-]|$)",
    re.I,
)


# "the diff has been landed D95694762", "this was merged": the thread says the change landed.
# "This PR caused a number of regressions", "this change broke the ROCm build": only a change that
# landed breaks anything (a hedge, "this PR may have caused", is no statement).
LANDED_SAID = re.compile(
    r"\b(?:has been|have been|was|got)\s+(?:landed|merged)\b|"
    r"\bthis (?:pr|pull request|change|commit|diff)\s+(?:has\s+)?(?:caused|broke|introduced|regressed)\b",
    re.I,
)


# "This is fixed in NCCL 2.26.2", "has been fixed by the driver update", "fixed on nightly": the thread
# of a closed report says the problem went away, by a change the data may not hold (a dependency's
# release, a PR of another repository). Not "is this fixed?", "not fixed", "should be fixed".
FIXED_SAID = re.compile(
    r"\b(?:is|was|has been|have been|got|now|already)\s+(?:\w+\s+)?fixed\b(?!\?)"
    r"|\bfixed\s+(?:in|by|with|on|since)\s+(?:the\s+)?(?:latest|nightly|nightlies|main|trunk|release|version|v?\d)"
    # "since the rewrite, the hang no longer reproduces": the problem is said to be gone
    r"|\bno longer\s+(?:happens|occurs|reproduces|repros|crashes|aborts|hangs)\b"
    # "addressed in #N, closing", "the fix has landed": a change said to have ended it
    r"|\b(?:addressed|resolved)\s+(?:in|by)\s+(?:#\d|(?:pr|pull request)\b|https?://github\.com/[\w.-]+/[\w.-]+/pull/\d)"
    r"|\bfix(?:ed)?\s+(?:has\s+|was\s+)?(?:landed|merged)\b",
    re.I,
)
# "Once the fix has landed we can close this": a condition, not a statement.
HEDGED = re.compile(
    r"\b(?:should|may|might|could|would|maybe|probably|if|whether|hopefully|once|until|unless|not|never|n['’]t)\b",
    re.I,
)


def fixed_said(item: Item, profile: Profile) -> str:
    """The words of the last comment saying the report is fixed, "" when none says so plainly (a
    hedge or a question is no statement)."""
    return last_said(item, profile.is_bot, said_fixed)


def said_fixed(sentence: str) -> re.Match[str] | None:
    """Where a sentence plainly says a problem is fixed (one line, no hedge or negation before it)."""
    match = FIXED_SAID.search(sentence)
    return match if match and "\n" not in sentence and not HEDGED.search(sentence[: match.end()]) else None


def fixed_said_by_tests(assessment: Assessment, context: AnalysisContext) -> tuple[str, str]:
    """(the words, the PR) of a PR that closes the report while adding only tests and whose
    description says the problem is gone ("the faulty check left main last month, so the crash no
    longer happens"); ("", "") when none does. Such a PR is no fix, but it says how it closed."""
    for relation in assessment.relations:
        pr = context.by_id.get(relation.target)
        if relation.type != "tested_by" or pr is None:
            continue
        for sentence in sentences(pr.item.body or ""):
            if match := said_fixed(sentence):
                return excerpt(sentence, match.group(0), MERGE_QUOTE), pr.id
    return "", ""


def superseded(item: Item, profile: Profile) -> str:
    """The words of the last comment in a closed PR's thread saying another change replaced it or
    that it was abandoned; "" when none does."""
    return said_in_thread(item, SUPERSEDED, skip=profile.is_bot)


# "#140677 has been landed, you could rebase": a comment on another change, which says nothing of this one.
CHANGE_REF = re.compile(r"(?:/pull/|/commit/|#)(\d{4,})\b")


def said_in_thread(
    item: Item, words: re.Pattern[str], skip: Callable[[str | None], bool] = lambda _: False, of_itself: bool = False
) -> str:
    """The words around a match of `words` in the last of a closed PR's comments that has one ("" when
    none); with `of_itself`, only in a sentence that names no other change. Only the words: a
    transcribed thread may nest one person's reply inside another's comment, so who said them is left
    out."""
    if item.kind != "pull_request" or item.state != "closed":
        return ""
    own = str(item.number or "")

    def said(sentence: str) -> re.Match[str] | None:
        match = words.search(sentence)
        return None if of_itself and any(ref != own for ref in CHANGE_REF.findall(sentence)) else match

    return last_said(item, skip, said)


def last_said(item: Item, skip: Callable[[str | None], bool], find: Callable[[str], re.Match[str] | None]) -> str:
    """The words around what `find` finds in the first sentence that has it, in the last comment (by
    an author `skip` lets through) that has one; "" when none does."""
    for comment in reversed(closing_thread(item)):
        if skip(comment.author):
            continue
        for sentence in sentences(comment.body or ""):
            if match := find(sentence):
                return excerpt(sentence, match.group(0), MERGE_QUOTE)
    return ""


def referencing_prs(assessment: Assessment, context: AnalysisContext) -> dict[str, str]:
    """PR id -> state for the PRs that reference the issue: its timeline's, and those of the window
    whose description names it (a PR adding only tests for it among them)."""
    found = timeline_prs(assessment.item)
    for relation in assessment.relations:
        if relation.type in ("named_by", "tested_by") and (pr := context.by_id.get(relation.target)) is not None:
            found.setdefault(pr.id, pr_state(pr))
    return found


def merged_picks(assessment: Assessment, context: AnalysisContext) -> list[str]:
    """The window's merged cherry-picks of a PR (its own, or a batch that lists it). PyTorch lands a
    PR by its merge tooling, which leaves it "closed", while a pick merges on GitHub: the pick's
    merge is the one the data shows."""
    return [
        relation.target
        for relation in assessment.relations
        if (pick := context.by_id.get(relation.target)) is not None
        and pick.item.state in LANDED
        and (
            relation.type == "picked_by"
            or (relation.type == "duplicate" and pick.canonical == assessment.id and is_cherry_pick(pick))
        )
    ]


def pr_state(pr: Assessment) -> str:
    """A PR of the window as the report names its state: merged, open or closed."""
    state = pr.item.state or "open"
    return "merged" if state in LANDED else "open" if state == "open" else "closed"


def similar_prs(assessment: Assessment, context: AnalysisContext) -> dict[str, str]:
    """PR id -> state for the window's PRs whose titles say what the issue's does (`titled_alike`)."""
    return _related_prs(assessment, context, titled_alike)


def linked_prs(assessment: Assessment, context: AnalysisContext) -> dict[str, str]:
    """PR id -> state for the window's PRs linked with the issue by URL, in either thread, and
    `uncollected` for the PRs its description links that the window does not hold (at most
    LINKED_SHOWN in all: a tracker's list can link dozens). A PR of its repository opened before
    it (a lower number) is background the report gives ("related to", "sped up earlier in"), unless
    the words before its link call it a fix ("my patch for it:"): a reporter may send the PR first."""
    item = assessment.item
    body = item.body or ""
    linked = [
        (github_item_id(m.group(1), int(m.group(3))), m) for m in GITHUB_URL.finditer(body) if m.group(2) == "pull"
    ]
    fixes = {target for target, m in linked if FIX_WORD.search(body, max(0, m.start() - FIX_REACH), m.start())}
    earlier = {
        target for target, m in linked if opened_before(m.group(1), int(m.group(3)), item) and target not in fixes
    }
    origins = {target for target, m in linked if _named_as_origin(body, m)} | earlier

    def kept(relation: Relation) -> bool:
        return relation.type == "related" and relation.evidence == URL_LINK and relation.target not in origins

    found = _related_prs(assessment, context, kept)
    for target, _ in linked:
        if target not in context.by_id and target != assessment.id and target not in origins:
            found.setdefault(target, "uncollected")
    return dict(list(found.items())[:LINKED_SHOWN])


def opened_before(repo: str, number: int, item: Item) -> bool:
    """Whether `repo`#`number` is a thread of the item's repository with a lower number than the item's."""
    if not item.repo or not item.number:
        return False
    return repo.lower() == item.repo.lower() and number < item.number


def blames_itself(sentence: str, item: Item) -> bool:
    """The sentence names the item itself as where its problem came from ("a regression introduced by
    <the issue's own URL>"): a slip of its writer, which says nothing of how the problem comes about."""
    return any(
        reference_id(match, item.repo) == item.id and _named_as_origin(sentence, match)
        for match in REFERENCE.finditer(sentence)
    )


def _named_as_origin(text: str, match: re.Match[str]) -> bool:
    """Whether the sentence naming a PR's URL names it as where the problem came from or showed."""
    start = _link_start(text, match.start())
    before = ORIGIN_BEFORE.search(text[max(0, start - ORIGIN_REACH) : start])
    after = ORIGIN_AFTER.search(text[match.end() : match.end() + ORIGIN_REACH])
    # "I added a fix in <url>": the words that name a fix outweigh those that name an origin.
    return any(found is not None and not FIX_WORD.search(found.group(0)) for found in (before, after))


def _link_start(text: str, start: int) -> int:
    """Where the Markdown link whose target starts at `start` begins ("[#123](<url>)"): the words
    before a link lead to its text, not to its target."""
    if not text.endswith("](", 0, start):
        return start
    opening = text.rfind("[", max(0, start - LINK_TEXT_LIMIT), start - 2)
    return opening if opening >= 0 and "\n" not in text[opening:start] else start


def _related_prs(assessment: Assessment, context: AnalysisContext, kept: Callable[[Relation], bool]) -> dict[str, str]:
    found = {}
    for relation in assessment.relations:
        pr = context.by_id.get(relation.target)
        if kept(relation) and pr is not None and pr.item.kind == "pull_request":
            found[pr.id] = pr_state(pr)
    return found


def timeline_prs(item: Item) -> dict[str, str]:
    """PR id -> state for the PRs that the issue's timeline shows referencing it (collected for
    the likely focus issues; they may lie outside the window)."""
    found = {}
    for ref in (item.model_extra or {}).get("timeline_refs") or []:
        if ref.get("event") == "cross-referenced" and ref.get("kind") == "pull_request" and ref.get("repo"):
            found[github_item_id(ref["repo"], ref["number"])] = ref.get("state") or "open"
    return found


def threads_say(closed: list[Item], profile: Profile) -> list[tuple[str, str, str]]:
    """(analysis field, the words, the PR whose thread has them) for each thing the threads of a
    story's closed PRs say happened: a merge or a revert asked for, another change preferred, the
    change said to have landed; the first PR that says each one."""
    readers: dict[str, Callable[[Item], str]] = {
        "merge_requested": lambda item: merge_request(item, profile),
        "revert_requested": lambda item: revert_request(item, profile),
        "superseded": lambda item: superseded(item, profile),
        "landed_said": lambda item: said_in_thread(item, LANDED_SAID, of_itself=True),
    }
    found = []
    for field, read in readers.items():
        for item in closed:
            if words := read(item):
                found.append((field, words, item.id))
                break
    return found
