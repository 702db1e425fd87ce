"""Item JSONL import and export (the format of the shared data files)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from pytorch_insight.errors import ImportFormatError, describe_validation_error
from pytorch_insight.model import GITHUB_KINDS, Item, commit_item_id, github_item_id
from pytorch_insight.store import Store

BATCH = 500


@dataclass
class ImportResult:
    imported: int = 0
    errors: list[tuple[int, str]] = field(default_factory=list)


def item_from_line(data: dict[str, Any]) -> Item:
    """Build an item from one JSONL object, deriving its id and source when absent."""
    kind, repo, number = data.get("kind"), data.get("repo"), data.get("number")
    values = dict(data)
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


def read_items(lines: Iterable[str]) -> Iterator[tuple[int, Item | str]]:
    """(line number, item) for good lines and (line number, error) for bad ones; blanks skipped."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, f"not JSON ({exc.msg} at column {exc.colno})"
            continue
        if not isinstance(data, dict):
            yield number, f"expected a JSON object, got {type(data).__name__}"
            continue
        try:
            yield number, item_from_line(data)
        except ValidationError as exc:
            yield number, f"invalid {describe_validation_error(exc)}"
        except ValueError as exc:
            yield number, str(exc)


def import_file(store: Store, path: Path) -> ImportResult:
    """Store every good line of `path`; bad lines are reported with their numbers, never fatal."""
    result = ImportResult()
    batch: list[Item] = []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, parsed in read_items(handle):
                if isinstance(parsed, str):
                    result.errors.append((number, parsed))
                    continue
                batch.append(parsed)
                if len(batch) >= BATCH:
                    result.imported += store.save_items(batch)
                    batch = []
    except OSError as exc:
        raise ImportFormatError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ImportFormatError(f"{path} is not UTF-8 text") from None
    finally:
        result.imported += store.save_items(batch)
    return result


def export_items(items: Iterable[Item], out: IO[str]) -> int:
    count = 0
    for item in items:
        out.write(json.dumps(item.to_jsonl(), ensure_ascii=False) + "\n")
        count += 1
    return count
