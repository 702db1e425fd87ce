"""What an analyser returns, and what it may look at besides the item itself."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from pytorch_insight.config import Profile, Reader
from pytorch_insight.pipeline import Assessment

# `unconfirmed`: an issue still open whose fix PRs are all closed without a landing in the data
# (PyTorch lands through a bot, so a closed PR may or may not have landed); the issue is not
# closed, so it must never read as "closed".
FixState = Literal["none", "open", "landed", "merged", "reverted", "closed", "unconfirmed", "referenced", "tracking"]


class Comparison(BaseModel):
    """Two measurements of one quantity that the source puts side by side."""

    before: float
    after: float
    unit: str
    change_pct: float
    text: str


class FileChange(BaseModel):
    filename: str
    status: str = "modified"
    additions: int = 0
    deletions: int = 0
    functions: list[str] = Field(default_factory=list)


class Facts(BaseModel):
    """Verbatim facts found in the sources; every list may be empty."""

    components: list[str] = Field(default_factory=list)
    apis: list[str] = Field(default_factory=list)
    versions: list[str] = Field(default_factory=list)
    hardware: list[str] = Field(default_factory=list)
    numbers: list[str] = Field(default_factory=list)
    comparisons: list[Comparison] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    files: list[FileChange] = Field(default_factory=list)
    downstream: list[str] = Field(default_factory=list)


class Analysis(BaseModel):
    """An empty field means the sources do not say; nothing here is guessed."""

    summary: str = ""
    details: str = ""
    root_cause: str = ""
    impact: str = ""
    quoted_from: dict[str, str] = Field(default_factory=dict)  # field -> id of the linked item it quotes
    workaround: str = ""
    workaround_code: str = ""
    # A triage label saying a workaround exists ("has workaround") where no sentence states one.
    workaround_label: str = ""
    fix_state: FixState = "none"
    fix_refs: list[str] = Field(default_factory=list)
    # States of referenced PRs the window does not hold, as the timeline gave them.
    fix_ref_states: dict[str, str] = Field(default_factory=dict)
    # A closed PR of the story whose thread asks the merge tooling to land it: "author: command".
    merge_requested: str = ""
    revert_requested: str = ""  # "author: command" asking the merge tooling to revert a closed PR
    # An issue with no fix PR in the data whose thread says one was opened: "author: words".
    pr_mentioned: str = ""
    # An issue with no fix PR in the data whose thread names a PR (by its URL or "PR #N"): "author: words".
    pr_named: str = ""
    # An issue no PR or comment of the window links to a fix whose comments after the window name a PR:
    # "author, date: words" ("no fix PR" by the window's end stays true, but the data holds more).
    pr_named_later: str = ""
    # A closed PR of the story whose thread says another change replaced it or it was abandoned: the words.
    superseded: str = ""
    # A closed PR of the story whose thread says it landed ("the diff has been landed D123"): the words.
    landed_said: str = ""
    # A closed PR that a later PR of the window relands (PyTorch relands what was reverted): those PRs.
    relanded_by: list[str] = Field(default_factory=list)
    # A closed PR whose cherry-pick of the window (its copy for a release branch) merged: those picks.
    picked_by: list[str] = Field(default_factory=list)
    # A closed issue with no fix PR in the data whose thread says it is fixed ("fixed in NCCL 2.26"): the words.
    fixed_said: str = ""
    # PRs of the window titled after the same problem (a `similar` link) that name no issue: PR id ->
    # state. Not its fix by any word of theirs, so never called one; but "no fix PR" is not said.
    similar_prs: dict[str, str] = Field(default_factory=dict)
    # PRs of the window linked with it by URL (either thread names the other), when none is linked as
    # its fix: PR id -> state. Named as linked, neither called its fix nor denied as one.
    linked_prs: dict[str, str] = Field(default_factory=dict)
    said_in: dict[str, str] = Field(default_factory=dict)  # "merge_requested" / "pr_mentioned" ... -> whose thread
    facts: Facts = Field(default_factory=Facts)
    analyser: str = "rules"
    action: str = ""  # set by a language model that suggested one (rules decide otherwise)
    urgency: str = ""
    reason: str = ""
    kept_sentences: int = 0  # grounding accounting for model-written text
    dropped_sentences: list[str] = Field(default_factory=list)
    note: str = ""

    def fix_passed_over(self) -> bool:
        """Its one linked fix PR is the one its thread says another change replaced."""
        return bool(self.fix_refs) and self.fix_refs == [self.said_in.get("superseded")]


@dataclass
class AnalysisContext:
    """The rest of the window as the analyser may see it: every assessment by id, and who reads."""

    profile: Profile
    reader: Reader
    by_id: dict[str, Assessment] = field(default_factory=dict)
