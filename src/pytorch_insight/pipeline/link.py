"""Links between items: fixes / fixed_by, commit -> PR, forum post -> GitHub item, and `related`
between items that share a rare technical identifier in the same window."""

from __future__ import annotations

import builtins
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence, Set

from pytorch_insight.guard import guard
from pytorch_insight.model import Item, Relation, github_item_id
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.fuse import REVERT, cherry_picked
from pytorch_insight.pipeline.references import (
    FIX_LEAD,
    FIX_MENTION,
    GITHUB_URL,
    REFERENCE,
    WEAK_NOT_FIX,
    caused_issues,
    closing_references,
    issue_urls,
    line_at,
    own_line_issues,
    quoted,
    reference_id,
    references_or_pulls,
    title_issue,
    umbrella,
)

# An issue's reporter saying a fix exists: "I fixed it", "I opened a PR to fix this", "fixed in #N"
# ("possible fixes: ..." only suggests one). The lookahead of the first letters: as in CLOSING.
FIX_OFFERED = re.compile(
    r"(?=[iwpf])\b(?:(?:i|we)(?:'ve| have)? (?:already )?fixed (?:it|this)|"
    r"(?:i|we)(?:'ve| have)? (?:opened|sent|submitted|created|put up) an? (?:pr|pull request|fix|patch)|"
    r"(?:pr|pull request|patch) (?:to fix|that fixes|with (?:a|the) fix)|"
    r"fix(?:ed)? (?:is )?(?:in|at|by)\s+(?:#|https?://))",
    re.I,
)
# "this fixes a different bug than the one in the issue", "it doesn't actually fix the issue": a
# reviewer says the change is no fix of the report it names, which then stays only related.
FIX_DISPUTED = re.compile(
    r"\bfix(?:es|ed)? (?:a |an |the )?(?:different|other|another) (?:problem|issue|bug)|"
    r"\bfix(?:es|ed)? (?:a |the )?(?:problem|issue|bug) (?:different|other) (?:than|from)|"
    r"\b(?:does|did)(?: not|n['’]t) (?:actually |really )?(?:fix|address|solve|resolve) (?:the |this )?"
    r"(?:reported |original )?(?:issue|problem|bug)\b",
    re.I,
)
CHANGE_KINDS = ("pull_request", "commit")
THREAD_KINDS = ("issue", "pull_request", "rfc")
TITLE_TAG_RUN = re.compile(r"\[[^\]]{0,40}\]")
TITLE_WORD = re.compile(r"[a-z_][a-z0-9_.]*[a-z0-9_]|[a-z]")
# Words any title may use: function words, the words of every fix, and the symptoms many different
# bugs share ("produces incorrect results"), which say nothing about which bug it is.
TITLE_STOP = frozenset(
    "the and for with from into when while that this than then its are was were has have not but use uses using "
    "via per fix fixes fixed fixing add adds added support supports error errors issue bug "
    "produce produces producing return returns returning give gives result results output outputs wrong "
    "incorrect incorrectly fail fails failed failing failure crash crashes broken slow slower".split()
)
SIMILAR_SHARED = 3
# An author's report and a change of theirs whose titles share this many words: their fix of what they
# reported, sent without naming it (one author is what makes two words enough).
OWN_FIX_SHARED = 2
BATCH_PICK = ("picks", "picked_by")
COMMUNITY_KINDS = ("forum", "blog", "event", "slack")
RELATED_MAX_ITEMS = 3  # an identifier shared by more items than this is too common to mean anything
RELATED_PER_ITEM = 5
TRACKER_MIN = 3  # issues listed in a description that make it a tracking (umbrella) issue
RELATED_LEAD = re.compile(r"\b(?:related|see also|similar|not the same|prior|previous|earlier|other reports?)\b", re.I)
LIST_LINE = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]*)?(.*)$", re.M)


def link_fixes(
    assessments: Sequence[Assessment], by_id: Mapping[str, Assessment], fixing_nothing: Set[str] = frozenset()
) -> None:
    def issue(repo: str, number: int) -> bool:
        target = by_id.get(github_item_id(repo, number))
        return target is not None and target.item.kind == "issue"

    for assessment in assessments:
        item = assessment.item
        if item.kind not in CHANGE_KINDS or not (item.body or item.title):
            continue
        # A change to tests alone that "fixes" an issue adds the test for a bug fixed elsewhere: it
        # belongs to the issue's story, and is not its fix.
        tests_only = any(r.code in fixing_nothing for r in assessment.noise)
        fixes, fixed_by = ("tests", "tested_by") if tests_only else ("fixes", "fixed_by")
        if disputed(item):
            fixes = fixed_by = "related"
        body = item.body or ""
        origin = "landed commit message" if item.kind == "commit" else "PR body"
        targets = [
            ((r, n), f'closing keyword in {origin}: "{q}"')
            for r, n, q in closing_references(body, item.repo, issue=issue)
        ]
        # A change that names what it fixes with a closing keyword names any other issue URL for
        # another reason ("raised due to <url>", "I rediscovered <url>") unless words say otherwise.
        fix_anywhere = assessment.facts.is_fix and not targets
        if REVERT.match(item.title or ""):
            targets += [
                ((r, n), f'issue the reverted change caused, in {origin}: "{q}"')
                for r, n, q in caused_issues(body, item.repo, issue)
            ]
        if assessment.facts.is_fix:
            seen = {target for target, _ in targets}
            # "a cherry-pick PR for #N" names the change it copies, not a problem it fixes
            picked = cherry_picked(body)
            original = int(picked.group(1) or picked.group(2)) if picked else None
            text = f"{item.title or ''}\n{body}"
            targets += [
                ((r, n), f'issue reference in a fix: "{q}"')
                for r, n, q in closing_references(text, item.repo, FIX_MENTION, WEAK_NOT_FIX)
                if (r, n) not in seen and n != original
            ]
        targets += [
            ((r, n), f'issue URL in {origin}: "{q}"')
            for r, n, q in issue_urls(body, fix_anywhere)
            if assessment.facts.is_fix or FIX_LEAD.search(q) or not umbrella(by_id.get(github_item_id(r, n)))
        ]
        if item.kind == "pull_request":
            targets += own_line_issues(body, item.repo, by_id)
            if assessment.facts.is_fix:
                targets += title_issue(item, by_id)
        for (repo, number), evidence in targets:
            target = github_item_id(repo, number)
            if target in by_id and by_id[target].item.kind in CHANGE_KINDS:
                continue  # a closing keyword that names a PR is not a fix link
            assessment.relate(fixes, target, evidence)
            if target in by_id:
                by_id[target].relate(fixed_by, assessment.id, evidence)


def link_offered_fixes(assessments: Sequence[Assessment], by_id: Mapping[str, Assessment]) -> None:
    """An issue whose reporter names the one PR of the window that fixes it ("see <PR>. I fixed it,
    but cannot merge"): the PR that never names the issue back fixes it all the same."""
    for assessment in assessments:
        item = assessment.item
        if item.kind != "issue" or not item.body or not guard(FIX_OFFERED).may_match(item.body):
            continue
        if not (said := FIX_OFFERED.search(item.body)):
            continue
        changes = {
            target
            for match in references_or_pulls(item.body)
            if (target := reference_id(match, item.repo)) in by_id and by_id[target].item.kind == "pull_request"
        }
        if len(changes) != 1:
            continue  # several PRs named: which one fixes it is not said
        target = changes.pop()
        if any(r.target == target and r.type in ("fixed_by", "related") for r in assessment.relations):
            continue  # the PR names the issue itself (as its fix, or as one a reviewer says it does not fix)
        if disputed(by_id[target].item):
            continue
        evidence = f'the issue names its fix: "{quoted(line_at(item.body, said.start(), said.end()))}"'
        assessment.relate("fixed_by", target, evidence)
        by_id[target].relate("fixes", assessment.id, evidence)


def disputed(change: Item) -> bool:
    """A comment on the change says it fixes another problem than the one it names."""
    return any(FIX_DISPUTED.search(comment.body or "") for comment in change.comments)


def link_commits(assessments: Sequence[Assessment], by_id: Mapping[str, Assessment]) -> None:
    for assessment in assessments:
        for relation in list(assessment.relations):
            if relation.type == "lands" and relation.target in by_id:
                by_id[relation.target].relate("landed_by", assessment.id, relation.evidence)


def link_mentions(assessments: Sequence[Assessment], by_id: Mapping[str, Assessment]) -> None:
    """Forum posts, blog posts and issues that point at GitHub items by URL."""
    for assessment in assessments:
        item = assessment.item
        if not item.body or item.kind in CHANGE_KINDS:
            continue
        for match in GITHUB_URL.finditer(item.body):
            target = github_item_id(match.group(1), int(match.group(3)))
            if target == item.id:
                continue
            if item.kind in COMMUNITY_KINDS:
                assessment.relate("discusses", target, f"{item.kind} links to it")
                if target in by_id:
                    by_id[target].relate("discussed_in", assessment.id, f"linked from {item.kind}")
            else:
                assessment.relate("related", target, URL_LINK)
                if target in by_id:
                    by_id[target].relate("related", assessment.id, URL_LINK)


def link_named_issues(assessments: Sequence[Assessment], by_id: Mapping[str, Assessment]) -> None:
    """A PR whose description names an issue of the window without saying it fixes it ("**flag**
    (#N): the flag was never used ..."): the issue is referenced by that PR, which "no PR references
    it" would deny."""
    for assessment in assessments:
        item = assessment.item
        if item.kind != "pull_request" or not item.body or ("#" not in item.body and "github.com/" not in item.body):
            continue
        for match in references_or_pulls(item.body):
            target = reference_id(match, item.repo)
            known = by_id.get(target)
            if known is None or known.item.kind != "issue" or _already_linked(assessment, target):
                continue
            evidence = f'PR body names it: "{quoted(line_at(item.body, match.start(), match.end()))}"'
            assessment.relate("names", target, evidence)
            known.relate("named_by", assessment.id, evidence)


def link_trackers(assessments: Sequence[Assessment], by_id: Mapping[str, Assessment]) -> None:
    """An issue whose description lists several issues (a checklist, an umbrella) tracks them."""
    for assessment in assessments:
        item = assessment.item
        if item.kind not in ("issue", "rfc") or not item.body or not item.repo:
            continue
        # Each reference takes a "#" or an issue URL of its own: fewer than TRACKER_MIN, no tracker.
        if item.body.count("#") + item.body.count("/issues/") < TRACKER_MIN:
            continue
        listed: dict[str, str] = {}  # target -> the list line naming it
        for line in tracked_lines(item.body):
            for match in REFERENCE.finditer(line):
                if match.group("path") == "pull":
                    continue  # a PR a tracker lists is work on it, not a problem it tracks
                repo = match.group("repo") or match.group("urepo") or item.repo
                number = match.group("n1") or match.group("n2") or match.group("n3")
                target = github_item_id(repo, int(number))
                if target != item.id:
                    listed.setdefault(target, line)
        if len(listed) < TRACKER_MIN:
            continue
        for target, line in listed.items():
            if target in by_id and by_id[target].item.kind in CHANGE_KINDS:
                continue
            evidence = f'listed in its description: "{quoted(line)}"'
            assessment.relate("tracks", target, evidence)
            if target in by_id:
                by_id[target].relate("tracked_by", assessment.id, evidence)


def tracked_lines(body: str) -> list[str]:
    """The list lines of a description, but those under a lead-in that calls them related reports
    ("Related but not the same:"): a bug report citing its neighbours tracks none of them."""
    found, lead = [], ""
    for line in body.splitlines():
        if (listed := LIST_LINE.match(line)) is not None:
            if not RELATED_LEAD.search(lead):
                found.append(listed.group(1))
        elif line.strip():
            lead = line
    return found


# Python's own names ("RuntimeError", "NotImplementedError"): two reports raising the same builtin
# exception share a traceback's last word, not a bug.
BUILTIN_NAMES = frozenset(name.lower() for name in dir(builtins))
# A name that is a word and a number ("arg7_2", "buf41", a platform tag's "x86_64") is
# what generated code calls one of its values, or a variant of something: every graph dump has one,
# and two threads quoting it share no subject.
NUMBERED_NAME = re.compile(r"[a-z]+\d*_\d+|[a-z]+\d+", re.I)
# A C or C++ type name ("int64_t", "scalar_t") is a word of every kernel's source, as Python's
# own names are of every traceback.
C_TYPE_NAME = re.compile(r"[a-z][a-z0-9]*_t")


# The evidence of a `related` or `series` link by a shared name; the report says which name it is.
URL_LINK = "linked by URL"  # a `related` link one of the two threads made by naming the other's URL
SHARED_NAME = "both mention `{}`"
SERIES_NAME = "same author, both mention `{}`"
SERIES_TITLES_LEAD = "same author, titles: "
SERIES_TITLES = SERIES_TITLES_LEAD + '"{}" / "{}"'
SIMILAR_TITLES = 'similar titles: "{}" / "{}"'
SHARED_NAME_READ = re.compile(r"^(?:same author, )?both mention `([^`]+)`$")


def shared_name(evidence: str) -> str | None:
    """The name a `related` or `series` link's evidence says both items mention, None for another link."""
    found = SHARED_NAME_READ.match(evidence)
    return found.group(1) if found else None


def one_series(first: Assessment, second: Assessment) -> bool:
    """Two items of one author, one of them a change: with a rare name in common, the author's
    changes on one thing (a series sent without ghstack) or their fix of what they reported, which
    the experts' brief counts as one story. Two reports of one author are often two bugs the same
    person found, and stay only related."""
    author = (first.item.author or "").lower()
    return (
        bool(author)
        and author == (second.item.author or "").lower()
        and (first.item.kind in CHANGE_KINDS or second.item.kind in CHANGE_KINDS)
    )


def titled_alike(relation: Relation) -> bool:
    """A link made by two titles saying the same thing: `similar`, or an author's `series` found so."""
    return relation.type == "similar" or (
        relation.type == "series" and relation.evidence.startswith(SERIES_TITLES_LEAD)
    )


def own_fix(first: Assessment, second: Assessment) -> bool:
    """An issue and a change of its author: what they reported and, most often, how they fixed it."""
    kinds = {first.item.kind, second.item.kind}
    return "issue" in kinds and not kinds.isdisjoint(CHANGE_KINDS) and one_series(first, second)


def link_shared_identifiers(assessments: Sequence[Assessment], common: frozenset[str]) -> None:
    """`related` between items naming the same rare identifier (the same bug on another backend),
    `series` when one author wrote both and one is a change (`one_series`); the project's everyday
    names (`common`), Python's own, numbered names and names held by many items relate nothing."""
    common = common | BUILTIN_NAMES
    holders: dict[str, list[Assessment]] = defaultdict(list)
    for assessment in assessments:
        if assessment.canonical is None:
            for identifier in assessment.features.identifiers:
                if identifier.lower() not in common:
                    holders[identifier].append(assessment)
    for identifier in sorted(holders):
        group = holders[identifier]
        # Each distinct name is tested once, and only when its holders could be related.
        if (
            not 2 <= len(group) <= RELATED_MAX_ITEMS
            or NUMBERED_NAME.fullmatch(identifier)
            or C_TYPE_NAME.fullmatch(identifier)
        ):
            continue
        for first in group:
            for second in group:
                if first is second or (first.noise and second.noise) or _already_linked(first, second.id):
                    continue
                if sum(r.type in ("related", "series") for r in first.relations) < RELATED_PER_ITEM:
                    if one_series(first, second):
                        first.relate("series", second.id, SERIES_NAME.format(identifier))
                    else:
                        first.relate("related", second.id, SHARED_NAME.format(identifier))


def title_words(title: str | None) -> frozenset[str]:
    """A title's own words, each without its inflection: its bracket tags, function words and the
    words every fix title uses left out."""
    text = TITLE_TAG_RUN.sub(" ", title or "").lower()
    return frozenset(_stem(word) for word in TITLE_WORD.findall(text) if len(word) > 2 and word not in TITLE_STOP)


# A report says what "bypasses" or "leaks"; the PR that fixes it, what it stops "bypassing".
INFLECTIONS = ("ing", "es", "ed", "s")


def _stem(word: str) -> str:
    if "." in word or "_" in word:  # an identifier is spelled one way
        return word
    for ending in INFLECTIONS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


def link_similar_reports(assessments: Sequence[Assessment]) -> None:
    """`similar` between threads whose titles say nearly the same thing in other words (two reports
    of one bug, an issue and the PR titled after it): at least SIMILAR_SHARED words in common, and
    as many in common as apart; `series` between an author's issue and a change of theirs sharing
    OWN_FIX_SHARED words (`own_fix`). Pairs come only through words at most RELATED_MAX_ITEMS
    titles use, so the stage stays linear."""
    words = {a.id: title_words(a.item.title) for a in assessments if a.item.kind in THREAD_KINDS and not a.canonical}
    by_id = {a.id: a for a in assessments}
    holders: dict[str, list[str]] = defaultdict(list)
    for item_id, found in words.items():
        for word in found:
            holders[word].append(item_id)
    pairs = {
        (first, second)
        for group in holders.values()
        if 2 <= len(group) <= RELATED_MAX_ITEMS
        for first in group
        for second in group
        if first < second
    }
    for first, second in sorted(pairs):
        shared = words[first] & words[second]
        a, b = by_id[first], by_id[second]
        if len(shared) >= OWN_FIX_SHARED and own_fix(a, b):
            kind, evidence = "series", SERIES_TITLES
        elif len(shared) >= SIMILAR_SHARED and 2 * len(shared) >= len(words[first] | words[second]):
            kind, evidence = "similar", SIMILAR_TITLES
        else:
            continue
        if a.item.repo != b.item.repo or _already_linked(a, second):
            continue
        evidence = evidence.format(quoted(a.item.title or ""), quoted(b.item.title or ""))
        a.relate(kind, second, evidence)
        b.relate(kind, first, evidence)


def _already_linked(assessment: Assessment, other: str) -> bool:
    # A cherry-pick of several changes names each original: which story it is part of, other links say.
    return any(relation.target == other and relation.type not in BATCH_PICK for relation in assessment.relations)


def link(
    assessments: Sequence[Assessment], common_identifiers: Sequence[str] = (), fixing_nothing: Set[str] = frozenset()
) -> None:
    """`fixing_nothing`: the tags of the noise reasons that mark a change which fixes nothing it names."""
    by_id = {assessment.id: assessment for assessment in assessments}
    link_commits(assessments, by_id)
    link_fixes(assessments, by_id, fixing_nothing)
    link_offered_fixes(assessments, by_id)
    link_trackers(assessments, by_id)
    link_mentions(assessments, by_id)
    link_named_issues(assessments, by_id)
    link_similar_reports(assessments)
    # The project's own name ("PyTorch" of pytorch/pytorch) is in every other report.
    own = {part for item in by_id.values() if item.item.repo for part in item.item.repo.split("/")}
    link_shared_identifiers(assessments, frozenset(name.lower() for name in [*common_identifiers, *own]))
