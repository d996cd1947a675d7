"""The first-letter guard of the phrasing patterns: the same matches as without it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from router.classify import phrasing as p
from router.classify.guard import (
    first_letters,
    first_letters_split,
    guarded,
    may_match,
    required_literals,
)
from router.classify.text import normalise

# What `guarded` puts before a pattern: the first-letter set, then the word-boundary test.
GUARD_HEAD = re.compile(r"\(\?=\[[^\]]*\]\)(?:\(\?:\\b\|\(\?=\[[^\]]*\]\)\)|\\b)?\(\?:")
CHALLENGE = Path(__file__).parent / "data" / "routing_challenge.jsonl"


@pytest.mark.parametrize(
    ("pattern", "letters"),
    [
        (r"\bcat|dog", {"c", "d"}),
        (r"(?<!x)[ab]c|^(?:please )?say", {"a", "b", "p", "s"}),
        (r"(?:x|y)?z", {"x", "y", "z"}),
        (r"[a-c]+d", {"a", "b", "c"}),
    ],
)
def test_first_letters(pattern: str, letters: set[str]) -> None:
    assert first_letters(re.compile(pattern)) == frozenset(letters)


@pytest.mark.parametrize(
    ("pattern", "bounded", "free"),
    [
        (r"\bcat|dog", {"c"}, {"d"}),
        (r"\b(?:cat|dog)|(?<!x)翻", {"c", "d"}, {"翻"}),
        (r"\bcat|cow", set(), {"c"}),  # "c" also starts a match without a boundary
        (r"(?:\b)?cat", set(), {"c"}),  # the boundary may not be there
        (r"(?:x\b)?\by", {"y"}, {"x"}),
    ],
)
def test_first_letters_split_by_word_boundary(
    pattern: str, bounded: set[str], free: set[str]
) -> None:
    assert first_letters_split(re.compile(pattern)) == (frozenset(bounded), frozenset(free))


def test_guard_skips_mid_word_positions_of_boundary_letters() -> None:
    pattern = guarded(re.compile(r"\btranslate|翻译"))
    assert pattern.pattern.startswith(r"(?=[t翻])(?:\b|(?=[翻]))")
    assert [m.span() for m in pattern.finditer("retranslate; translate 翻译")] == [
        (13, 22),
        (23, 25),
    ]


@pytest.mark.parametrize("pattern", [r"\w+cat", r"[^a]b", r".x", r"a?", r"cat|\d"])
def test_unknown_first_letters_leave_the_pattern_as_is(pattern: str) -> None:
    compiled = re.compile(pattern)
    assert first_letters(compiled) is None
    assert guarded(compiled) is compiled


def _texts() -> list[str]:
    rows = [json.loads(line) for line in CHALLENGE.read_text("utf-8").splitlines() if line]
    texts = [normalise(m["content"]) for row in rows for m in row["messages"]]
    return [
        *texts,
        "wie sagt man 'cheers' auf deutsch?",
        "翻下这句：你好",
        "check whether this translation is correct?",
        "how do the dutch say thank you",
    ]


@pytest.mark.parametrize("name", [n for n in dir(p) if isinstance(getattr(p, n), re.Pattern)])
def test_guarded_patterns_match_exactly_as_the_originals(name: str) -> None:
    pattern: re.Pattern[str] = getattr(p, name)
    head = GUARD_HEAD.match(pattern.pattern)
    if head is None:
        return  # not guarded
    original = re.compile(pattern.pattern[head.end() : -1], pattern.flags)
    assert guarded(original).pattern == pattern.pattern
    for text in _texts():
        assert [m.span() for m in pattern.finditer(text)] == [
            m.span() for m in original.finditer(text)
        ], text


@pytest.mark.parametrize(
    ("pattern", "literals"),
    [
        (r"machine[- ]?translat|\bdeepl\b", ("deepl", "translat")),
        (r"(?:hard|easy) to translate", (" to translate",)),
        (r"(?:翻译|翻譯)|x", ("x", "翻")),  # short runs where there is nothing longer
        (r"翻[译譯]|(?:ü|ue)bersetz", ("bersetz", "翻")),
        (r"(?:a|b)?cat|\w+ing", ("cat", "ing")),
        (r"\w+|cat", None),  # "\\w+" contains no literal
    ],
)
def test_required_literals(pattern: str, literals: tuple[str, ...] | None) -> None:
    assert required_literals(re.compile(pattern)) == literals


def test_required_literals_ignore_nothing_topic_matches() -> None:
    assert p.TOPIC_LITERALS is not None
    matched = [text for text in _texts() if p.TOPIC.search(text)]
    assert matched  # the challenge set talks about translation
    for text in matched:
        assert may_match(p.TOPIC_LITERALS, text), text
    assert not may_match(p.TOPIC_LITERALS, "summarise this report in three bullet points")
