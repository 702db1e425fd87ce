"""Code level: the functions a PR's diff hunks touch, and where a downstream checkout uses them."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pytorch_insight.analysis.model import FileChange

HUNK_HEADER = re.compile(r"^@@ [^@]+ @@\s*(.*)$", re.M)
DEFINITION = re.compile(r"\b(?:def|class|struct|void|auto|static|inline|template<[^>]*>)?\s*([A-Za-z_][\w:]*)\s*[(:<]")
SOURCE_SUFFIXES = {".py", ".pyi", ".cpp", ".cc", ".c", ".h", ".hpp", ".cu", ".cuh", ".mm"}
SKIP_DIRS = {".git", "node_modules", "__pycache__", "build", "dist", ".venv", "venv", "third_party"}
MAX_HITS = 12
MAX_FILE_BYTES = 2_000_000


def file_changes(payloads: list[dict[str, Any]]) -> list[FileChange]:
    """GitHub's PR file list -> files with the functions named in their hunk headers."""
    changes = []
    for payload in payloads:
        functions = []
        for context in HUNK_HEADER.findall(payload.get("patch") or ""):
            match = DEFINITION.search(context)
            if match and match.group(1) not in functions:
                functions.append(match.group(1))
        changes.append(
            FileChange(
                filename=payload.get("filename", ""),
                status=payload.get("status", "modified"),
                additions=payload.get("additions", 0),
                deletions=payload.get("deletions", 0),
                functions=functions[:10],
            )
        )
    return changes


def _needles(files: list[FileChange]) -> list[str]:
    """Regular expressions for what to look for downstream: touched function names, and the Python
    modules of touched files whether imported whole (``import a.b.c``) or by name (``from a.b import c``)."""
    needles: list[str] = []
    for change in files:
        for function in change.functions:
            name = function.split("::")[-1].split(".")[-1]
            if len(name) >= 4:
                needles.append(rf"\b{re.escape(name)}\b")
        path = Path(change.filename)
        if path.suffix == ".py" and path.stem != "__init__":
            parts = path.with_suffix("").parts
            needles.append(rf"\b{re.escape('.'.join(parts))}\b")
            if len(parts) > 1:
                needles.append(
                    rf"\bfrom\s+{re.escape('.'.join(parts[:-1]))}\s+import\b[^\n]*\b{re.escape(parts[-1])}\b"
                )
    return list(dict.fromkeys(needles))


def downstream_uses(files: list[FileChange], checkout: Path) -> list[str]:
    """``path:line: text`` for the places in `checkout` that name a touched function or module."""
    needles = _needles(files)
    if not needles or not checkout.is_dir():
        return []
    pattern = re.compile("|".join(needles))
    hits: list[str] = []
    for root, dirs, names in os.walk(checkout):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(names):
            path = Path(root) / name
            if path.suffix not in SOURCE_SUFFIXES or path.stat().st_size > MAX_FILE_BYTES:
                continue
            try:
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            for number, line in enumerate(lines, start=1):
                if pattern.search(line):
                    hits.append(f"{path.relative_to(checkout)}:{number}: {line.strip()[:120]}")
                    if len(hits) >= MAX_HITS:
                        return hits
    return hits
