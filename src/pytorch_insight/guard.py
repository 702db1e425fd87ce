"""Literal guards: strings one of which every match of a pattern contains, read off the pattern.

A pattern led by `\\b`, by a lookbehind or by a case-blind alternation gives the regular expression
engine nothing to skip ahead to, so a search tries the whole pattern at every position of the text.
Most texts hold none of the words such a pattern needs: a substring test for them (a C loop) rules
the search out at a fraction of its cost, and the search runs unchanged on every other text. A
guard only ever says "cannot match": what a guarded search finds is what the pattern finds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from functools import cache

# The parser `re` itself compiles with (private, but present from Python 3.11 on, which the project
# requires); a tree of a shape this module does not know gets no guard.
from re import _constants as sre
from re import _parser as sre_parse
from typing import Any

REPEATS = frozenset({sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT})


@dataclass(frozen=True, slots=True)
class Guard:
    """What a match needs: for each of `clauses`, one of its strings in the text (lower-cased when
    `folded`: the pattern ignores case). No clause: the pattern needs no fixed string."""

    clauses: tuple[tuple[str, ...], ...]
    folded: bool
    # False when the engine finds where a match can start by itself: a test first would save nothing.
    worth: bool = True

    def may_match(self, text: str, lowered: str | None = None) -> bool:
        """False only when no match of the pattern can be in `text` (`lowered`: text.lower(), if at hand)."""
        if not self.clauses or not self.worth:
            return True
        if self.folded:
            # Case-blind matching pairs some non-ASCII characters with ASCII ones ("K", the Kelvin
            # sign, with "k"; "ſ" with "s") that lower() keeps apart: only an ASCII text is ruled out.
            if not text.isascii():
                return True
            text = lowered if lowered is not None else text.lower()
        # Loops, not all() and any() over generators: a guard is asked for every pattern of every item.
        for clause in self.clauses:
            for literal in clause:
                if literal in text:
                    break
            else:
                return False
        return True


def either(guards: Iterable[Guard]) -> Guard:
    """The guard of a choice between patterns: one of them matches only if its guard lets the text
    through, so a text holding none of their most selective clauses' strings matches none of them."""
    found = list(guards)
    if not found or any(not g.clauses for g in found) or len({g.folded for g in found}) > 1:
        return Guard((), False)
    strings = _minimal(frozenset(literal for g in found for literal in g.clauses[0]))
    return Guard((tuple(sorted(strings)),), found[0].folded)


@cache
def guard(pattern: re.Pattern[str]) -> Guard:
    """The pattern's guard, read off its parse tree once; the most selective clauses are tried first."""
    folded = bool(pattern.flags & re.IGNORECASE)
    try:
        tree = sre_parse.parse(pattern.pattern, pattern.flags)
        # A group that turns case folding on or off would need its literals tested both ways.
        clauses = [] if _scoped_case_folding(tree) else _required(tree, folded)
        skips = _engine_skips(list(tree), folded, bool(pattern.flags & re.MULTILINE))
    except Exception:  # noqa: BLE001 - a tree of a shape this reading does not know: no guard
        clauses, skips = [], False
    written = {tuple(sorted(clause)) for clause in clauses}
    ordered = tuple(sorted(written, key=lambda clause: (_selectivity(clause), clause), reverse=True))
    return Guard(ordered, folded, worth=not skips)


def _required(nodes: Iterable[tuple], folded: bool) -> list[frozenset[str]]:
    """Clauses every match of the sequence `nodes` satisfies: sets of strings, one of each held."""
    clauses: list[frozenset[str]] = []
    run: list[str] = []
    for op, value in [*nodes, (None, None)]:  # the sentinel closes the last run of literals
        if op is sre.LITERAL and (chr(value).isascii() or not folded):
            run.append(chr(value).lower() if folded else chr(value))
            continue
        if run:  # consecutive characters of every match
            clauses.append(frozenset({"".join(run)}))
            run = []
        if op is sre.SUBPATTERN:
            clauses += _required(value[3], folded)
        elif op is sre.ATOMIC_GROUP:
            clauses += _required(value, folded)
        elif op in REPEATS and value[0] >= 1:
            clauses += _required(value[2], folded)
        elif op is sre.BRANCH:
            options = [_required(branch, folded) for branch in value[1]]
            if all(options):  # an alternative that needs no string voids them all
                # Both joins: the one with the fewest strings may join better in an enclosing choice.
                clauses += {_either(options, _selectivity), _either(options, _fewest)}
        # anything else (a class, any character, an assertion, a back reference) needs no string
    return clauses


def _engine_skips(nodes: list[tuple], folded: bool, multiline: bool) -> bool:
    """Whether the engine itself finds where a match can start without trying the pattern: it is
    anchored at the start of the text (`^` is every line's start in a multi-line pattern), or
    starts with a character (or one of a few) matched as written."""
    while nodes and nodes[0][0] is sre.SUBPATTERN:
        nodes = list(nodes[0][1][3])
    if not nodes:
        return False
    op, value = nodes[0]
    if op is sre.AT:
        return value is sre.AT_BEGINNING_STRING or (value is sre.AT_BEGINNING and not multiline)
    if op is sre.BRANCH:
        return all(branch and _engine_skips(list(branch)[:1], folded, multiline) for branch in value[1])
    return not folded and op in (sre.LITERAL, sre.IN)


def _scoped_case_folding(nodes: Iterable[tuple]) -> bool:
    """Whether a group inside the pattern turns case folding on or off."""
    for op, value in nodes:
        if op is sre.SUBPATTERN:
            if (value[1] | value[2]) & re.IGNORECASE or _scoped_case_folding(value[3]):
                return True
        elif op is sre.BRANCH:
            if any(_scoped_case_folding(branch) for branch in value[1]):
                return True
        elif op is sre.ATOMIC_GROUP or op in REPEATS or op in (sre.ASSERT, sre.ASSERT_NOT):
            if _scoped_case_folding(value if op is sre.ATOMIC_GROUP else value[-1]):
                return True
    return False


def _either(options: list[list[frozenset[str]]], key: Callable[[frozenset[str]], Any]) -> frozenset[str]:
    """One clause for a choice between alternatives: a clause of each, joined, chosen by `key`. Each
    alternative's best clause to begin with, then any other of its clauses that makes the join
    better ("to fix" | "that fixes" | "with a fix" join with the fewest strings as " fix")."""
    chosen = [max(option, key=key) for option in options]
    for n, option in enumerate(options):
        for clause in option:
            trial = [*chosen[:n], clause, *chosen[n + 1 :]]
            if key(_minimal(frozenset().union(*trial))) > key(_minimal(frozenset().union(*chosen))):
                chosen = trial
    return _minimal(frozenset().union(*chosen))


def _minimal(strings: frozenset[str]) -> frozenset[str]:
    """The strings without those that hold another one: a text holding the longer holds the shorter."""
    return frozenset(s for s in strings if not any(other != s and other in s for other in strings))


def _selectivity(clause: Collection[str]) -> float:
    """How rarely a text satisfies a clause, roughly: each string of n characters in one text of 4**n."""
    return -sum(4.0 ** -len(string) for string in clause)


def _fewest(clause: Collection[str]) -> tuple[int, float]:
    """The fewer strings, then the rarer."""
    return -len(clause), _selectivity(clause)
