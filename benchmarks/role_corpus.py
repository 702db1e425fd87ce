"""Build the sentence-role corpus from texts whose authors labelled the roles themselves.

    python benchmarks/role_corpus.py MIRROR_GIT_DIR ... [--out benchmarks/data/corpus/pytorch-role-sentences.jsonl]

Two sources, both transcribed as stored, never paraphrased:
- the issue descriptions of `benchmarks/data/corpus/pytorch-labelled-issues.jsonl`;
- the PR descriptions of `pytorch/*` repositories as their squash-merge commit messages carry them
  (the messages of snapshots brought with the search tools' `fetch`; a subject ending "(#N)" names
  the PR, whose URL is the record's provenance).

A thread of a labelled week (benchmarks/data/raw, ../shared/data/raw), or a text naming one of
their pytorch/pytorch numbers, is left out: those weeks are what the field-truth benchmark judges.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pytorch_insight.learn.roles import RoleSentence, labelled_sentences, write_role_corpus  # noqa: E402

ISSUES = ROOT / "benchmarks" / "data" / "corpus" / "pytorch-labelled-issues.jsonl"
OUT = ROOT / "benchmarks" / "data" / "corpus" / "pytorch-role-sentences.jsonl"
WEEKS = [
    *(ROOT / "benchmarks" / "data" / "raw").glob("*.jsonl"),
    *(ROOT.parent / "shared" / "data" / "raw").glob("*.jsonl"),
]
PR_SUBJECT = re.compile(r"\(#(\d+)\)\s*$")
RESOLVED = re.compile(r"Pull Request resolved:\s*(https://github\.com/[\w.-]+/[\w.-]+/pull/(\d+))")
# pytorch/pytorch numbers have six digits; the other repositories' stay far below.
BIG_NUMBER = re.compile(r"(?:#|/)(\d{6})\b")
# Roles that every PR or issue template fills: a sample keeps them from drowning the rarer ones.
CAPS = {"summary": 3000, "test_plan": 2000, "problem": 3000, "fix": 3000, "context": 2000, "repro": 1500}


def evaluation_threads() -> tuple[set[tuple[str, int]], set[int]]:
    threads, numbers = set(), set()
    for path in WEEKS:
        for line in path.read_text(encoding="utf-8").splitlines():
            data = json.loads(line) if line.strip() else {}
            if isinstance(data.get("number"), int) and isinstance(data.get("repo"), str):
                threads.add((data["repo"].lower(), data["number"]))
                if data["repo"] == "pytorch/pytorch":
                    numbers.add(data["number"])
    return threads, numbers


def issue_texts() -> Iterator[tuple[str, str, str]]:
    for line in ISSUES.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        kind = "pull" if data.get("kind") == "pull_request" else "issues"
        yield (
            f"{data['repo']}#{data['number']}",
            f"https://github.com/{data['repo']}/{kind}/{data['number']}",
            data["text"],
        )


def commit_texts(git_dir: Path) -> Iterator[tuple[str, str, str]]:
    """(thread, url, description) of each squash-merged PR in the snapshot's history."""
    repo = git_dir.parent.name.replace("+", "/", 1)
    log = subprocess.run(
        ["git", "--git-dir", str(git_dir), "log", "--no-merges", "--format=%B%x00"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for message in log.split("\x00"):
        subject, _, body = message.strip().partition("\n")
        resolved = RESOLVED.search(body)
        number = PR_SUBJECT.search(subject)
        if resolved:
            url, pr = resolved.group(1), int(resolved.group(2))
            owner_name = url.split("/")[3] + "/" + url.split("/")[4]
        elif number:
            pr, owner_name = int(number.group(1)), repo
            url = f"https://github.com/{repo}/pull/{pr}"
        else:
            continue
        yield f"{owner_name}#{pr}", url, body


def build(git_dirs: list[Path]) -> list[RoleSentence]:
    threads, numbers = evaluation_threads()
    records: list[RoleSentence] = []
    skipped: Counter[str] = Counter()
    seen: set[str] = set()
    sources = [issue_texts(), *(commit_texts(d) for d in git_dirs)]
    for texts in sources:
        for thread, url, text in texts:
            repo, _, number = thread.partition("#")
            if (repo.lower(), int(number)) in threads or any(int(n) in numbers for n in BIG_NUMBER.findall(text)):
                skipped["a labelled week's thread, or naming one"] += 1
                continue
            if thread in seen:
                continue
            seen.add(thread)
            records += [
                RoleSentence(role, sentence, thread, url, heading)
                for role, heading, sentence in labelled_sentences(text)
            ]
    print(f"skipped: {dict(skipped)}", file=sys.stderr)
    return capped(records)


def capped(records: list[RoleSentence]) -> list[RoleSentence]:
    """Each capped role keeps a fixed pseudo-random sample (by a hash of thread and sentence)."""
    kept = []
    order = sorted(records, key=lambda r: hashlib.sha256(f"{r.thread}\n{r.text}".encode()).hexdigest())
    counts: Counter[str] = Counter()
    for record in order:
        if counts[record.role] < CAPS.get(record.role, 10**9):
            counts[record.role] += 1
            kept.append(record)
    return sorted(kept, key=lambda r: (r.thread, r.role))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dirs", nargs="*", type=Path)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    records = build(args.git_dirs)
    write_role_corpus(records, args.out)
    counts = Counter(r.role for r in records)
    print(f"{len(records)} sentences of {len({r.thread for r in records})} threads: {dict(counts.most_common())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
