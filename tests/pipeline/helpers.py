"""Small hand-written items for the pipeline tests."""

from __future__ import annotations

from typing import Any

from pytorch_insight.config import Profile, load_profile
from pytorch_insight.model import Comment, Item
from pytorch_insight.pipeline import Assessment, assess
from pytorch_insight.pipeline.features import extract_features

PROFILE: Profile = load_profile("pytorch")
# The rules alone: no pick model, and so no red model (it reads the pick model's numbers).
RULES: Profile = PROFILE.model_copy(
    update={
        "judgement": PROFILE.judgement.model_copy(
            update={"picks": PROFILE.judgement.picks.model_copy(update={"weight": 0.0})}
        )
    }
)


def item(
    number: int, title: str = "", body: str = "", kind: str = "issue", repo: str = "pytorch/pytorch", **fields: Any
) -> Item:
    comments = [Comment(author=f"user{i}", date="2026-04-09", body="x") for i in range(fields.pop("n_comments", 0))]
    path = "pull" if kind == "pull_request" else "issues"
    defaults: dict[str, Any] = {
        "id": f"github:{repo}#{number}",
        "source": "github",
        "repo": repo,
        "number": number,
        "url": f"https://github.com/{repo}/{path}/{number}",
        "author": "someone",
        "state": "open",
        "created": "2026-04-08T12:00:00Z",
        "comments": comments,
    }
    return Item(**{**defaults, **fields, "kind": kind, "title": title, "body": body})


def assessment(it: Item) -> Assessment:
    return Assessment(it, extract_features(it), relations=list(it.relations))


def run(*items: Item, reader: str | None = None, use_labels: bool = True) -> dict[str, Assessment]:
    return {a.id: a for a in assess(items, PROFILE, reader, use_labels)}


def ref(number: int, repo: str = "pytorch/pytorch") -> str:
    return f"github:{repo}#{number}"


def relations(a: Assessment, kind: str) -> list[str]:
    return sorted(r.target for r in a.relations if r.type == kind)


def texts(reasons: list) -> list[str]:
    """The English wording of reasons (what the JSON report carries)."""
    return [r.en for r in reasons]
