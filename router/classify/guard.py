"""A first-letter guard for long alternations: `guarded(pattern)` prepends a lookahead for
the letters the pattern can start with.

Python's `re` tries every alternative of `a|b|c…` at every position of the text. The phrasing
patterns have dozens of alternatives, most starting with a word boundary and a literal, so a
900-character window costs 0.2-0.45 ms per search. One set test per position ("can any
alternative start here?") skips most of them: the same matches, 3-8x faster. Letters that
only start an alternative after `\b` ("t" of `\btranslate`) are common mid-word: a boundary
test skips those positions too (another 1.3-2x on Latin-script text).
"""

from __future__ import annotations

import re
from re import _constants as c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any


class _Unguardable(Exception):
    """The pattern can start with something a set of letters does not describe."""


def first_letters(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """The characters any match of `pattern` starts with; None when that is not a finite set
    (`.`, `\\w`, negated sets, or a pattern that can match the empty string)."""
    split = first_letters_split(pattern)
    return None if split is None else split[0] | split[1]


def first_letters_split(pattern: re.Pattern[str]) -> tuple[frozenset[str], frozenset[str]] | None:
    """`first_letters` in two: those every match starting with them has a word boundary
    before (`\\bcat`: "c"), and the rest. Mid-word positions of the first ones need no try."""
    try:
        bounded, free, nullable = _first(list(_parser.parse(pattern.pattern, pattern.flags)))
    except _Unguardable:
        return None
    return None if nullable else (frozenset(bounded - free), frozenset(free))


def _first(items: list[Any], boundary: bool = False) -> tuple[set[str], set[str], bool]:
    """First letters of a sequence of parsed items, split as by `first_letters_split`
    (`boundary`: a `\\b` holds where the sequence starts), and whether it can match empty."""
    bounded: set[str] = set()
    free: set[str] = set()
    for op, arg in items:
        if op is c.AT:
            # Zero-width items before a first letter all hold where the match starts.
            boundary = boundary or arg is c.AT_BOUNDARY
            continue
        if op in (c.ASSERT, c.ASSERT_NOT):
            continue  # zero-width: the letters come from what follows
        if op is c.LITERAL or op is c.IN:
            letters = {chr(arg)} if op is c.LITERAL else _set_letters(arg)
            (bounded if boundary else free).update(letters)
            return bounded, free, False
        if op is c.SUBPATTERN:
            inner_bounded, inner_free, nullable = _first(list(arg[-1]), boundary)
        elif op is c.BRANCH:
            inner_bounded, inner_free, nullable = set(), set(), False
            for branch in arg[1]:
                found_bounded, found_free, empty = _first(list(branch), boundary)
                inner_bounded |= found_bounded
                inner_free |= found_free
                nullable = nullable or empty
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, _, body = arg
            inner_bounded, inner_free, nullable = _first(list(body), boundary)
            nullable = nullable or low == 0
        else:
            raise _Unguardable(str(op))
        bounded |= inner_bounded
        free |= inner_free
        if not nullable:
            return bounded, free, False
    return bounded, free, True


def _set_letters(items: list[Any]) -> set[str]:
    letters: set[str] = set()
    for op, arg in items:
        if op is c.LITERAL:
            letters.add(chr(arg))
        elif op is c.RANGE and arg[1] - arg[0] < 512:
            letters.update(chr(i) for i in range(arg[0], arg[1] + 1))
        else:
            raise _Unguardable(str(op))
    return letters


def guarded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """`pattern` behind a lookahead for its first letters (itself when they are unknown); the
    letters that only start a match after a word boundary are looked for only there."""
    split = first_letters_split(pattern)
    if split is None or not (split[0] or split[1]):
        return pattern
    bounded, free = split
    ahead = f"(?=[{_charset(bounded | free)}])"
    if bounded:  # one set test first (cheap everywhere), the boundary only where it passes
        ahead += rf"(?:\b|(?=[{_charset(free)}]))" if free else r"\b"
    return re.compile(f"{ahead}(?:{pattern.pattern})", pattern.flags)


def _charset(letters: frozenset[str]) -> str:
    return "".join(re.escape(letter) for letter in sorted(letters))


def required_literals(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Literal strings one of which every match of `pattern` contains: a text holding none of
    them cannot match, which a few substring tests (C speed) tell without running the pattern
    (`TOPIC`, with dozens of alternatives most letters can start, costs 0.15 ms on a
    450-character window). None when some alternative has none, or case is ignored."""
    if pattern.flags & re.IGNORECASE:
        return None
    found = _required(list(_parser.parse(pattern.pattern, pattern.flags)))
    return None if found is None else tuple(sorted(found))


def _required(items: list[Any]) -> set[str] | None:
    """One of these strings is in every match of the sequence `items` (None: none known).
    Prefers a run of 3+ literal characters, then a group's alternatives' strings."""
    runs, run = [], ""
    groups: list[set[str]] = []
    for op, arg in items:
        if op is c.LITERAL:
            run += chr(arg)
            continue
        runs.append(run)
        run = ""
        inner: set[str] | None = None
        if op is c.SUBPATTERN:
            inner = _required(list(arg[-1]))
        elif op is c.BRANCH:
            inner = set()
            for branch in arg[1]:
                found = _required(list(branch))
                if found is None:
                    inner = None
                    break
                inner |= found
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and arg[0] >= 1:
            inner = _required(list(arg[2]))
        if inner:
            groups.append(inner)
    longest = max([*runs, run], key=len)
    if len(longest) >= 3:
        return {longest}
    long_groups = [g for g in groups if min(map(len, g)) >= 3]
    if long_groups:
        return min(long_groups, key=len)
    if longest:
        return {longest}
    return min(groups, key=len) if groups else None


def may_match(literals: tuple[str, ...] | None, text: str) -> bool:
    """Whether `text` holds one of a pattern's `required_literals` (True when it has none)."""
    return literals is None or any(map(text.__contains__, literals))
