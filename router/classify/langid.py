"""Language identification (lingua) and a cheap dominant-script test."""

from __future__ import annotations

import re
from dataclasses import dataclass

import langcodes
from lingua import Language, LanguageDetector, LanguageDetectorBuilder

# Identification of a few hundred characters is as good as of the whole text, and cheaper.
MAX_CHARS = 240
_SCRIPTS = (
    ("Han", re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")),
    ("Kana", re.compile(r"[\u3040-\u30ff]")),
    ("Hangul", re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")),
    ("Cyrillic", re.compile(r"[\u0400-\u04ff]")),
    ("Arabic", re.compile(r"[\u0600-\u06ff\u0750-\u077f]")),
    ("Hebrew", re.compile(r"[\u0590-\u05ff]")),
    ("Devanagari", re.compile(r"[\u0900-\u097f]")),
    ("Greek", re.compile(r"[\u0370-\u03ff]")),
    ("Thai", re.compile(r"[\u0e00-\u0e7f]")),
    ("Latin", re.compile(r"[a-zà-ɏ]", re.IGNORECASE)),
)

_ASCII_LETTER = re.compile(r"[a-z]", re.IGNORECASE)


def dominant_script(text: str) -> str | None:
    """The script with most letters in `text` (Kana wins over Han: Japanese uses both)."""
    if text.isascii():  # only the Latin pattern matches ASCII: spare the other nine passes
        return "Latin" if _ASCII_LETTER.search(text) else None
    counts = {name: len(pattern.findall(text)) for name, pattern in _SCRIPTS}
    if counts["Kana"]:
        counts["Kana"] += counts["Han"]
    best = max(counts, key=lambda name: counts[name])
    return best if counts[best] else None


# Left out: languages rarely sent to a gateway that short texts in bigger languages are
# mistaken for (low-accuracy mode reads a short Spanish sentence as Tswana).
# fmt: off
LEFT_OUT = (
    Language.GANDA, Language.MAORI, Language.SHONA, Language.SOMALI, Language.SOTHO,
    Language.TSONGA, Language.TSWANA, Language.XHOSA, Language.YORUBA, Language.ZULU,
    Language.ESPERANTO, Language.NYNORSK, Language.BOSNIAN, Language.MALAY,
)
# fmt: on


# lingua builds per-alphabet lookups on first sight of a character class (~25 ms for the
# first German umlaut): one text per alphabet at construction keeps that out of requests.
# fmt: off
WARM_UP = (
    "Größe über Straße", "déjà vu à la française ça", "¿Mañana? ¡Sí!", "ação não coração",
    "zażółć gęślą jaźń", "příliš žluťoučký kůň", "ğüşıöç Türkçe", "Tiếng Việt đẹp lắm",
    "blåbær og øl", "árvíztűrő tükörfúrógép", "pâine și țară", "þú ert góð", "Привет, мир",
    "Γειά σου κόσμε", "مرحبا بالعالم", "שלום עולם", "नमस्ते दुनिया", "你好世界", "こんにちは",
    "안녕하세요", "สวัสดีครับ", "გამარჯობა", "Բարեւ", "hello world",
)
# fmt: on


@dataclass(frozen=True, slots=True)
class Identified:
    language: str  # English name
    confidence: float
    runners_up: tuple[str, ...] = ()  # the next likeliest, for short ambiguous texts


class LanguageIdentifier:
    """lingua's detector over all its languages; models load once, at construction."""

    def __init__(self) -> None:
        self._detector: LanguageDetector = (
            LanguageDetectorBuilder.from_all_languages_without(*LEFT_OUT)
            .with_low_accuracy_mode()
            .with_preloaded_language_models()
            .build()
        )
        self._english = {language: _english_name(language) for language in Language.all()}
        self._by_name = {name: language for language, name in self._english.items()}
        for text in WARM_UP:
            self._detector.compute_language_confidence_values(text)

    def identify(self, text: str) -> Identified | None:
        sample = text[:MAX_CHARS]
        if not any(c.isalpha() for c in sample):
            return None
        values = self._detector.compute_language_confidence_values(sample)
        if not values:
            return None
        names = tuple(self._english[v.language] for v in values[:3])
        return Identified(names[0], float(values[0].value), names[1:])


    def confidence_of(self, text: str, language: str) -> float | None:
        """How likely `text` is in `language` (an English name), alone of all languages;
        None for a language lingua does not know."""
        known = self._by_name.get(language)
        if known is None:
            return None
        return float(self._detector.compute_language_confidence(text[:MAX_CHARS], known))


def _english_name(language: Language) -> str:
    code = language.iso_code_639_1.name.lower()
    return str(langcodes.Language.get(code).display_name("en").split(" (")[0])
