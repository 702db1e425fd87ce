"""Item JSONL import and export (the format of the shared data files)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from pytorch_insight.dating import Dater
from pytorch_insight.errors import ImportFormatError, StoreError, describe_validation_error
from pytorch_insight.model import GITHUB_KINDS, Item, commit_item_id, derived_item_id, github_item_id
from pytorch_insight.redact import redact_tokens
from pytorch_insight.store import Store

BATCH = 500
# Real payloads nest a handful of levels; a line nested deeper than this would exhaust the
# recursion limit later on (validation, storage, export), so it is refused up front.
MAX_DEPTH = 100
TOO_DEEP = f"nested too deeply (more than {MAX_DEPTH} levels)"


@dataclass
class ImportResult:
    imported: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)
    estimated: list[tuple[int, str]] = field(default_factory=list)  # (line, the creation time given by its neighbours)
    undated: list[int] = field(default_factory=list)  # lines stored without any date: in no window


def item_from_line(data: dict[str, Any]) -> Item:
    """Build an item from one JSONL object, deriving its id and source when absent."""
    kind, repo, number = data.get("kind"), data.get("repo"), data.get("number")
    values = dict(data)
    if isinstance(number, str) and number.strip().isdigit():  # "5" is issue 5, not a second row for it
        number = values["number"] = int(number.strip())
    native = (kind in GITHUB_KINDS and repo and isinstance(number, int)) or (
        kind == "commit" and repo and data.get("sha")
    )
    derived = derived_item_id(values) if native else None
    if "id" in values and derived and values["id"] != derived:
        # An id names its item: one that another item's repository and number would give is refused,
        # or a line could overwrite an item it does not describe.
        raise ValueError(f"id {str(values['id'])[:200]!r} does not match the line's repository and number ({derived})")
    if "id" not in values:
        if kind in GITHUB_KINDS and repo and isinstance(number, int):
            values["id"] = github_item_id(repo, number)
        elif kind == "commit" and repo and data.get("sha"):
            values["id"] = commit_item_id(repo, data["sha"])
        elif data.get("url"):
            values["id"] = f"{kind}:{data['url']}"
        else:
            raise ValueError("no id, and neither repo+number nor url to derive one from")
    values.setdefault("source", "github" if kind in GITHUB_KINDS or kind == "commit" else kind)
    values["labels"] = values.get("labels") or []
    values["comments"] = values.get("comments") or []
    return Item.model_validate({**values, "raw": data})


def read_items(lines: Iterable[bytes | str]) -> Iterator[tuple[int, Item | str]]:
    """(line number, item) for good lines and (line number, error) for bad ones; blanks skipped.

    Lines may be bytes: each is decoded on its own, so one bad byte costs one line, not the file."""
    for number, line in enumerate(lines, start=1):
        if number == 1 and isinstance(line, bytes) and b"\x00" in line[:4096]:
            # JSON text never holds a NUL byte: this is an archive, an image, a database file.
            raise ImportFormatError("it holds binary data (a NUL byte on line 1), not item JSONL")
        parsed = parse_line(line, first=number == 1)
        if parsed is not None:
            yield number, parsed


def parse_line(line: bytes | str, first: bool = False) -> Item | str | None:
    """The item of one line, why the line is skipped, or None for a blank line."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            return "not valid UTF-8"
    if first:
        line = line.removeprefix("\ufeff")  # the byte order mark some editors write
    if not line.strip():
        return None
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return f"not JSON ({exc.msg} at column {exc.colno})"
    except RecursionError:
        return TOO_DEEP
    if not isinstance(data, dict):
        return f"expected a JSON object, got {type(data).__name__}"
    if nesting_depth(data) > MAX_DEPTH:
        return TOO_DEEP
    try:
        return item_from_line(data)
    except ValidationError as exc:
        return f"invalid {describe_validation_error(exc)}"
    except ValueError as exc:
        return str(exc)


def nesting_depth(value: Any) -> int:
    """How deeply lists and objects nest in `value` (iterative: the point is to not recurse)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, depth = stack.pop()
        children = current.values() if isinstance(current, dict) else current if isinstance(current, list) else ()
        if children:
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in children)
    return deepest


def import_file(store: Store, path: Path) -> ImportResult:
    """Store every good line of `path`; bad lines are reported with their numbers, never fatal."""
    try:
        with path.open("rb") as handle:
            return import_lines(store, handle)
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror}") from None
    except ImportFormatError as exc:
        raise ImportFormatError(f"cannot import {path}: {exc}") from None


def import_lines(store: Store, lines: Iterable[bytes | str]) -> ImportResult:
    """Store every good line (of a file or standard input) in batches of `BATCH`."""
    result = ImportResult()
    batch: list[tuple[int, Item]] = []
    dater, held_lines = Dater(), {}
    try:
        for number, parsed in read_items(lines):
            if isinstance(parsed, str):
                result.errors.append((number, parsed))
                continue
            if not dater.see(parsed):
                held_lines[parsed.id] = number
                continue
            batch.append((number, parsed))
            if len(batch) >= BATCH:
                save_lines(store, batch, result)
                batch = []
    finally:
        # Undated threads wait for their neighbours' dates; stored whatever happens, dated or not.
        dated, undated = dater.finish()
        result.estimated = [(held_lines[item.id], item.created or "") for item in dated]
        result.undated = [held_lines[item.id] for item in undated]
        save_lines(store, batch, result)  # an interrupted import keeps what it read
        held = [(held_lines[item.id], item) for item in dated + undated]
        for start in range(0, len(held), BATCH):
            save_lines(store, held[start : start + BATCH], result)
        result.errors.sort()
    return result


def save_lines(store: Store, batch: list[tuple[int, Item]], result: ImportResult) -> None:
    """Store a batch of (line number, item); when the database refuses the batch, each line is
    stored on its own, so a value only the database objects to costs its own line, named."""
    if not batch:
        return
    try:
        result.imported += store.save_items([item for _, item in batch])
        return
    except StoreError:
        pass
    refused = []
    for number, item in batch:
        try:
            result.imported += store.save_items([item])
        except StoreError as exc:
            refused.append((number, f"the database refused it ({exc})"))
    if len(refused) == len(batch) > 1:  # the database itself, not the lines
        raise StoreError(f"the database refused every line of lines {batch[0][0]}-{batch[-1][0]}: {refused[0][1]}")
    result.errors.extend(refused)


def export_items(items: Iterable[Item], out: IO[str]) -> int:
    count = 0
    for item in items:
        # Redacted again: a store written before tokens were redacted on the way in still holds them.
        out.write(json.dumps(redact_tokens(item.to_jsonl()), ensure_ascii=False) + "\n")
        count += 1
    return count
