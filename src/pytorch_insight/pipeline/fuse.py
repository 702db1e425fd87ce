"""One canonical item per thing: merge copies of one URL, link resubmissions, relands, reverts
and ghstack stacks. Everything is keyed by hashes (URL, normalised title, number), so the
stage is linear in the number of items."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence

from pytorch_insight.model import github_item_id
from pytorch_insight.pipeline.assessment import Assessment
from pytorch_insight.pipeline.features import normalize_title

# The tags that make a title a reland's or a revert's; what follows them is the first version's title
# (see `tagged`: trimmed in Python, since a lazy group before a trailing `\s*$` rescans a long run of
# blanks from every position it could end at).
RELAND = re.compile(r"^\s*(?:\[re-?land(?:ed)?(?:\s*\d+)?\]\s*:?\s*|re-?land(?:ed)?(?:\s*\d+)?\s*:?\s+)", re.I)
# Tags that mark one submission of a change among several: a copy ("[not used]", "[new]", "[v2]"), a
# cherry-pick to a release branch ("[release/2.12]", "[2.12]", "[cherry-pick]"). Read away for grouping.
COPY_TAG = re.compile(
    r"^\s*(?:\[(?:not used|unused|new|old|wip|draft|v\d+|take \d+|cherry[- ]?pick(?:ed)?|release/[\w.]+"
    r"|v?\d+\.\d+(?:\.\d+)?)\]\s*:?\s*)+",
    re.I,
)
CHERRY_PICK = re.compile(
    r"\bcherry[- ]?pick(?:ed|ing)?\b[^\n#]{0,40}?(?:#(\d+)|https?://github\.com/[\w.-]+/[\w.-]+/pull/(\d+))", re.I
)
ABANDONED = re.compile(r"^\s*\[(?:not used|unused|old|abandoned)\]", re.I)
CHERRY_TITLE = re.compile(r"^\s*\[(?:cherry[- ]?pick(?:ed)?|release/[\w.]+|v?\d+\.\d+(?:\.\d+)?)\]", re.I)
REVERT = re.compile(r"^\s*revert(?:ed)?\s*:?\s+", re.I)
# "Cherry-pick of the changes below to the release branch:" over "- **Title (#N)**" lines: a pick of
# several changes names each original on a list line of its own.
PICK_WORD = re.compile(r"\bcherry[- ]?pick", re.I)
PICKED_LINE = re.compile(r"^[ \t]*[-*+][^\n]*?\(#(\d+)\)", re.M)
PICK_HEAD = 2000
QUOTES = ('"', "'")
REFERENCED_NUMBER = re.compile(r"\(#(\d+)\)")
# "Reverts pytorch/pytorch#123", "Relands #123": a description's opening line naming the one change.
NAMED_TARGET = re.compile(r"\s*(?:reverts|relands)\s+([\w.-]+/[\w.-]+)?#(\d+)\b", re.I)
SOURCE_PREFERENCE = {"github": 0}


def _url_key(url: str | None) -> str | None:
    if not url:
        return None
    return url.lower().split("#", 1)[0].rstrip("/").replace("http://", "https://").replace("://www.", "://")


def merge_same_url(assessments: Sequence[Assessment]) -> list[Assessment]:
    """Keep one item per URL (the GitHub copy when there is one); the others become aliases."""
    kept: dict[str, Assessment] = {}
    result: list[Assessment] = []
    for assessment in sorted(assessments, key=lambda a: (SOURCE_PREFERENCE.get(a.item.source, 1), a.id)):
        key = _url_key(assessment.item.url)
        if key is None:
            result.append(assessment)
        elif key in kept:
            winner = kept[key]
            winner.aliases.append(assessment.id)
            for relation in assessment.relations:
                winner.relate(relation.type, relation.target, relation.evidence)
        else:
            kept[key] = assessment
            result.append(assessment)
    return sorted(result, key=lambda a: a.id)


def _family(assessment: Assessment) -> str:
    return "change" if assessment.item.kind in ("pull_request", "commit") else assessment.item.kind


def _is_landed(assessment: Assessment) -> bool:
    return assessment.item.state in ("merged", "landed")


def is_cherry_pick(assessment: Assessment) -> bool:
    item = assessment.item
    return bool(CHERRY_TITLE.match(item.title or "") or cherry_picked(item.body))


def cherry_picked(body: str | None) -> re.Match[str] | None:
    """The cherry-pick the beginning of a body names. Its word is looked for first: few bodies hold
    it, and the pattern, case-blind and led by a word boundary, tries every position of the rest."""
    head = (body or "")[:2000]
    return CHERRY_PICK.search(head) if "cherry" in head.lower() else None


def link_picked_originals(assessments: Sequence[Assessment], by_id: Mapping[str, Assessment]) -> None:
    """A cherry-pick of several changes at once (a release branch's batch) `picks` each original its
    list names, and each original is `picked_by` it. The pick stands for none of them: each original
    is a story of its own."""
    for assessment in assessments:
        item = assessment.item
        if item.kind != "pull_request" or assessment.canonical is not None or not item.repo:
            continue
        head = (item.body or "")[:PICK_HEAD]
        if not (CHERRY_TITLE.match(item.title or "") or ("cherry" in head.lower() and PICK_WORD.search(head))):
            continue
        for listed in PICKED_LINE.finditer(head):
            original = by_id.get(github_item_id(item.repo, int(listed.group(1))))
            if original is None or original is assessment or original.item.kind != "pull_request":
                continue
            evidence = f'cherry-pick lists it: "{listed.group(0).strip()[:80]}"'
            assessment.relate("picks", original.id, evidence)
            original.relate("picked_by", assessment.id, evidence)


def _lead_change(members: Sequence[Assessment]) -> Assessment:
    """The change that stands for its copies: the original rather than a cherry-pick of it (PyTorch's
    cherry-picks merge on GitHub while the original lands by bot and shows "closed"), then a landed
    one, then the newest submission."""
    return max(
        members,
        key=lambda a: (
            not is_cherry_pick(a),
            not ABANDONED.match(a.item.title or ""),
            _is_landed(a),
            a.item.created or "",
            a.item.number or 0,
        ),
    )


def link_duplicates(assessments: Sequence[Assessment], by_id: Mapping[str, Assessment]) -> None:
    """The same change or issue opened more than once (copies, cherry-picks): one stands for the others."""
    groups: dict[tuple[str | None, str, str], list[Assessment]] = defaultdict(list)
    for assessment in assessments:
        if assessment.item.kind == "commit":
            continue
        picked = cherry_picked(assessment.item.body)
        if picked and assessment.item.repo:
            original = by_id.get(github_item_id(assessment.item.repo, int(picked.group(1) or picked.group(2))))
            if original is not None and original is not assessment:
                assessment.canonical = original.id
                _share_areas(assessment, original)
                assessment.relate("duplicate", original.id, f'cherry-pick: "{picked.group(0)[:80]}"')
                original.relate("duplicate", assessment.id, f'cherry-pick: "{picked.group(0)[:80]}"')
                continue
        title = normalize_title(COPY_TAG.sub("", assessment.item.title or ""))
        if (
            len(title.split()) >= 3
            and tagged(RELAND, assessment.item.title or "") is None
            and tagged(REVERT, assessment.item.title or "") is None
        ):
            groups[(assessment.item.repo, _family(assessment), title)].append(assessment)
    for members in groups.values():
        if len(members) < 2:
            continue
        if _family(members[0]) == "change":
            canonical = _lead_change(members)
        else:
            # A report closed while its copy stays open was closed in the copy's favour: the open
            # one is where the story goes on (its fix PR names it), else the first one filed.
            canonical = min(members, key=lambda a: (a.item.state == "closed", a.item.created or "", a.item.number or 0))
        for member in members:
            if member is canonical:
                continue
            member.canonical = canonical.id
            if is_cherry_pick(member):
                _share_areas(member, canonical)
            member.relate("duplicate", canonical.id, "same title opened again")
            canonical.relate("duplicate", member.id, "same title opened again")


def _share_areas(pick: Assessment, original: Assessment) -> None:
    """A cherry-pick is its original's change on a release branch: its areas are the original's. Its
    own text often says less ("[release/2.12]" is a tag no area names, the body a checklist), which
    put the same change in two areas."""
    pick.areas = list(original.areas)
    pick.area_evidence = {area: list(evidence) for area, evidence in original.area_evidence.items()}


def tagged(pattern: re.Pattern[str], title: str) -> str | None:
    """The title after the tag `pattern` matches at its start, without the quotes around it and the
    blanks after it; None when the title has no such tag (or goes on past a line break)."""
    match = pattern.match(title)
    if match is None:
        return None
    rest = title[match.end() :].rstrip()
    if "\n" in rest:
        return None
    rest = rest[:-1] if rest.endswith(QUOTES) else rest
    return rest[1:] if rest.startswith(QUOTES) else rest


def base_title(title: str) -> str:
    """A change's title without reland and copy tags: every submission of one change shares it."""
    inner = tagged(RELAND, title)
    return normalize_title(COPY_TAG.sub("", title if inner is None else inner))


def link_relands_and_reverts(assessments: Sequence[Assessment], by_id: Mapping[str, Assessment]) -> None:
    by_title: dict[tuple[str | None, str], list[Assessment]] = defaultdict(list)
    for assessment in assessments:
        if assessment.item.kind in ("pull_request", "commit"):
            by_title[(assessment.item.repo, base_title(assessment.item.title or ""))].append(assessment)
    for assessment in assessments:
        title = assessment.item.title or ""
        for pattern, kind, back in ((RELAND, "relands", "relanded_by"), (REVERT, "reverts", "reverted_by")):
            inner = tagged(pattern, title)
            if inner is None:
                continue
            for target, evidence in _targets(assessment, inner, by_id, by_title):
                assessment.relate(kind, target.id if isinstance(target, Assessment) else target, evidence)
                if isinstance(target, Assessment):
                    target.relate(back, assessment.id, evidence)


def _targets(
    assessment: Assessment,
    inner: str,
    by_id: Mapping[str, Assessment],
    by_title: dict[tuple[str | None, str], list[Assessment]],
) -> list[tuple[Assessment | str, str]]:
    """What a reland or revert points at: the PR number in its title, else the one its description
    opens by naming (GitHub's revert writes "Reverts owner/repo#N"), else the earlier changes of the
    same title: a later one is a copy submitted after it, which it cannot revert or reland."""
    repo = assessment.item.repo
    number = REFERENCED_NUMBER.search(inner)
    if number and repo:
        target_id = github_item_id(repo, int(number.group(1)))
        return [(by_id.get(target_id, target_id), f"title names #{number.group(1)}")]
    named = NAMED_TARGET.match(assessment.item.body or "")
    if named and repo and named.group(1) in (None, repo):
        target_id = github_item_id(repo, int(named.group(2)))
        return [(by_id.get(target_id, target_id), f"description names #{named.group(2)}")]
    own = assessment.item.number
    return [
        (match, "same title")
        for match in by_title.get((repo, base_title(inner)), [])
        if match is not assessment
        and match.item.kind != "commit"
        and (own is None or match.item.number is None or match.item.number < own)
    ]


def link_stacks(assessments: Sequence[Assessment], by_id: Mapping[str, Assessment]) -> None:
    """ghstack lists every PR of a stack in each member's body: link the members we hold."""
    for assessment in assessments:
        repo = assessment.item.repo
        if not assessment.features.stack or not repo:
            continue
        for number in assessment.features.stack:
            target = github_item_id(repo, number)
            if target != assessment.id and target in by_id:
                assessment.relate("stack", target, "ghstack stack list")


def fuse(assessments: Sequence[Assessment]) -> list[Assessment]:
    kept = merge_same_url(assessments)
    by_id = {assessment.id: assessment for assessment in kept}
    link_duplicates(kept, by_id)
    link_picked_originals(kept, by_id)
    link_relands_and_reverts(kept, by_id)
    link_stacks(kept, by_id)
    return kept
