"""Build the sentence-role corpus from texts whose authors labelled the roles themselves.

    python benchmarks/role_corpus.py MIRROR_GIT_DIR ... [--out benchmarks/data/corpus/pytorch-role-sentences.jsonl]

Two sources, both transcribed as stored, never paraphrased:
- the issue descriptions of `benchmarks/data/corpus/pytorch-labelled-issues.jsonl`;
- the PR descriptions of `pytorch/*` repositories as their squash-merge commit messages carry them
  (the messages of snapshots brought with the search tools' `fetch`, `/work/.mirror/OWNER+NAME/repo`).
Other ML repositories' descriptions were tried and left out: their "Why" and "Impact" headings
introduce a change's motivation and its users' gain, and the cause and impact roles read worse on
PyTorch's own sentences with them (benchmarks/data/README.md).

A message's PR is named by its "Pull Request resolved:" URL, else by its subject's "(#N)" in the
snapshot's own repository, unless an "X-link:" to PR N or a six-digit N says the commit was synced
from another one (pytorch/pytorch); a URL naming the repository under a former owner
(pytorch-labs/ao) is given its own name. That PR's URL is the record's provenance.

The template roles (summary, fix, problem ...) are sampled down to CAPS; the rarer roles are kept
whole.

A thread of a labelled week (benchmarks/data/raw, ../shared/data/raw beside the main checkout), or a
text naming one of their pytorch/pytorch numbers, is left out: those weeks are what the field-truth
benchmark judges.
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


def main_checkout() -> Path:
    """The main checkout of this repository (ROOT itself unless ROOT is a git worktree): the labelled
    weeks of ../shared sit beside it, not beside a worktree."""
    common = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--path-format=absolute", "--git-common-dir"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return Path(common).parent if common else ROOT


WEEKS = sorted(
    {
        *(ROOT / "benchmarks" / "data" / "raw").glob("*.jsonl"),
        *(ROOT.parent / "shared" / "data" / "raw").glob("*.jsonl"),
        *(main_checkout().parent / "shared" / "data" / "raw").glob("*.jsonl"),
    }
)
PR_SUBJECT = re.compile(r"\(#(\d+)\)\s*$")
RESOLVED = re.compile(r"Pull Request resolved:\s*https://github\.com/([\w.-]+/[\w.-]+)/pull/(\d+)")
XLINK = re.compile(r"^X-link:\s*https://github\.com/([\w.-]+/[\w.-]+)/pull/(\d+)", re.M)
# pytorch/pytorch numbers have six digits; the other repositories' stay far below.
BIG_NUMBER = re.compile(r"(?:#|/)(\d{6})\b")
# Owners a PyTorch repository moved between, its PR numbers kept (pytorch-labs/ao is pytorch/ao).
TRANSFERRED = {"pytorch", "pytorch-labs", "meta-pytorch"}
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


def former_name(named: str, repo: str) -> bool:
    """Whether `named` (of a "Pull Request resolved:" or "X-link:" URL) is `repo` under a name it had
    before a transfer between the PyTorch organisations (pytorch-labs/monarch is meta-pytorch/monarch):
    its PR numbers are the repository's own, and one PR is one thread."""
    owner, _, name = named.lower().partition("/")
    return named.lower() != repo.lower() and name == repo.lower().partition("/")[2] and owner in TRANSFERRED


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
            owner_name, pr = resolved.group(1), int(resolved.group(2))
        elif number:
            pr = int(number.group(1))
            # A commit synced from another repository keeps that one's "(#N)": an "X-link:" to PR N
            # names it, or a six-digit number, which only pytorch/pytorch has.
            linked = [m.group(1) for m in XLINK.finditer(body) if int(m.group(2)) == pr]
            owner_name = linked[0] if linked else "pytorch/pytorch" if pr >= 100_000 else repo
        else:
            continue
        if former_name(owner_name, repo):
            owner_name = repo
        yield f"{owner_name}#{pr}", f"https://github.com/{owner_name}/pull/{pr}", body


def build(git_dirs: list[Path]) -> list[RoleSentence]:
    """The sentences of the issues and of the snapshots' PRs, the template roles sampled to CAPS."""
    threads, numbers = evaluation_threads()
    records: list[RoleSentence] = []
    skipped: Counter[str] = Counter()
    seen: set[str] = set()
    for texts in [issue_texts(), *(commit_texts(d) for d in git_dirs)]:
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
    return sorted(capped(records, CAPS), key=lambda r: (r.thread, r.role))


def capped(records: list[RoleSentence], caps: dict[str, int]) -> list[RoleSentence]:
    """Each capped role keeps a fixed pseudo-random sample (by a hash of thread and sentence)."""
    kept = []
    order = sorted(records, key=lambda r: hashlib.sha256(f"{r.thread}\n{r.text}".encode()).hexdigest())
    counts: Counter[str] = Counter()
    for record in order:
        if counts[record.role] < caps.get(record.role, 10**9):
            counts[record.role] += 1
            kept.append(record)
    return kept


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
