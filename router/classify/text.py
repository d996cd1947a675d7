"""Getting the text to classify out of chat messages, and normalising it."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

_SPACES = re.compile(r"[^\S\n]+")
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


def normalise(text: str) -> str:
    """NFKC (full-width forms, ligatures), casefold, and collapse runs of spaces."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if "\u0307" in folded:  # Turkish "İ" casefolds to "i" + combining dot: keep the plain "i"
        folded = folded.replace("i\u0307", "i")
    return _SPACES.sub(" ", folded).strip()


def in_original_case(raw: str, normalised: str, part: str) -> str:
    """`part` of `normalise(raw)` as `raw` writes it (NFKC, spaces collapsed, case kept): the
    text a route translates must keep its capitals. `part` itself where casefolding changed
    the text's length ("ß" → "ss") and offsets no longer line up."""
    display = _SPACES.sub(" ", unicodedata.normalize("NFKC", raw)).strip()
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
