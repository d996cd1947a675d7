"""The classifier's own configuration: a route's `recognize:` section of routes.yaml.

router.config parses the YAML into this type; everything under router/classify reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

# Built-in language-signal detectors a route may name with `signals:` (see signals.py).
SIGNAL_NAMES = ("translation",)


@dataclass(frozen=True, slots=True)
class RecognitionConfig:
    """How the classifier recognises a route without an explicit model name."""

    keywords: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    # Requests that look like this route but belong elsewhere; they pull decisions away.
    negative_examples: tuple[str, ...] = ()
    # Name of a built-in language-signal detector (one of SIGNAL_NAMES), or None.
    signals: str | None = None
