"""Getting the text to classify out of chat messages, and normalising it."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

_SPACES = re.compile(r"[^\S\n]+")
# Whitespace `_SPACES` rewrites even alone (all of it lies below U+3000's end; a test checks):
# a text with none of these and no double space is left as it is, without a regex pass.
ODD_SPACES = tuple(c for c in map(chr, range(0x3001)) if c.isspace() and c not in " \n")
# Full-width ASCII and the ideographic space: the only characters of common CJK text that
# NFKC changes. Replacing them by their NFKC forms first often leaves a text that is already
# NFKC, which a quick check confirms (NFKC over 2,000 Chinese characters costs ~0.3 ms).
_FULL_WIDTH = re.compile("[\uff01-\uff5e\u3000]")
_FULL_WIDTH_NFKC = {
    c: unicodedata.normalize("NFKC", c) for c in map(chr, [*range(0xFF01, 0xFF5F), 0x3000])
}
# Instructions sit at the start of a request or after the payload; the middle of a long
# request is payload whose words must not trigger anything (and scanning it costs time).
HEAD_CHARS = 300
TAIL_CHARS = 150


def content_text(content: object) -> str:
    """A message's text: a plain string, or the text parts of a multimodal list."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts: list[str] = []
        for part in content:
            if isinstance(part, Mapping) and part.get("type") == "text":
                text = part.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "\n".join(parts)
    return ""


def last_text(messages: Sequence[Mapping[str, object]], role: str) -> str:
    for message in reversed(messages):
        if message.get("role") == role:
            return content_text(message.get("content"))
    return ""


def nfkc(text: str) -> str:
    """`unicodedata.normalize("NFKC", text)`, without its cost where a text is (nearly) NFKC
    already: ASCII always is; swapping a character for its compatibility form keeps a text's
    NFKC form the same, so a text that is NFKC after the full-width swap is the answer."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text
    swapped = text
    for char in set(_FULL_WIDTH.findall(text)):
        swapped = swapped.replace(char, _FULL_WIDTH_NFKC[char])
    if swapped is not text and unicodedata.is_normalized("NFKC", swapped):
        return swapped
    return unicodedata.normalize("NFKC", text)


def collapse_spaces(text: str) -> str:
    """Runs of spaces (any whitespace but newlines) as one space; the regex pass only where
    something would change (on 2,000 characters of prose it costs ~80 µs)."""
    if "  " in text or any(map(text.__contains__, ODD_SPACES)):
        return _SPACES.sub(" ", text)
    return text


def normalise(text: str) -> str:
    """NFKC (full-width forms, ligatures), casefold, and collapse runs of spaces."""
    folded = nfkc(text).casefold()
    if "\u0307" in folded:  # Turkish "İ" casefolds to "i" + combining dot: keep the plain "i"
        folded = folded.replace("i\u0307", "i")
    return collapse_spaces(folded).strip()


def in_original_case(raw: str, normalised: str, part: str) -> str:
    """`part` of `normalise(raw)` as `raw` writes it (NFKC, spaces collapsed, case kept): the
    text a route translates must keep its capitals. `part` itself where casefolding changed
    the text's length ("ß" → "ss") and offsets no longer line up."""
    display = collapse_spaces(nfkc(raw)).strip()
    start = normalised.find(part)
    if start < 0 or len(display) != len(normalised):
        return part
    original = display[start : start + len(part)]
    return original if original.casefold() == part else part


def window(text: str) -> str:
    """The instruction-bearing part of a long text: its head and its tail."""
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return text
    return text[:HEAD_CHARS] + "\n…\n" + text[-TAIL_CHARS:]
