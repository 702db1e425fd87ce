"""Dating the GitHub items that arrive without a creation time (a transcribed thread whose
description date was never shown, an export from another tool).

Such an item must not vanish from every window. GitHub numbers issues and PRs of a repository in
the order they were opened, so the dated items around its number bound when it was opened: it is
dated by its nearest dated predecessor (the earliest moment it can have) and says so in
`created_estimate`. An item with no dated neighbour and no dated activity stays undated, and the
caller names it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable

from pytorch_insight.model import GITHUB_KINDS, Item

# The opening of the basis `_estimate` writes when a neighbour's number dates the item.
BY_NUMBER = re.compile(r"opened (after|before) #(\d+)")


class Dater:
    def __init__(self) -> None:
        self.known: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self.held: list[Item] = []

    def see(self, item: Item) -> bool:
        """Record a dated item (True) or hold an undated GitHub item for `finish` (False)."""
        if item.kind not in GITHUB_KINDS or item.number is None or not item.repo:
            return True
        if item.created:
            self.known[item.repo.lower()].append((item.number, item.created))
            return True
        self.held.append(item)
        return False

    def finish(self) -> tuple[list[Item], list[Item]]:
        """(the held items, dated where their neighbours or their own activity allow; those that stay undated)."""
        for numbers in self.known.values():
            numbers.sort()
        dated, undated = [], []
        for item in self.held:
            estimate = self._estimate(item)
            if estimate is None:
                undated.append(item)
            else:
                created, basis = estimate
                dated.append(item.model_copy(update={"created": created, "created_estimate": basis}))
        return dated, undated

    def _estimate(self, item: Item) -> tuple[str, str] | None:
        numbers = self.known.get((item.repo or "").lower(), [])
        at = bisect_left(numbers, (item.number or 0, ""))
        before = numbers[at - 1] if at > 0 else None
        after = next((pair for pair in numbers[at:] if pair[0] != item.number), None)
        if before is not None:
            bound = f" and #{after[0]} ({after[1][:10]})" if after else ""
            return before[1], f"opened after #{before[0]} ({before[1][:10]}){bound}: dated by its number"
        own = sorted(moment for moment in _activity(item) if moment)
        if own:
            return own[0], "dated by its earliest known activity"
        if after is not None:
            return after[1], f"opened before #{after[0]} ({after[1][:10]}): dated by its number"
        return None


def estimate_basis(item: Item) -> tuple[str, int | None] | None:
    """How the item's inferred creation date was found: ("after" or "before", the dated neighbour's
    number) or ("activity", None); None when its date was collected."""
    basis = (item.model_extra or {}).get("created_estimate")
    if not basis:
        return None
    found = BY_NUMBER.match(str(basis))
    return (found.group(1), int(found.group(2))) if found else ("activity", None)


def _activity(item: Item) -> Iterable[str | None]:
    yield item.closed
    yield item.merged
    yield item.updated
    yield from (comment.date for comment in item.comments)


def date_items(items: Iterable[Item]) -> tuple[list[Item], list[Item]]:
    """All items, the undated GitHub ones dated where possible; and those that stay undated."""
    dater, kept = Dater(), []
    for item in items:
        if dater.see(item):
            kept.append(item)
    dated, undated = dater.finish()
    return kept + dated + undated, undated
