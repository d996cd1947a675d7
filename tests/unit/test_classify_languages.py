"""Language names (from CLDR via langcodes) and language identification."""

from __future__ import annotations

import pytest

from router.classify.langid import LanguageIdentifier, dominant_script
from router.classify.languages import LanguageNames
from router.classify.text import content_text, normalise, window


@pytest.fixture(scope="module")
def names() -> LanguageNames:
    return LanguageNames()


@pytest.mark.parametrize(
    ("word", "english"),
    [
        ("english", "English"), ("anglais", "English"), ("englische", "English"),
        ("inglés", "English"), ("ingles", "English"), ("английский", "English"),
        ("английском", "English"), ("по-английски", "English"), ("الإنجليزية", "English"),
        ("بالإنجليزية", "English"), ("अंग्रेज़ी", "English"), ("अंग्रेजी", "English"),
        ("영어로", "English"), ("英语", "English"), ("英文", "English"), ("英語", "English"),
        ("deutsch", "German"), ("allemand", "German"), ("日语", "Japanese"),
        ("español", "Spanish"), ("japonês", "Japanese"), ("cinese", "Chinese"),
        ("हिंदी", "Hindi"), ("farsi", "Persian"),
    ],
)  # fmt: skip
def test_resolve(names: LanguageNames, word: str, english: str) -> None:
    assert names.resolve(word) == english


@pytest.mark.parametrize("word", ["markdown", "python", "json", "lets", "fins", "uppercase"])
def test_not_languages(names: LanguageNames, word: str) -> None:
    assert names.resolve(word) is None


@pytest.mark.parametrize(
    ("word", "english"),
    [("mexican", "Spanish"), ("brazil", "Portuguese"), ("france", "French"), ("japan", "Japanese")],
)
def test_nationality(names: LanguageNames, word: str, english: str) -> None:
    assert names.nationality(word) == english


def test_mentions_in_unsegmented_text(names: LanguageNames) -> None:
    import re

    text = "请将以下英文句子翻译成中文"
    found = names.mentions(text, list(re.finditer(r"\w+", text)))
    assert [m.language for m in found] == ["English", "Chinese"]


def test_identifier() -> None:
    identifier = LanguageIdentifier()
    found = identifier.identify("Die Erfindung betrifft eine Vorrichtung zur Kühlung.")
    assert found is not None and found.language == "German"
    assert identifier.identify("1234 !!") is None


def test_scripts_and_text_helpers() -> None:
    assert dominant_script("これは日本語です") == "Kana"
    assert dominant_script("这是中文") == "Han"
    assert dominant_script("Привет") == "Cyrillic"
    assert normalise("  ＴＲＡＮＳＬＡＴＥ   this ") == "translate this"
    assert content_text([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]) == "a\nb"
    assert content_text(None) == ""
    long = "x" * 5000
    assert len(window(long)) < 1000
