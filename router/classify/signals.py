"""Registry of built-in language-signal detectors that routes name with `signals:`.

A signal pairs its rules (certain phrasings, the languages and payload of a request) with a
learned model that scores phrasing variety the rules do not enumerate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from router.classify.config import SIGNAL_NAMES
from router.classify.langid import LanguageIdentifier
from router.classify.languages import LanguageNames
from router.classify.learned import TRANSLATION_MODEL, LinearModel
from router.classify.translation import SignalResult, TranslationSignal


class LanguageSignal(Protocol):
    name: str

    def detect(self, raw: str) -> SignalResult | None: ...

    def analyse(
        self, raw: str, normalised: str | None = None
    ) -> tuple[SignalResult | None, str]: ...

    def detect_instruction(self, system: str, user: str) -> SignalResult | None: ...

    def describe(self, raw: str) -> SignalResult: ...

    def follow_up_target(self, raw: str) -> str | None: ...

    def follow_up_continues(self, raw: str) -> str | None: ...


class SignalTools:
    """The language resources signals share; built once per Classifier, on first need."""

    def __init__(self) -> None:
        self.names = LanguageNames()
        self.identifier = LanguageIdentifier()


@dataclass(frozen=True, slots=True)
class SignalTier:
    """A route's built-in signal: its rules and its learned model."""

    route: str
    rules: LanguageSignal
    model: LinearModel


def build_signal(route: str, name: str, tools: SignalTools) -> SignalTier:
    if name == "translation":
        rules = TranslationSignal(tools.names, tools.identifier)
        return SignalTier(route, rules, LinearModel.load(TRANSLATION_MODEL))
    raise ValueError(f"unknown language signal {name!r} (known: {', '.join(SIGNAL_NAMES)})")
