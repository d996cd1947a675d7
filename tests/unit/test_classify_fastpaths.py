"""The classifier's fast paths give exactly what the plain definitions give."""

from __future__ import annotations

import random
import re
import sys
import unicodedata

from router.classify.langid import dominant_script
from router.classify.learned import NGRAM_SIZES, _ngrams
from router.classify.text import ODD_SPACES, collapse_spaces, nfkc

_SPACES = re.compile(r"[^\S\n]+")
_LATIN = re.compile(r"[a-zà-ɏ]", re.IGNORECASE)  # langid's Latin-script pattern
# Characters NFKC or the space collapsing change, and ones they keep, mixed at random.
POOL = "aZ \n\t  ，：！Ａｚ\u3000ﬁé\u0301İ한글ｶﾞ\u00a0\u2003\u1680\u0085中文。x1２ß"


def _texts(count: int) -> list[str]:
    rnd = random.Random(18)
    texts = ["", "plain ascii text", "请将以下文章翻译成英文：图灵测试。", "Größe  über\tStraße"]
    texts += ["".join(rnd.choice(POOL) for _ in range(rnd.randint(0, 16))) for _ in range(count)]
    return texts


def test_nfkc_fast_path_equals_unicodedata() -> None:
    for text in _texts(20000):
        assert nfkc(text) == unicodedata.normalize("NFKC", text), repr(text)


def test_collapse_spaces_equals_the_regex() -> None:
    for text in _texts(20000):
        assert collapse_spaces(text) == _SPACES.sub(" ", text), repr(text)


def test_odd_spaces_lists_every_whitespace_character_but_space_and_newline() -> None:
    every = {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()} - {" ", "\n"}
    assert set(ODD_SPACES) == every


def test_ngrams_equal_the_slices() -> None:
    for text in _texts(5000):
        expected = {text[i : i + n] for n in NGRAM_SIZES for i in range(len(text) - n + 1)}
        assert _ngrams(text) == expected, repr(text)


def test_dominant_script_of_ascii_text_is_what_the_script_patterns_count() -> None:
    rnd = random.Random(18)
    pool = "aZiIsSkK09 _-'!\n\t"
    for _ in range(5000):
        text = "".join(rnd.choice(pool) for _ in range(rnd.randint(0, 12)))
        latin = len(_LATIN.findall(text))
        assert dominant_script(text) == ("Latin" if latin else None), repr(text)
    assert dominant_script("日本語のテキスト") == "Kana"  # non-ASCII: the full count
