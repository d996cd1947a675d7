"""The built-in "translation" language signal: is this a request to translate, into what?"""

from __future__ import annotations

import re
from dataclasses import dataclass

from router.classify import phrasing as p
from router.classify.guard import may_match
from router.classify.langid import LanguageIdentifier, dominant_script
from router.classify.languages import LanguageNames, Mention
from router.classify.text import in_original_case, normalise, window

SCRIPT_LANGUAGE = {
    "Han": "Chinese", "Kana": "Japanese", "Hangul": "Korean", "Arabic": "Arabic",
    "Hebrew": "Hebrew", "Devanagari": "Hindi", "Greek": "Greek", "Thai": "Thai",
    "Cyrillic": "Russian",
}  # fmt: skip
# Scripts that only one common language is written in: a payload in them needs no
# identification (Arabic, Devanagari and Cyrillic script serve several).
ONE_LANGUAGE_SCRIPTS = frozenset(("Han", "Kana", "Hangul", "Thai", "Hebrew", "Greek"))
# The head and tail of a long request that indirect asks are looked for in.
ASK_HEAD = 300
ASK_TAIL = 200
# Identification of a short payload below this confidence loses to a stated source language.
MIN_ID_CONFIDENCE = 0.6
SURE = 0.8
# The payload's language is identified from its first characters: identification costs time
# in proportion to length, and a long payload's first sentences are as telling as all of it.
PAYLOAD_SAMPLE = 80
# A phrase asked about counts as foreign to its ask from this identification confidence.
FOREIGN_PHRASE_CONFIDENCE = 0.7
# Below this likelihood of being in the ask's own language, a phrase of two words or more is
# foreign even when no other language is sure. Fitted on the generator's phrase pools
# (training/generate_routing_data.py): with it 64 of their 74 foreign multi-word phrases are
# told foreign (41 without it: identified with confidence ≥ 0.8) and 1 of their 153 English
# ones; English slang sits just above it ("touch grass" 0.0045, "vibe check" 0.0052).
FRAME_LANGUAGE_FLOOR = 0.003
_CONVERT = re.compile(
    r"\b(?:convert|render|put|turn|transform|rewrite|express|change|locali[sz])\w*\b"
    r"(?P<mid>[^.?!\n]{0,60}?)"
    r"\b(?:into|to|in)\s+(?:the\s+)?$"
)
_SETTINGS = re.compile(
    r"language|voice|setting|default|interface|locale|keyboard|subtitle|your|system|app\b|"
    r"phone|font|units?\b|mode|accent"
)
_WORD_NOUN = re.compile(
    r"^(?:the |this |that )?(?:word|term|abbreviation|acronym|initialism|phrase|expression|"
    r"idiom|slang|saying|emoji|letters?|name|sign)\s+"
)
# Words that name a language by its role: "into the target language", "into another one".
_LANGUAGE_QUALIFIERS = frozenset((
    "target", "other", "another", "different", "foreign", "native", "original", "source",
    "required", "given", "specified", "desired", "requested", "chosen", "second", "appropriate",
    "corresponding", "output", "destination", "local", "mother", "official", "own", "same",
))  # fmt: skip
_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")
_DETERMINERS = frozenset(("a", "an", "the", "any", "some", "one", "whichever", "whatever"))
# Words that qualify what follows "into": "into proper English" names a language, "into a
# proper business plan" does not.
_REGISTERS = frozenset((
    "plain", "simple", "simpler", "proper", "good", "correct", "standard", "formal", "informal",
    "modern", "everyday", "natural", "polite", "casual", "fluent", "clear", "nice", "better",
))  # fmt: skip
_DIACRITIC = re.compile(r"[à-öø-ÿāăąćčďđēėęěğīįıłńňőœřśşšťūůűųźżžș-ț]")
# A follow-up that only names a language ("and in German?") repeats the previous request.
FOLLOW_UP_CHARS = 48
FOLLOW_UP_WORDS = 4
# A follow-up asking for the same again, differently ("can you make it a bit more polite?").
FOLLOW_UP_CONTINUE_CHARS = 64
# Words that make a short turn about the language itself ("do you speak German?").
_NOT_FOLLOW_UP = frozenset((
    "speak", "speaks", "learn", "learning", "study", "hard", "easy", "difficult", "people",
    "spoken", "reply", "answer", "respond", "write", "talk", "switch", "change", "set", "why",
    "grammar", "is", "are", "does", "do", "can", "language", "languages",
))  # fmt: skip
_PRONOUNS = frozenset(("me", "us", "him", "her", "them", "you", "it", "this", "that"))


@dataclass(frozen=True, slots=True)
class SignalResult:
    confidence: float
    reason: str
    target_language: str | None = None
    source_language: str | None = None
    # The text to translate with the instruction taken off, for the route's prompt template.
    payload: str | None = None
    # Which phrasing matched ("verb_target", "verb", "convert", "say", "meaning",
    # "bare_target", "code_pair", "instruction"); the learned tier weighs it as a feature.
    kind: str = ""


@dataclass(frozen=True, slots=True)
class _Found:
    """A phrasing that matched: where (`anchor`), and what it says about the languages."""

    confidence: float
    reason: str
    anchor: int
    target: str | None
    payload: str | None = None  # the text to translate, when the phrasing isolates it
    kind: str | None = None  # a narrower kind than the phrasing's that found it ("code_pair")


@dataclass(frozen=True, slots=True)
class _Scan:
    """A normalised request window with its language mentions sorted by role."""

    text: str
    mentions: tuple[Mention, ...]
    targets: tuple[Mention, ...]
    weak_targets: tuple[Mention, ...]
    sources: tuple[Mention, ...]
    # Every "translate" verb or noun in the window (one regex pass, shared by the checks).
    verbs: tuple[re.Match[str], ...]


class TranslationSignal:
    """Recognises translation requests in any of the common phrasings and languages."""

    name = "translation"

    def __init__(self, names: LanguageNames, identifier: LanguageIdentifier) -> None:
        self._names = names
        self._id = identifier

    def detect(self, raw: str) -> SignalResult | None:
        return self.analyse(raw)[0]

    def analyse(self, raw: str, normalised: str | None = None) -> tuple[SignalResult | None, str]:
        """The phrasing that asks for a translation and what it says; when none does, what
        the rules are sure of instead: "topic" (translation talked about, not asked for),
        "checking" (is this right?), "into_non_language" ("translate this into SQL"),
        "same_language" (the meaning or wording of a phrase in the asker's own language),
        or "none". `normalised` is `normalise(raw)` when the caller has it already."""
        full = normalise(raw) if normalised is None else normalised
        scan = self._scan(window(full))
        found, kind = None, ""
        checking = p.CHECKING.match(scan.text)
        if checking:
            found = self._verb(scan)  # "is 'X' the right way to say …": only a verb counts
            kind = "verb"
        else:
            for kind, phrasing in (  # noqa: B007 (kind names what matched after the loop)
                ("verb", self._verb),
                ("convert", self._convert),
                ("say", self._say),
                ("meaning", self._meaning),
                ("bare_target", self._bare_target),
            ):
                found = phrasing(scan)
                if found is not None:
                    break
        if found is None:
            return None, self._negative_kind(scan, checking is not None)
        if kind == "verb" and found.target is not None:
            kind = "verb_target"
        kind = found.kind or kind
        return self._result(raw, full, scan, found, kind), kind

    def _negative_kind(self, scan: _Scan, checking: bool) -> str:
        text = scan.text
        if checking:
            return "checking"
        if may_match(p.TOPIC_LITERALS, text) and p.TOPIC.search(text):
            return "topic"
        if not scan.targets and self._into_non_language(scan):
            return "into_non_language"  # "translate the numbers into words / a SQL query"
        people = p.PEOPLE_DO.search(text) if len(text) < 160 else None
        if people is not None and not p.QUOTED.search(text):
            who = people["who"] or people["who2"]
            if self._nationality_word(who) is not None:
                return "people_topic"  # "how do norwegians stay warm in winter"
        if len(text) < 200 and not scan.targets and not scan.weak_targets:
            asked = p.MEANING.search(text)
            quoted = [q.group(1) for q in p.QUOTED.finditer(text)]
            if asked or (quoted and _search_ends(p.SAY, text) is not None):
                groups = asked.groupdict() if asked else {}
                phrase = " ".join(quoted) or (groups.get("x") or groups.get("y") or "")
                if phrase and self._same_language_phrase(phrase, p.QUOTED.sub(" ", text)):
                    return "same_language"  # "what does 'piece of cake' mean?"
        return "none"

    def _into_non_language(self, scan: _Scan) -> bool:
        text = scan.text
        for hit in scan.verbs:
            into = p.INTO_WORD.match(text[hit.start() : hit.start() + 90])
            if into and not self._is_language_word(_into_word(text, hit.start(), into)):
                return True
        return False

    def _same_language_phrase(self, phrase: str, frame: str) -> bool:
        """Whether a phrase asked about is not established as foreign to its frame: same
        script, and not identified as another language with confidence (short phrases identify
        poorly, "touch grass" reads as French at 0.65; the learned tier cannot see a quoted
        phrase's language either, so an unsure phrase stays with the rules' answer)."""
        if dominant_script(phrase) != dominant_script(frame):
            return False
        if frame.isascii() and _DIACRITIC.search(phrase):
            return False  # "qué pasa" in an English ask
        first, second = self._id.identify(phrase), self._id.identify(frame)
        if first is None or second is None:
            return True
        return first.language == second.language or first.confidence < FOREIGN_PHRASE_CONFIDENCE

    def describe(self, raw: str) -> SignalResult:
        """Best-effort languages and payload of a request another tier judged a translation:
        the first language named as a target (else any named), the payload's language."""
        full = normalise(raw)
        scan = self._scan(window(full))
        target = self._target(scan, 0) or self._plain(scan)
        found = _Found(0.0, "", 0, target)
        return self._result(raw, full, scan, found, "")

    def _result(self, raw: str, full: str, scan: _Scan, found: _Found, kind: str) -> SignalResult:
        unstripped = found.payload or _payload(full, found.anchor)
        source = self._source(full, scan, unstripped)
        target = found.target or self._infer_target(scan.text, source)
        payload = unstripped.strip()
        if payload and payload != full.strip():
            # The rules read casefolded text; the route translates the text as written.
            kept: str | None = in_original_case(raw, full, payload)
        else:
            kept = None
        return SignalResult(found.confidence, found.reason, target, source, kept, kind)

    def detect_instruction(self, system: str, user: str) -> SignalResult | None:
        """A system prompt that makes every user turn a translation ("Translate into …")."""
        scan = self._scan(window(normalise(system)))
        found = self._verb(scan)
        if found is None or found.target is None:
            return None
        identified = self._id.identify(normalise(user))
        source = identified.language if identified is not None else None
        reason = f"system prompt: {found.reason}"
        return SignalResult(
            found.confidence * 0.95, reason, found.target, source, user, "instruction"
        )

    def follow_up_target(self, raw: str) -> str | None:
        """The language a short follow-up names and little else: "and in German?",
        "now Italian please", "日语呢？", "¿y en italiano?"."""
        text = normalise(raw)
        if len(text) > FOLLOW_UP_CHARS:
            return None
        tokens = list(p.WORD.finditer(text))
        mentions = self._names.mentions(text, tokens)
        if len({m.language for m in mentions}) != 1:
            return None
        mention = mentions[0]
        rest = p.WORD.findall(text[: mention.start] + " " + text[mention.end :])
        if len(rest) > FOLLOW_UP_WORDS or any(w in _NOT_FOLLOW_UP for w in rest):
            return None
        return mention.language

    def follow_up_continues(self, raw: str) -> str | None:
        """A short turn that carries a translation on: the same text again, differently
        ("more casual?", "another way to say it") → "" ; a new quoted phrase the same way
        ("and 'good night'?", "what about 'thank you'") → that phrase. None otherwise, and
        for questions about the text just translated ("why …?", "how do I pronounce it?")."""
        text = normalise(raw)
        if len(text) > FOLLOW_UP_CONTINUE_CHARS or p.ABOUT_TEXT.search(text):
            return None
        quoted = [m.group(1) for m in p.QUOTED.finditer(text)]
        if len(quoted) == 1:
            lead = p.QUOTED.sub(" ", text).strip(" ?？!.")
            if p.CONTINUE_LEAD.match(lead) or p.CONTINUE.search(lead):
                return in_original_case(raw, text, quoted[0]) or quoted[0]
            return None
        if not quoted and p.CONTINUE.search(text):
            return ""
        return None

    # -- scanning -------------------------------------------------------------------------

    def _scan(self, text: str) -> _Scan:
        mentions = [
            m
            for m in self._names.mentions(text, list(p.WORD.finditer(text)))
            if not p.SCRIPT_AFTER.match(text[m.end : m.end + 16])  # "the Latin script"
        ]
        targets, weak, sources = [], [], []
        for mention in mentions:
            before = text[max(0, mention.start - 14) : mention.start]
            after = text[mention.end : mention.end + 12]
            token_end = text[mention.end - 2 : mention.end]
            source = p.SOURCE_BEFORE.search(before) or p.SOURCE_AFTER.search(after)
            if source or p.SOURCE_IN.search(text[max(0, mention.start - 40) : mention.start]):
                sources.append(mention)
            elif (
                mention.case == "into"
                or p.TARGET_BEFORE.search(before)
                or p.TARGET_AFTER.search(after)
                or (token_end.endswith("로"))
            ):
                targets.append(mention)
            elif mention.case == "in" or p.WEAK_TARGET_BEFORE.search(before):
                weak.append(mention)
        verbs = tuple(p.TRANSLATE.finditer(text))
        return _Scan(text, tuple(mentions), tuple(targets), tuple(weak), tuple(sources), verbs)

    @staticmethod
    def _pick(candidates: tuple[Mention, ...], anchor: int) -> str | None:
        after = [m for m in candidates if m.start >= anchor]
        if after:
            return after[0].language
        return candidates[-1].language if candidates else None

    def _target(self, scan: _Scan, anchor: int) -> str | None:
        return self._pick(scan.targets, anchor) or self._pick(scan.weak_targets, anchor)

    # -- the phrasings ----------------------------------------------------------------------

    def _verb(self, scan: _Scan) -> _Found | None:
        """An explicit verb or noun of translating, used as a request."""
        text = scan.text
        for hit in scan.verbs:
            start, end = hit.span()
            word = hit.group()
            if _quoted(text, start, end):
                continue  # the word 'translate' itself is the topic
            around = text[max(0, start - 60) : end + 60]
            if may_match(p.TOPIC_LITERALS, around) and p.TOPIC.search(around):
                continue
            target = self._target(scan, start)
            before = text[max(0, start - 50) : start]
            after = text[end : end + 80]
            if word.isascii() and p.NOUN_FORM.match(word):
                asked = (
                    p.NOUN_REQUEST.search(before)
                    or (p.NOUN_AFTER.match(after) and (target or p.PAYLOAD_MARK.search(after)))
                    or (target and start == 0)
                )
                if not asked:
                    continue
            if not word.isascii() and target is None and p.ZH_NOUN_AFTER.match(after):
                continue
            into = p.INTO_WORD.match(text[start : start + 90])
            if (
                into
                and target is None
                and not self._is_language_word(_into_word(text, start, into))
            ):
                continue  # "translate this into code", "… into a SQL query"
            payload = p.PAYLOAD_MARK.search(after)
            # "请帮我把 '…' 翻译一下": 把/将 puts the object before the verb, a request too.
            imperative = p.IMPERATIVE_BEFORE.search(before) or (
                not word.isascii() and p.ZH_BA_BEFORE.search(before)
            )
            if target is None and not payload and not imperative:
                continue
            if target is None and len(text) - end < 3 and not imperative:
                continue
            reason = f"translation verb '{word}'" + (f" + target '{target}'" if target else "")
            return _Found((0.95 if target else 0.85), reason, start, target)
        return None

    def _is_language_word(self, word: str) -> bool:
        if word in _PRONOUNS or word in _DETERMINERS or word in _REGISTERS:
            return True
        if word in ("language", "languages") or word in _LANGUAGE_QUALIFIERS:
            return True  # "into five languages", "into the target language"
        return self._names.resolve(word) is not None

    def _convert(self, scan: _Scan) -> _Found | None:
        """Conversion verbs with a target: "convert it into the Hindi language"."""
        text = scan.text
        for mention in scan.mentions:
            before, after = text[max(0, mention.start - 8) : mention.start], text[mention.end :]
            express = before.endswith(("用", "以")) and p.ZH_EXPRESS_AFTER.match(after)
            what_is = before.endswith("的") and p.ZH_WHAT_IS_AFTER.match(after)
            wider = text[max(0, mention.start - 16) : mention.start]
            called = bool(
                (before.endswith("在") and p.ZH_CALLED_AFTER.match(after))
                or p.ZH_WRITE_AFTER.match(after)
                # "thunderstorm 中文叫什么" (a word before the name; "中文叫什么名字" asks a name)
                or (p.ZH_CALLED_BARE_AFTER.match(after) and before.strip())
                or p.JA_HOW_IN_AFTER.match(after)
                or (  # "영어로 바꿔 줘", not "휴대폰 언어를 영어로 바꿔 줘" (a setting)
                    text[mention.end - 1 : mention.end] == "로"
                    and p.KO_CHANGE_AFTER.match(after)
                    and not p.KO_SETTINGS_BEFORE.search(wider)
                )
            )
            version = p.VERSION_OF.match(after) and p.PAYLOAD_MARK.search(after)
            make = p.JA_MAKE_AFTER.match(after) and _ja_object(text, mention.start)
            convert = p.ZH_CONVERT_BEFORE.search(before) and not p.ZH_SETTINGS_BEFORE.search(
                text[max(0, mention.start - 12) : mention.start]
            )
            if convert or express or what_is or called or version or make:
                reason = f"asks for the text in '{mention.language}'"
                return _Found(0.85, reason, mention.start, mention.language)
        for mention in scan.targets + scan.weak_targets:
            before = scan.text[max(0, mention.start - 90) : mention.start]
            match = _CONVERT.search(before)
            settings = _SETTINGS.search(p.QUOTED.sub(" ", match.group("mid"))) if match else None
            if match and (not settings or match.group().startswith("locali")):
                if self._same_language(scan, mention.language):
                    continue  # "rewrite this in British English": a rewrite, not a translation
                anchor = mention.start - len(before) + match.start()
                return _Found(
                    0.85, f"conversion into '{mention.language}'", anchor, mention.language
                )
        return self._equivalent(scan)

    def _equivalent(self, scan: _Scan) -> _Found | None:
        """The text itself wanted in a language: "produce the same sentence in Thai"."""
        text = scan.text
        for mention in scan.mentions:
            before = text[max(0, mention.start - 60) : mention.start]
            match = p.EQUIVALENT_BEFORE.search(before)
            if match is None and p.VERSION_AFTER.match(text[mention.end : mention.end + 16]):
                match = p.VERSION_BEFORE.search(before)
            if match is None or self._same_language(scan, mention.language):
                continue
            anchor = mention.start - len(before) + match.start()
            reason = f"asks for the text in '{mention.language}'"
            return _Found(0.8, reason, anchor, mention.language)
        return None

    def _say(self, scan: _Scan) -> _Found | None:
        """Indirect asks that never say "translate"."""
        text = scan.text
        lang_to = p.LANG_TO_LANG.match(text)
        if lang_to and len(text) < 160:
            src, dst = self._names.resolve(lang_to["src"]), self._names.resolve(lang_to["lang"])
            if src and dst and src != dst:
                return _Found(0.85, f"'{src} to {dst}'", 0, dst)
        lang_for = p.WHAT_IS_LANG_FOR.search(text)
        if lang_for and (lang_for["lang"] or len(text) < 60):
            language = self._names.resolve(lang_for["lang"] or lang_for["bare"])
            # "what's the English for …" names a foreign phrase; a bare "spanish for cat" may not
            if language is not None and (lang_for["lang"] or not self._asked_in(scan, language)):
                return _Found(0.85, f"'what is {language} for …'", lang_for.start(), language)
        say = _search_ends(p.SAY, text)
        if say is not None:
            named = target = self._target(scan, say) or self._plain(scan)
            if target is not None and self._asked_in(scan, target):
                target = None  # "the best way to say no in English", asked in English
            if target is None:  # "how would I say … if I were Mexican", "… in Zambia"
                target = self._nationality(text, ((p.IF_I_WERE, "who"), (p.IN_PLACE, "where")))
                if target is not None and named is not None and self._asked_in(scan, target):
                    target = None
            if target is None:  # "how would a German say …": not when the Germans are asked
                target = self._nationality(text, ((p.WHO_SAYS, "who"), (p.PEOPLE_IN, "where")))
                if target is not None and self._asked_in(scan, target):
                    target = None
            if target is not None:
                return _Found(0.85, f"asks how to say something in '{target}'", say, target)
            if p.MANY_LANGUAGES.search(text):
                reason = "asks how to say something in several languages"
                return _Found(0.8, reason, say, None)
        what_in = p.WHAT_IS_IN.search(text)
        # short, or the last sentence of a longer message ("… What's 'a late checkout' in
        # Portuguese?" after the story of a trip)
        short = what_in is not None and (len(text) < 120 or what_in.start() >= len(text) - 100)
        if what_in and short and (language := self._names.resolve(what_in["lang"])):
            return _Found(0.8, f"'what is … in {language}'", what_in.start(), language)
        return None

    def _asked_in(self, scan: _Scan, target: str) -> bool:
        """Whether the request is all in `target`, quoted words included ("what's the English
        for 'mise en place'" asks in English about a French phrase: not all in English)."""
        if not self._same_language(scan, target):
            return False
        quoted = [q.group(1) for q in p.QUOTED.finditer(scan.text)]
        frame = p.QUOTED.sub(" ", scan.text)
        return not quoted or not self._other_language(" ".join(quoted), frame)

    def _same_language(self, scan: _Scan, target: str) -> bool:
        """Whether the request is already all in `target` (stated source, else identified)."""
        if any(m.language != target for m in scan.sources):
            return False
        text = scan.text
        script = dominant_script(text)
        if script in SCRIPT_LANGUAGE:
            return SCRIPT_LANGUAGE[script or ""] == target and not _mixed_script(text)
        identified = self._id.identify(_without_people(_without_names(text, scan.mentions)))
        if identified is None:
            return False
        if identified.language == target:
            return identified.confidence >= 0.5
        # A short plain-ASCII ask that identifies poorly ("what do the british call an
        # elevator" reads as Albanian, 0.35) is English when English is a runner-up.
        return (
            target == "English"
            and identified.confidence < 0.5
            and target in identified.runners_up
            and text.isascii()
        )

    @staticmethod
    def _plain(scan: _Scan) -> str | None:
        return scan.mentions[0].language if scan.mentions else None

    def _nationality(
        self, text: str, patterns: tuple[tuple[re.Pattern[str], str], ...]
    ) -> str | None:
        for pattern, group in patterns:
            match = pattern.search(text)
            if match and (language := self._nationality_word(match[group])):
                return language
        return None

    def _nationality_word(self, word: str) -> str | None:
        """The language of a people or a country: "italians", "germany", "mexican"."""
        found = self._names.nationality(word)
        if found is None and word.endswith("s") and len(word) > 4:
            found = self._names.nationality(word[:-1])
        for suffix in ("man", "men", "woman", "women"):  # "frenchman", "dutchwomen"
            if found is None and word.endswith(suffix) and len(word) > len(suffix) + 3:
                found = self._names.nationality(word[: -len(suffix)])
        return found

    def _meaning(self, scan: _Scan) -> _Found | None:
        """Asks for the meaning ("what does X mean") of X in another language than the ask."""
        text = scan.text
        if len(text) > 400:
            return None
        match = p.MEANING.search(text)
        if match is None and p.QUOTED.search(text):
            match = p.SAYS.search(text)  # "what is she saying?" about a quoted text
        if match is None:
            return None
        target = self._target(scan, match.start())
        if target is not None:
            return _Found(0.85, f"asks the meaning in '{target}'", match.start(), target)
        quoted = [q.group(1) for q in p.QUOTED.finditer(text)]
        if quoted:
            phrase = " ".join(quoted)
            frame = p.QUOTED.sub(" ", text)
        else:
            groups = match.groupdict()
            phrase = (groups.get("x") or groups.get("y") or groups.get("z") or "").strip(" ?？.!")
            phrase = _WORD_NOUN.sub("", phrase)  # "the abbreviation asap": the phrase is "asap"
            frame = text.replace(phrase, " ") if phrase else text
        if not phrase:
            frame = text[: match.start()] + text[match.end() :]
            phrase, frame = frame, text[match.start() : match.end()]
        if self._other_language(phrase, frame):
            reason = "asks what a foreign phrase means"
            return _Found(0.8, reason, match.start(), None, payload=phrase)
        return None

    def _other_language(self, phrase: str, frame: str) -> bool:
        phrase_script, frame_script = dominant_script(phrase), dominant_script(frame)
        if phrase_script is None or frame_script is None:
            return False
        if phrase_script != frame_script:
            return True
        if len(p.WORD.findall(phrase)) < 2:
            return False  # one word: identification is a guess ("zesty" reads as Polish)
        first, second = self._id.identify(phrase), self._id.identify(frame)
        if not (first and second and first.language != second.language):
            return False
        if first.confidence >= 0.8:
            return True
        if second.confidence >= 0.8 and self._unlike(phrase, second.language):
            return True
        # Short phrases identify poorly ("qué pasa" reads as French, 0.27); letters with
        # diacritics in a phrase quoted in a plain-ASCII English ask mark it as foreign.
        return (
            second.language == "English"
            and second.confidence >= 0.8
            and frame.isascii()
            and _DIACRITIC.search(phrase) is not None
        )

    def _unlike(self, phrase: str, language: str) -> bool:
        """A phrase of two words or more that is almost surely not in `language`, though no
        one other language is sure ("je m'en fiche": Italian 0.28, English 0.001)."""
        if len(p.WORD.findall(phrase)) < 2:
            return False
        confidence = self._id.confidence_of(phrase, language)
        return confidence is not None and confidence < FRAME_LANGUAGE_FLOOR

    def _bare_target(self, scan: _Scan) -> _Found | None:
        """A bare target and a payload: "In English please: <text>", "<text> (to French)"."""
        text = scan.text
        for splitter in (":", "：", "\n", "(", "（", "->", "→", "=>", "]"):
            if splitter not in text:
                continue
            head, _, tail = text.partition(splitter)
            pair = self._code_pair(head + splitter if splitter == "]" else head, tail)
            if pair is not None:
                return pair
            if splitter == "]":
                continue
            for frame, payload in ((head, tail), (tail.strip(" )）?？"), head)):
                words = p.WORD.findall(frame)
                if not words or len(words) > 6 or len(payload.strip()) < 2:
                    continue
                mentions = self._names.mentions(frame, list(p.WORD.finditer(frame)))
                if len(mentions) != 1 or p.OTHER_TASK.search(frame):
                    continue
                language = mentions[0].language
                rest = p.WORD.findall(frame[: mentions[0].start] + frame[mentions[0].end :])
                if any(w not in p.FRAME_FILLER for w in rest):
                    continue
                identified = self._id.identify(payload)
                if (
                    identified
                    and identified.language != language
                    and identified.confidence >= 0.5
                    and (identified.confidence >= SURE or language not in identified.runners_up)
                ):
                    reason = f"target '{language}' + text in another language"
                    return _Found(0.8, reason, 0, language, payload=payload)
        return None

    def _code_pair(self, head: str, payload: str) -> _Found | None:
        """ "fr→en: <text>", "[de-en] <text>": two different language codes as the whole
        instruction (the payload's language is not checked: short phrases identify poorly,
        "le train a du retard" reads as English)."""
        pair = p.CODE_PAIR.fullmatch(head.strip())
        if pair is None or len(payload.strip()) < 2:
            return None
        source = p.LANGUAGE_CODE_NAMES.get(pair.group(1))
        target = p.LANGUAGE_CODE_NAMES.get(pair.group(2))
        if source is None or target is None or source == target:
            return None
        reason = f"language-code pair '{pair.group(1)}→{pair.group(2)}' + text"
        return _Found(0.9, reason, 0, target, payload=payload.strip(), kind="code_pair")

    # -- languages of the decision -------------------------------------------------------------

    def _source(self, full: str, scan: _Scan, payload: str) -> str | None:
        """The payload's identified language; a stated one ("a sentence in German") if unsure."""
        stated = scan.sources[0].language if scan.sources else None
        script = dominant_script(payload[:240])
        if script in ONE_LANGUAGE_SCRIPTS:
            return SCRIPT_LANGUAGE[script or ""]
        identified = self._id.identify(payload[:PAYLOAD_SAMPLE])
        if identified is not None and identified.confidence >= SURE:
            return identified.language
        if stated is not None:
            return stated
        if identified is not None and len(payload) < len(full) and script == dominant_script(full):
            identified = self._id.identify(full) or identified  # a few words identify poorly
        if identified is None:
            return SCRIPT_LANGUAGE.get(script or "")
        if identified.confidence < MIN_ID_CONFIDENCE:
            if script in SCRIPT_LANGUAGE:
                return SCRIPT_LANGUAGE[script or ""]
            if "English" in identified.runners_up:
                return "English"  # short Latin-script text: English is by far the likeliest
        return identified.language

    def _infer_target(self, text: str, source: str | None) -> str | None:
        """No target named: into the language the request is written in, else English."""
        frame = p.QUOTED.sub(" ", text.split("\n", 1)[0].split(":", 1)[0].split("：", 1)[0])
        identified = self._id.identify(frame)
        frame_language = identified.language if identified is not None else None
        script = dominant_script(frame)
        if script in SCRIPT_LANGUAGE and script != "Cyrillic":
            frame_language = SCRIPT_LANGUAGE[script]
        if frame_language and frame_language != source:
            return frame_language
        if source != "English":
            return "English"
        return None


def _search_ends(pattern: re.Pattern[str], text: str) -> int | None:
    """Where `pattern` first matches in a short text, or in a long one's head or tail: indirect
    asks ("how do you say …") are short, or sit before or after their payload."""
    if len(text) <= ASK_HEAD + ASK_TAIL:
        match = pattern.search(text)
        return None if match is None else match.start()
    match = pattern.search(text, 0, ASK_HEAD)
    if match is not None:
        return match.start()
    match = pattern.search(text, len(text) - ASK_TAIL)
    return None if match is None else match.start()


def _into_word(text: str, start: int, into: re.Match[str]) -> str:
    """The word a verb translates "into": past an article or a determiner ("into a spreadsheet
    formula", "into any Arabic dialect")."""
    word, end = into.group(1), start + into.end(1)
    for skip in (_DETERMINERS, _REGISTERS):  # "into a proper business plan" → "business"
        if word in skip:
            after = _NEXT_WORD.match(text, end)
            if after is None:
                break
            word, end = after.group(1), after.end(1)
    return word


_PEOPLE_PATTERNS = ((p.WHO_SAYS, "who"), (p.PEOPLE_IN, "where"), (p.IF_I_WERE, "who"))


def _without_people(text: str) -> str:
    """`text` without the people or place word an ask names ("how do filipinos say …" reads
    as Filipino at 0.995 with it, as English without it)."""
    for pattern, group in _PEOPLE_PATTERNS:
        match = pattern.search(text)
        if match is not None:
            text = text[: match.start(group)] + text[match.end(group) :]
    return text


def _ja_object(text: str, start: int) -> bool:
    """A Japanese object marker before "日本語にして": some text is to become Japanese."""
    before = text[max(0, start - 20) : start]
    return "を" in before and not any(word in before for word in ("答", "返事", "返信", "設定"))


def _without_names(text: str, mentions: tuple[Mention, ...]) -> str:
    """The text less the language names it mentions: "put this into Portuguese: …" reads as
    Portuguese to the identifier because of the word "portuguese" alone."""
    for mention in sorted(mentions, key=lambda m: m.start, reverse=True):
        text = text[: mention.start] + " " + text[mention.end :]
    return text


def _mixed_script(text: str) -> bool:
    """Whether a non-Latin request also quotes words of another script."""
    return bool(p.QUOTED.search(text)) and any(
        dominant_script(q.group(1)) != dominant_script(text) for q in p.QUOTED.finditer(text)
    )


def _quoted(text: str, start: int, end: int) -> bool:
    opening = text[start - 1 : start]
    closing = text[end : end + 1]
    return opening in ("'", '"', "‘", "“", "«") and closing in ("'", '"', "’", "”", "»")


def _payload(text: str, anchor: int) -> str:
    """The text to be translated: the last paragraph, what follows a colon, or a quote."""
    if "\n\n" in text:
        return text.rsplit("\n\n", 1)[1]
    mark = p.PAYLOAD_MARK.search(text, anchor)
    if mark is not None and len(text) - mark.end() > 1:
        if mark.group() not in "\"“「『«'‘":
            return text[mark.end() :]
        quoted = p.QUOTED.search(text[mark.start() :])  # ~40 µs on 2,000 characters: only here
        return quoted.group(1) if quoted else text[mark.end() :]
    return text
