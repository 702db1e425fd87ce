"""Labelled examples for the severity model, from JSONL files.

Two shapes are read: the harvest shape (`text` holds the description as far as it was shown) and
the item shape of `import`/`export` (`body`). A line that is not a labelled GitHub issue or PR is
counted and skipped, never fatal; the same thread seen twice is kept once (the longer text).

A fix PR may carry the labels of the issue it fixes (`labels_from: "owner/name#N"`): triagers label
issues, rarely PRs, and this is how the model learns how a fix describes what it fixes. Such a PR
is held out with its issue.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Example:
    repo: str
    number: int
    title: str
    text: str
    labels: tuple[str, ...]
    created: str | None  # YYYY-MM-DD
    labels_from: tuple[str, int] | None = None  # the issue whose labels a fix PR carries

    @property
    def key(self) -> tuple[str, int]:
        return (self.repo.lower(), self.number)


@dataclass
class Corpus:
    examples: list[Example] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # why -> lines

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1


def read_corpus(paths: Iterable[Path], exclude: set[tuple[str, int]] = frozenset()) -> Corpus:  # type: ignore[assignment]
    """Every labelled thread of the files, once, without the excluded (repo, number) pairs."""
    corpus = Corpus()
    best: dict[tuple[str, int], Example] = {}
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if not line.strip():
                    continue
                example = _example(line, corpus)
                if example is None:
                    continue
                if example.key in exclude or example.labels_from in exclude:
                    corpus.skip("held out (a labelled week)")
                    continue
                kept = best.get(example.key)
                if kept is None or len(example.text) > len(kept.text) or (len(kept.labels) < len(example.labels)):
                    best[example.key] = _merge(kept, example)
    corpus.examples = sorted(best.values(), key=lambda e: (e.created or "", e.repo, e.number))
    return corpus


def _merge(kept: Example | None, new: Example) -> Example:
    if kept is None:
        return new
    labelled = new if len(new.labels) >= len(kept.labels) else kept
    labels, source = labelled.labels, labelled.labels_from
    text = new.text if len(new.text) >= len(kept.text) else kept.text
    return Example(new.repo, new.number, new.title or kept.title, text, labels, new.created or kept.created, source)


def _example(line: str, corpus: Corpus) -> Example | None:
    try:
        data = json.loads(line)
    except ValueError:
        corpus.skip("not JSON")
        return None
    if not isinstance(data, Mapping):
        corpus.skip("not an object")
        return None
    repo, number, labels = data.get("repo"), data.get("number"), data.get("labels")
    if not isinstance(repo, str) or not isinstance(number, int) or not isinstance(labels, list):
        corpus.skip("no repository, number or label list")
        return None
    labels = tuple(str(label) for label in labels if isinstance(label, str))
    if not labels:
        corpus.skip("no labels")
        return None
    text = data.get("text") if isinstance(data.get("text"), str) else data.get("body")
    created = data.get("created")
    source = data.get("labels_from")
    owner_name, _, issue = source.partition("#") if isinstance(source, str) else ("", "", "")
    if source is not None and not (owner_name.count("/") == 1 and issue.isdigit()):
        corpus.skip("labels_from names no issue")
        return None
    return Example(
        repo=repo,
        number=number,
        title=str(data.get("title") or ""),
        text=text if isinstance(text, str) else "",
        labels=labels,
        created=created[:10] if isinstance(created, str) and len(created) >= 10 else None,
        labels_from=(owner_name.lower(), int(issue)) if issue else None,
    )


def held_out_keys(paths: Iterable[Path]) -> set[tuple[str, int]]:
    """(repo, number) of every thread in labelled-week files: the model never trains on a week it
    is judged on."""
    keys: set[tuple[str, int]] = set()
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    data = json.loads(line)
                except ValueError:
                    continue
                if (
                    isinstance(data, Mapping)
                    and isinstance(data.get("repo"), str)
                    and isinstance(data.get("number"), int)
                ):
                    keys.add((data["repo"].lower(), data["number"]))
    return keys


def class_targets(
    example: Example, classes: Mapping[str, list[str]], title_classes: Mapping[str, list[str]]
) -> set[str]:
    """The classes a thread's labels (or, for bots' titles, its title prefix) put it in."""
    labels = {label.lower() for label in example.labels}
    found = {name for name, names in classes.items() if labels & {n.lower() for n in names}}
    title = example.title.lower()
    found |= {name for name, prefixes in title_classes.items() if any(title.startswith(p.lower()) for p in prefixes)}
    return found
