"""Language names in many languages → English names, built from CLDR data via langcodes.

The table is built once per Classifier. Besides CLDR's display names it holds the inflected
forms requests use ("ins Deutsche", "на английский", "بالإنجليزية", "英文"), which CLDR lacks.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

import langcodes

# Languages worth recognising as translation targets: the big ones, plus every language of
# the dev slices. Kept to established languages so that rare language names that are also
# common words (Spanish "ido", …) never count as a language mention.
# fmt: off
LANGUAGE_CODES = (
    "en", "zh", "ja", "ko", "fr", "de", "es", "it", "pt", "ru", "ar", "hi", "bn", "ur", "fa",
    "tr", "nl", "sv", "nb", "nn", "no", "da", "fi", "pl", "cs", "sk", "hu", "ro", "bg", "uk",
    "el", "he", "th", "vi", "id", "ms", "fil", "sw", "ta", "te", "mr", "gu", "kn", "ml", "pa",
    "ne", "si", "my", "km", "lo", "mn", "ka", "hy", "az", "kk", "uz", "be", "sr", "hr", "bs",
    "sl", "mk", "sq", "lt", "lv", "et", "is", "ga", "cy", "eu", "ca", "gl", "af", "zu", "xh",
    "am", "so", "ha", "yo", "ig", "la", "eo", "mt", "lb", "ps", "ku", "yue",
    # smaller languages people ask for words in ("what is thank you in Hawaiian")
    "haw", "mi", "sm", "to", "fj", "qu", "gn", "bo", "ug", "tt", "ky", "tg", "tk", "jv", "su",
    "ceb", "hmn", "ht", "gd", "br", "co", "fo", "sa", "yi", "mg", "rw", "om", "ti", "wo", "ln",
    "ny", "sn", "dv", "or", "as", "sd", "ckb", "ba", "cv", "ce", "oc", "rm", "ay",
)
# Locales whose names for those languages requests use ("anglais", "英语", "영어", …).
DISPLAY_LOCALES = (
    "en", "zh", "zh-Hant", "ja", "ko", "fr", "de", "es", "it", "pt", "ru", "ar", "hi", "nl",
    "sv", "pl", "tr", "fa", "he", "vi", "id", "uk", "da", "fi", "cs", "ro", "el", "th", "sw",
    "bn", "ta", "te", "mr", "ur", "gu", "kn", "pa", "hu", "bg", "sr", "hr", "sk", "sl", "nb",
    "ca", "ms", "ka", "am", "lt", "lv",
)
# fmt: on
# Short forms CLDR does not list.
EXTRA_NAMES = {
    "英文": "English",
    "中文": "Chinese",
    "汉语": "Chinese",
    "漢語": "Chinese",
    "华语": "Chinese",
    "國語": "Chinese",
    "普通话": "Chinese",
    "普通話": "Chinese",
    "国语": "Chinese",
    "繁体中文": "Chinese",
    "简体中文": "Chinese",
    "中国語": "Chinese",
    "日文": "Japanese",
    "韩文": "Korean",
    "韓文": "Korean",
    "法文": "French",
    "德文": "German",
    "西文": "Spanish",
    "俄文": "Russian",
    "英": "English",
    "中": "Chinese",
    "日": "Japanese",
    "mandarin": "Chinese",
    "cantonese": "Cantonese",
    "farsi": "Persian",
    "tagalog": "Filipino",
    "castilian": "Spanish",
    "castellano": "Spanish",
    "brazilian": "Portuguese",
    "hebraico": "Hebrew",
    "inglese": "English",
    "ingles": "English",
    "हिंदी": "Hindi",
    "portugese": "Portuguese",
    "portugeese": "Portuguese",
    "phillipino": "Filipino",
    "frisian": "Western Frisian",
    "gaelic": "Scottish Gaelic",
    "kurdish": "Kurdish",
}  # fmt: skip
# CLDR names that are also everyday words in a request's language.
NOT_NAMES = frozenset({
    "lets", "fins", "iers", "arab", "viro", "grec",
    # places, people and words that some locale also uses as a language name
    "hawaii", "samoa", "tonga", "fiji", "tibet", "tiibet", "haiti", "sunda", "jawa", "ruanda",
    "corse", "corso", "korsika", "miao", "assam", "faroe", "sardi", "sarde", "sardo", "fries",
    "gaeli", "akan", "ganda", "chewa", "shona", "breton", "bretons", "tatar", "ewe",
    # names of the later locales (Malay, Filipino, Hungarian, Baltic, …) that are countries,
    # or everyday words elsewhere: Malay "dan" (and), Hungarian "lett" (became), "ír" (writes),
    # Spanish "ir", Turkish "sonu", "check" in Indic scripts
    "dan", "tai", "ir", "ír", "roman", "japan", "poland", "portugal", "norway", "hungary",
    "finland", "iceland", "ireland", "sweden", "denmark", "ukraine", "croatia", "macedonia",
    "lithuania", "catalonia", "luxembourg", "wales", "laos", "nepal", "kazakhstan",
    "uzbekistan", "azerbaijan", "belarus", "corsica", "occitania", "corea", "cors", "leto",
    "letó", "polu", "valu", "somu", "sonu", "kosu", "lett", "finn", "malai", "itali", "serbi",
    "пущу", "בלאו", "চেক", "চেকে", "ચેક", "చెక్", "செக்", "ਚੈੱਕ", "ካናዳ",
})  # fmt: skip
# Nationalities that are not language names ("how would I say … if I were Mexican").
DEMONYMS = {
    "mexican": "Spanish", "spaniard": "Spanish", "argentinian": "Spanish",
    "argentine": "Spanish", "colombian": "Spanish", "peruvian": "Spanish", "cuban": "Spanish",
    "chilean": "Spanish", "venezuelan": "Spanish", "brazilian": "Portuguese",
    "american": "English", "british": "English", "australian": "English",
    "canadian": "English", "indian": "Hindi", "pakistani": "Urdu", "egyptian": "Arabic",
    "saudi": "Arabic", "moroccan": "Arabic", "iraqi": "Arabic", "syrian": "Arabic",
    "israeli": "Hebrew", "iranian": "Persian", "austrian": "German", "swiss": "German",
    "belgian": "French", "taiwanese": "Chinese", "filipino": "Filipino",
    "chinese": "Chinese", "kenyan": "Swahili", "tanzanian": "Swahili",
}  # fmt: skip
# Cities and regions people name instead of a country ("… if I were in Seoul", "people from
# Quebec"): the big ones of each language (langcodes knows countries only).
PLACES = {
    "seoul": "Korean", "busan": "Korean", "tokyo": "Japanese", "osaka": "Japanese",
    "kyoto": "Japanese", "beijing": "Chinese", "shanghai": "Chinese", "taipei": "Chinese",
    "hongkong": "Cantonese", "paris": "French", "lyon": "French", "marseille": "French",
    "quebec": "French", "montreal": "French", "berlin": "German", "munich": "German",
    "hamburg": "German", "vienna": "German", "zurich": "German", "madrid": "Spanish",
    "barcelona": "Spanish", "seville": "Spanish", "bogota": "Spanish", "bogotá": "Spanish",
    "lima": "Spanish", "havana": "Spanish", "rome": "Italian", "milan": "Italian",
    "naples": "Italian", "venice": "Italian", "florence": "Italian", "lisbon": "Portuguese",
    "porto": "Portuguese", "rio": "Portuguese", "moscow": "Russian", "kyiv": "Ukrainian",
    "kiev": "Ukrainian", "warsaw": "Polish", "krakow": "Polish", "prague": "Czech",
    "budapest": "Hungarian", "athens": "Greek", "istanbul": "Turkish", "ankara": "Turkish",
    "cairo": "Arabic", "riyadh": "Arabic", "beirut": "Arabic", "casablanca": "Arabic",
    "marrakech": "Arabic", "tehran": "Persian", "delhi": "Hindi", "mumbai": "Hindi",
    "bangkok": "Thai", "hanoi": "Vietnamese", "saigon": "Vietnamese", "jakarta": "Indonesian",
    "bali": "Indonesian", "manila": "Filipino", "nairobi": "Swahili", "amsterdam": "Dutch",
    "stockholm": "Swedish", "oslo": "Norwegian", "copenhagen": "Danish", "helsinki": "Finnish",
    "jerusalem": "Hebrew", "bavaria": "German", "catalonia": "Catalan", "andalusia": "Spanish",
}  # fmt: skip
# Two CJK names start with the one-character abbreviations above; only these count alone.
SINGLE_CHAR_NAMES = frozenset("英中日")
_CJK_NAME_END = re.compile(r"[语語文话話]")
_HANGUL_PARTICLE = re.compile(r"(?:으로|로|를|을|는|은|가|이|의|에서|에)$")
_RU_ADJ = re.compile(r"(ий|ый|ой)$")
_RU_ENDINGS = ("ий", "ом", "ого", "ому", "ая", "ую", "ой", "и", "ый")


@dataclass(frozen=True, slots=True)
class Mention:
    """A language named in the text: English name, character span, and the case its ending
    marks ("angolra": "into", "angolul": "in"; see `_case_forms`)."""

    language: str
    start: int
    end: int
    case: str = ""  # "into" or "in" when the name's own ending says so, else ""


def _strip_marks(name: str) -> str:
    decomposed = unicodedata.normalize("NFD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _variants(name: str) -> Iterator[str]:
    """Inflected and accent-free forms of a casefolded language name."""
    yield name
    bare = _strip_marks(name)
    if bare != name and bare.isascii():
        yield bare
    if "\u093c" in unicodedata.normalize("NFD", name):  # Hindi nukta is often left out
        yield unicodedata.normalize("NFC", unicodedata.normalize("NFD", name).replace("\u093c", ""))
    if _RU_ADJ.search(name):
        stem = name[:-2]
        yield from (stem + ending for ending in _RU_ENDINGS)
    if name.startswith("ال"):
        yield "ب" + name
        yield "لل" + name[2:]
    if name.endswith("isch"):  # German adjectival nouns: "ins Englische", "im Deutschen"
        yield from (name + "e", name + "en")
    if name == "deutsch":
        yield from ("deutsche", "deutschen")
    if name.endswith(("语", "語")) and len(name) >= 2:
        yield name[:-1] + "文"
    if name.endswith(("ська", "цька")):  # Ukrainian "англійською", "на англійську"
        yield from (name[:-1] + "ою", name[:-1] + "у")
    if name.endswith(("ski", "cki")) and name.isalpha():  # Polish "po angielsku"
        yield name[:-1] + "u"
    if bare.endswith(("ce", "ca", "çe", "ça")) and bare.isalpha():  # Turkish "İngilizceye"
        yield from (bare + suffix for suffix in ("ye", "ya", "de", "da", "den", "dan"))
    if bare.isascii() and bare.isalpha():  # Indonesian "bahasa Inggrisnya"
        yield bare + "nya"


_HU_BACK = frozenset("aáoóuú")
_TA_VOWEL_SIGNS = frozenset("\u0bbe\u0bbf\u0bc0\u0bc1\u0bc2\u0bc6\u0bc7\u0bc8\u0bca\u0bcb\u0bcc")


def _case_forms(locale: str, name: str) -> Iterator[tuple[str, str]]:
    """The forms of a casefolded language name, in its own locale, that carry "into" or "in"
    without a preposition, as (form, "into" | "in"): agglutinating languages inflect the name
    where English adds a word (Hungarian "angolra" / "angolul", Finnish "englanniksi",
    Bengali "ইংরেজিতে", Tamil "ஆங்கிலத்திற்கு" / "ஆங்கிலத்தில்", Hebrew "לאנגלית" /
    "באנגלית", Georgian "ინგლისურად", Marathi "इंग्रजीत"). "in" is as weak a target as the
    English word: "write a poem in English" asks for no translation."""
    if " " in name:
        return
    if locale == "hu":  # sublative -ra/-re ("into"), essive-modal -ul/-ül ("in")
        stem = name[:-1] + "á" if name.endswith("a") else name
        stem = stem[:-1] + "é" if stem.endswith("e") else stem
        back = any(ch in _HU_BACK for ch in name)
        yield (stem + ("ra" if back else "re"), "into")
        yield (stem + ("ul" if back else "ül"), "in")
    elif locale == "fi":  # translative -ksi ("as/in"), with gradation nt → nn, final i → e
        stem = name[:-3] + "nni" if name.endswith("nti") else name
        stem = stem[:-1] + "e" if stem.endswith("mi") else stem
        yield (stem + "ksi", "in")
    elif locale == "bn":  # locative -তে / -য় / -এ
        yield from ((name + "তে", "in"), (name + "য়", "in"), (name + "ে", "in"))
    elif locale == "ta":  # dative -க்கு ("to"), locative -இல் ("in")
        if name.endswith("ம்"):
            yield from ((name[:-2] + "த்திற்கு", "into"), (name[:-2] + "த்தில்", "in"))
        elif name.endswith("்"):
            yield from ((name[:-1] + "ுக்கு", "into"), (name[:-1] + "ில்", "in"))
        elif name[-1] in _TA_VOWEL_SIGNS:
            yield from ((name + "க்கு", "into"), (name + "யில்", "in"))
    elif locale == "he":  # prefixed ל ("to"), ב ("in")
        yield from (("ל" + name, "into"), ("ב" + name, "in"))
    elif locale == "ka" and name.endswith("ი"):  # adverbial -ად ("in")
        yield (name[:-1] + "ად", "in")
    elif locale == "mr":  # locative -त, -मध्ये
        yield from ((name + "त", "in"), (name + "मध्ये", "in"))
    elif locale == "gu":
        yield (name + "માં", "in")
    elif locale == "kn":
        yield from ((name + "ಗೆ", "into"), (name + "ನಲ್ಲಿ", "in"))
    elif locale in ("cs", "sk", "sl") and name.endswith("ina"):  # "do angličtiny", "v angličtině"
        yield from ((name[:-1] + c, "") for c in ("y", "u", "ě", "e", "i"))
        if locale != "sl" and name.endswith(("ština", "čtina")):  # adverb: "řekni to anglicky"
            yield (name[:-5] + ("sky" if name.endswith("ština") else "cky"), "in")
    elif locale in ("hr", "sr") and name.endswith(("ski", "ški", "čki", "ски", "шки", "чки")):
        yield (name[:-1] + ("ом" if name.endswith("и") else "om"), "in")  # "na engleskom"


class LanguageNames:
    """Finds language names in normalised text and resolves names to English ones."""

    def __init__(self) -> None:
        names: dict[str, str] = {}
        cases: dict[str, str] = {}
        by_code: dict[str, str] = {}
        for code in LANGUAGE_CODES:
            english = langcodes.Language.get(code).display_name("en").split(" (")[0]
            by_code[code] = english
            for locale in DISPLAY_LOCALES:
                display = langcodes.Language.get(code).display_name(locale).casefold()
                for variant in _variants(display):
                    if variant not in NOT_NAMES and (
                        len(variant) > 1 or variant in SINGLE_CHAR_NAMES
                    ):
                        names.setdefault(variant, english)
                for form, case in _case_forms(locale, display):
                    if form not in NOT_NAMES and form not in names:
                        names[form] = english
                        if case:
                            cases[form] = case
        for name, english in EXTRA_NAMES.items():
            names[name.casefold()] = english
        self._names = names
        self._cases = cases
        # First words of two-word names ("tiếng", "brazilian"): only these start a pair lookup.
        self._pair_starts = frozenset(n.split(" ", 1)[0] for n in names if " " in n)
        self._by_code = by_code
        self.nationality("france")  # loads langcodes' territory-name data now, not mid-request
        self._max_cjk = 6

    def resolve(self, word: str) -> str | None:
        """English name of a language name (any display language), or None."""
        word = word.casefold().strip()
        found = self._names.get(word)
        if found is None and word.startswith("по-"):
            found = self._names.get(word[3:])
        if found is None and _is_hangul(word[:1]):
            found = self._names.get(_HANGUL_PARTICLE.sub("", word))
        return found

    def nationality(self, word: str) -> str | None:
        """Language of a nationality, a country or a big city ("mexican", "france", "seoul"),
        or a language name."""
        word = word.casefold().strip()
        found = DEMONYMS.get(word) or PLACES.get(word) or self.resolve(word)
        if found is not None:
            return found
        try:
            territory = langcodes.find_name("territory", word, "en")
        except LookupError:
            return None
        language = langcodes.Language.get(f"und-{territory.territory}").maximize().language
        return None if language is None else self._by_code.get(language)

    def mentions(self, text: str, tokens: list[re.Match[str]]) -> list[Mention]:
        """Language names in `text` (normalised), given its word tokens."""
        found: list[Mention] = []
        names, pair_starts = self._names, self._pair_starts
        words = [token.group() for token in tokens]
        # Most words of a long request name no language: pick the few that may in one pass
        # (a name, the first word of a two-word name, or a non-ASCII word: CJK runs, Hangul
        # with particles, "по-русски") and look only at those.
        candidates = [
            index
            for index, word in enumerate(words)
            if word in names or word in pair_starts or not word.isascii()
        ]
        skip_to = 0
        for index in candidates:
            if index < skip_to:
                continue  # the second word of a two-word name
            token, word = tokens[index], words[index]
            # Two-word names: "tiếng anh", "brazilian portuguese".
            if index + 1 < len(tokens) and word in pair_starts:
                pair = text[token.start() : tokens[index + 1].end()]
                language = names.get(pair)
                if language is not None and " " in pair:
                    found.append(Mention(language, token.start(), tokens[index + 1].end()))
                    skip_to = index + 2
                    continue
            if word.isascii() or not _is_cjk(word[0]):
                # Tokens of normalised text are casefolded already: resolve() only for the
                # prefixed and Hangul forms it strips.
                language = names.get(word)
                if language is None and (word.startswith("по-") or _is_hangul(word[:1])):
                    language = self.resolve(word)
                if language is not None:
                    found.append(Mention(language, token.start(), token.end(),
                                         self._cases.get(word, "")))
            else:
                found.extend(self._cjk_mentions(text, token.start(), token.end()))
        return found

    def _cjk_mentions(self, text: str, start: int, end: int) -> Iterator[Mention]:
        """Names inside an unsegmented CJK run end with 语/語/文/話: look back from those."""
        run = text[start:end]
        for match in _CJK_NAME_END.finditer(run):
            stop = match.end()
            for length in range(min(self._max_cjk, stop), 1, -1):
                language = self._names.get(run[stop - length : stop])
                if language is not None:
                    yield Mention(language, start + stop - length, start + stop)
                    break


def _is_hangul(char: str) -> bool:
    return "\uac00" <= char <= "\ud7a3"


def _is_cjk(char: str) -> bool:
    return "\u3040" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"
