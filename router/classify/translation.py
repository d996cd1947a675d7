"""The built-in "translation" language signal: is this a request to translate, into what?"""

from __future__ import annotations

import re
from dataclasses import dataclass

from router.classify import phrasing as p
from router.classify.langid import LanguageIdentifier, dominant_script
from router.classify.languages import LanguageNames, Mention
from router.classify.text import normalise, window

SCRIPT_LANGUAGE = {
    "Han": "Chinese", "Kana": "Japanese", "Hangul": "Korean", "Arabic": "Arabic",
    "Hebrew": "Hebrew", "Devanagari": "Hindi", "Greek": "Greek", "Thai": "Thai",
    "Cyrillic": "Russian",
}  # fmt: skip
# Identification of a short payload below this confidence loses to a stated source language.
MIN_ID_CONFIDENCE = 0.6
SURE = 0.8
_CONVERT = re.compile(
    r"\b(?:convert|render|put|turn|transform|rewrite|express|change)\w*\b(?P<mid>[^.?!\n]{0,60}?)"
    r"\b(?:into|to|in)\s+(?:the\s+)?$"
)
_SETTINGS = re.compile(
    r"language|voice|setting|default|interface|locale|keyboard|subtitle|your|system|app\b|"
    r"phone|font|units?\b|mode|accent"
)
_PRONOUNS = frozenset(("me", "us", "him", "her", "them", "you", "it", "this", "that"))


@dataclass(frozen=True, slots=True)
class SignalResult:
    confidence: float
    reason: str
    target_language: str | None = None
    source_language: str | None = None
    # The text to translate with the instruction taken off, for the route's prompt template.
    payload: str | None = None


@dataclass(frozen=True, slots=True)
class _Found:
    """A phrasing that matched: where (`anchor`), and what it says about the languages."""

    confidence: float
    reason: str
    anchor: int
    target: str | None
    payload: str | None = None  # the text to translate, when the phrasing isolates it


@dataclass(frozen=True, slots=True)
class _Scan:
    """A normalised request window with its language mentions sorted by role."""

    text: str
    mentions: tuple[Mention, ...]
    targets: tuple[Mention, ...]
    weak_targets: tuple[Mention, ...]
    sources: tuple[Mention, ...]


class TranslationSignal:
    """Recognises translation requests in any of the common phrasings and languages."""

    name = "translation"

    def __init__(self, names: LanguageNames, identifier: LanguageIdentifier) -> None:
        self._names = names
        self._id = identifier

    def detect(self, raw: str) -> SignalResult | None:
        full = normalise(raw)
        scan = self._scan(window(full))
        if p.CHECKING.match(scan.text):
            found = self._verb(scan)  # "is 'X' the right way to say …": only a verb counts
        else:
            found = (
                self._verb(scan)
                or self._convert(scan)
                or self._say(scan)
                or self._meaning(scan)
                or self._bare_target(scan)
            )
        if found is None:
            return None
        source = self._source(full, scan, found)
        target = found.target or self._infer_target(scan.text, source)
        payload = (found.payload or _payload(full, found.anchor)).strip()
        return SignalResult(found.confidence, found.reason, target, source,
                            payload if payload and payload != full.strip() else None)

    def detect_instruction(self, system: str, user: str) -> SignalResult | None:
        """A system prompt that makes every user turn a translation ("Translate into …")."""
        scan = self._scan(window(normalise(system)))
        found = self._verb(scan)
        if found is None or found.target is None:
            return None
        identified = self._id.identify(normalise(user))
        source = identified.language if identified is not None else None
        reason = f"system prompt: {found.reason}"
        return SignalResult(found.confidence * 0.95, reason, found.target, source, user)

    # -- scanning -------------------------------------------------------------------------

    def _scan(self, text: str) -> _Scan:
        mentions = self._names.mentions(text, list(p.WORD.finditer(text)))
        targets, weak, sources = [], [], []
        for mention in mentions:
            before = text[max(0, mention.start - 14) : mention.start]
            after = text[mention.end : mention.end + 12]
            token_end = text[mention.end - 2 : mention.end]
            source = p.SOURCE_BEFORE.search(before) or p.SOURCE_AFTER.search(after)
            if source or p.SOURCE_IN.search(text[max(0, mention.start - 40) : mention.start]):
                sources.append(mention)
            elif (
                p.TARGET_BEFORE.search(before)
                or p.TARGET_AFTER.search(after)
                or (token_end.endswith("로"))
            ):
                targets.append(mention)
            elif p.WEAK_TARGET_BEFORE.search(before):
                weak.append(mention)
        return _Scan(text, tuple(mentions), tuple(targets), tuple(weak), tuple(sources))

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
        for hit in p.TRANSLATE.finditer(text):
            start, end = hit.span()
            word = hit.group()
            if _quoted(text, start, end):
                continue  # the word 'translate' itself is the topic
            if p.TOPIC.search(text[max(0, start - 60) : end + 60]):
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
            if into and target is None and not self._is_language_word(into.group(1)):
                continue  # "translate this into code"
            payload = p.PAYLOAD_MARK.search(after)
            if target is None and not payload and not p.IMPERATIVE_BEFORE.search(before):
                continue
            if target is None and len(text) - end < 3 and not p.IMPERATIVE_BEFORE.search(before):
                continue
            reason = f"translation verb '{word}'" + (f" + target '{target}'" if target else "")
            return _Found((0.95 if target else 0.85), reason, start, target)
        return None

    def _is_language_word(self, word: str) -> bool:
        if word in _PRONOUNS or word in ("the", "a", "an", "plain", "simple", "proper"):
            return True
        return self._names.resolve(word) is not None

    def _convert(self, scan: _Scan) -> _Found | None:
        """Conversion verbs with a target: "convert it into the Hindi language"."""
        text = scan.text
        for mention in scan.mentions:
            before, after = text[max(0, mention.start - 8) : mention.start], text[mention.end :]
            express = before.endswith(("用", "以")) and p.ZH_EXPRESS_AFTER.match(after)
            what_is = before.endswith("的") and p.ZH_WHAT_IS_AFTER.match(after)
            version = p.VERSION_OF.match(after) and p.PAYLOAD_MARK.search(after)
            if p.ZH_CONVERT_BEFORE.search(before) or express or what_is or version:
                reason = f"asks for the text in '{mention.language}'"
                return _Found(0.85, reason, mention.start, mention.language)
        for mention in scan.targets + scan.weak_targets:
            before = scan.text[max(0, mention.start - 90) : mention.start]
            match = _CONVERT.search(before)
            if match and not _SETTINGS.search(match.group("mid")):
                if self._same_language(scan, mention.language):
                    continue  # "rewrite this in British English": a rewrite, not a translation
                anchor = mention.start - len(before) + match.start()
                return _Found(
                    0.85, f"conversion into '{mention.language}'", anchor, mention.language
                )
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
        if lang_for and (language := self._names.resolve(lang_for["lang"])):
            return _Found(0.85, f"'what is {language} for …'", lang_for.start(), language)
        say = p.SAY.search(text)
        if say:
            target = self._target(scan, say.start()) or self._plain(scan)
            if target is not None and self._same_language(scan, target):
                target = None  # "the best way to say no in English", asked in English
            elif target is None:
                target = self._nationality(text)
            if target is not None:
                return _Found(0.85, f"asks how to say something in '{target}'", say.start(), target)
        what_in = p.WHAT_IS_IN.search(text)
        if what_in and len(text) < 120 and (language := self._names.resolve(what_in["lang"])):
            return _Found(0.8, f"'what is … in {language}'", what_in.start(), language)
        return None

    def _same_language(self, scan: _Scan, target: str) -> bool:
        """Whether the request is already all in `target` (stated source, else identified)."""
        if any(m.language != target for m in scan.sources):
            return False
        text = scan.text
        script = dominant_script(text)
        if script in SCRIPT_LANGUAGE:
            return SCRIPT_LANGUAGE[script or ""] == target and not _mixed_script(text)
        identified = self._id.identify(text)
        return (
            identified is not None
            and identified.language == target
            and identified.confidence >= 0.5
        )

    @staticmethod
    def _plain(scan: _Scan) -> str | None:
        return scan.mentions[0].language if scan.mentions else None

    def _nationality(self, text: str) -> str | None:
        for pattern, group in ((p.IF_I_WERE, "who"), (p.IN_PLACE, "where")):
            match = pattern.search(text)
            if match and (language := self._names.nationality(match[group])):
                return language
        return None

    def _meaning(self, scan: _Scan) -> _Found | None:
        """Asks for the meaning ("what does X mean") of X in another language than the ask."""
        text = scan.text
        match = p.MEANING.search(text)
        if match is None or len(text) > 400:
            return None
        target = self._target(scan, match.start())
        if target is not None:
            return _Found(0.85, f"asks the meaning in '{target}'", match.start(), target)
        quoted = [q.group(1) for q in p.QUOTED.finditer(text)]
        if quoted:
            phrase = " ".join(quoted)
            frame = p.QUOTED.sub(" ", text)
        else:
            phrase = (match.group("x") or match.group("y") or "").strip(" ?？.!")
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
        return bool(
            first and second and first.language != second.language and first.confidence >= 0.8
        )

    def _bare_target(self, scan: _Scan) -> _Found | None:
        """A bare target and a payload: "In English please: <text>", "<text> (to French)"."""
        text = scan.text
        for splitter in (":", "：", "\n", "(", "（", "->", "→", "=>"):
            if splitter not in text:
                continue
            head, _, tail = text.partition(splitter)
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

    # -- languages of the decision -------------------------------------------------------------

    def _source(self, full: str, scan: _Scan, found: _Found) -> str | None:
        """The payload's identified language; a stated one ("a sentence in German") if unsure."""
        stated = scan.sources[0].language if scan.sources else None
        payload = found.payload or _payload(full, found.anchor)
        identified = self._id.identify(payload)
        script = dominant_script(payload[:240])
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
        rest = text[mark.end() :]
        quoted = p.QUOTED.search(text[mark.start() :])
        return quoted.group(1) if quoted and mark.group() in "\"“「『«'‘" else rest
    return text
