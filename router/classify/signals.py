"""Registry of built-in language-signal detectors that routes name with `signals:`."""

from __future__ import annotations

from typing import Protocol

from router.classify.langid import LanguageIdentifier
from router.classify.languages import LanguageNames
from router.classify.translation import SignalResult, TranslationSignal

from router.classify.config import SIGNAL_NAMES


class LanguageSignal(Protocol):
    name: str

    def detect(self, raw: str) -> SignalResult | None: ...

    def detect_instruction(self, system: str, user: str) -> SignalResult | None: ...


class SignalTools:
    """The language resources signals share; built once per Classifier, on first need."""

    def __init__(self) -> None:
        self.names = LanguageNames()
        self.identifier = LanguageIdentifier()


def build_signal(name: str, tools: SignalTools) -> LanguageSignal:
    if name == "translation":
        return TranslationSignal(tools.names, tools.identifier)
    raise ValueError(f"unknown language signal {name!r} (known: {', '.join(SIGNAL_NAMES)})")
