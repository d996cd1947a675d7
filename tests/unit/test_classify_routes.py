"""Tiers, decisions, chat messages, and routes users define with keywords/patterns/examples."""

from __future__ import annotations

import pytest

from router.classify import Classifier, RouteDecision, explicit_decision
from router.classify.config import RecognitionConfig
from router.config import parse_config

TRANSLATION = RecognitionConfig(signals="translation")


@pytest.fixture(scope="module")
def custom() -> Classifier:
    routes = {
        "qa": RecognitionConfig(),
        "translation": TRANSLATION,
        "code": RecognitionConfig(
            keywords=("python", "javascript", "stack trace", "segfault", "代码"),
            patterns=(r"```", r"\bdef \w+\(", r"traceback \(most recent call last\)"),
        ),
        "summarise": RecognitionConfig(
            examples=(
                "Summarise this article in three sentences.",
                "Give me a short summary of the following text.",
                "TL;DR of this report please",
                "请总结下面这段文字的要点。",
            ),
        ),
    }
    return Classifier(routes, "qa")


@pytest.mark.parametrize(
    ("text", "route", "tier"),
    [
        ("Why does my Python script raise KeyError?", "code", "rules"),
        ("My JavaScript promise never resolves", "code", "rules"),
        ("```\nprint('hi')\n```\nwhat is wrong here", "code", "rules"),
        ("Traceback (most recent call last):\n  File 'x.py'", "code", "rules"),
        ("这段代码为什么报错？", "code", "rules"),
        ("Please summarise this article in two sentences.", "summarise", "examples"),
        (
            "Give me a short summary of this text: the council met on Tuesday.",
            "summarise",
            "examples",
        ),
        ("请总结一下这段文字的要点", "summarise", "examples"),
        ("Translate into French: good morning", "translation", "language"),
        ("What is the capital of Peru?", "qa", "default"),
    ],
)
def test_user_routes(custom: Classifier, text: str, route: str, tier: str) -> None:
    decision = custom.classify_text(text)
    assert (decision.route, decision.tier) == (route, tier), decision


def test_keywords_match_whole_words(custom: Classifier) -> None:
    assert custom.classify_text("Tell me about pythons in the jungle").route == "qa"


def test_rules_outrank_language_signals(custom: Classifier) -> None:
    decision = custom.classify_text("Translate this Python comment into French: # add numbers")
    assert decision.route == "code"
    assert decision.tier == "rules"
    assert "python" in decision.reason


def test_routes_from_yaml_need_no_code() -> None:
    config = parse_config(
        """
engines:
  small: {model: builtin:tiny, backend: fake}
routes:
  qa: {engine: small}
  translation: {engine: small, recognize: {signals: translation}}
  sql:
    engine: small
    recognize:
      keywords: [sql, postgres]
      patterns: ['\\bselect\\b.+\\bfrom\\b']
      examples: ["Write a query that counts orders per customer"]
default_route: qa
"""
    )
    routes = {name: route.recognize for name, route in config.routes.items()}
    classifier = Classifier(routes, config.default_route)
    assert classifier.classify_text("select name from users where id = 3").route == "sql"
    assert classifier.classify_text("How do I tune Postgres autovacuum?").route == "sql"
    assert classifier.classify_text("write a query that counts orders per day").route == "sql"
    assert classifier.classify_text("traduce al inglés: buenos días").route == "translation"
    assert classifier.classify_text("who won the 1998 world cup").route == "qa"


def test_no_signals_means_no_language_models() -> None:
    classifier = Classifier({"qa": RecognitionConfig(), "other": RecognitionConfig()}, "qa")
    decision = classifier.classify_text("Translate into French: hello")
    assert decision.route == "qa" and decision.tier == "default"


def test_unknown_signal_and_default_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown language signal"):
        Classifier({"qa": RecognitionConfig(signals="sentiment")}, "qa")
    with pytest.raises(ValueError, match="default route"):
        Classifier({"qa": RecognitionConfig()}, "chat")


@pytest.fixture(scope="module")
def default() -> Classifier:
    return Classifier({"qa": RecognitionConfig(), "translation": TRANSLATION}, "qa")


def test_classify_uses_last_user_message(default: Classifier) -> None:
    messages = [
        {"role": "user", "content": "Translate into German: I am hungry"},
        {"role": "assistant", "content": "Ich habe Hunger"},
        {"role": "user", "content": "Thanks! What is the tallest mountain in Europe?"},
    ]
    assert default.classify(messages).route == "qa"


def test_classify_reads_text_parts(default: Classifier) -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": {"url": "data:,"}},
                {"type": "text", "text": "Переведи на английский: доброе утро"},
            ],
        }
    ]
    decision = default.classify(messages)
    assert decision.route == "translation"
    assert decision.target_language == "English"


def test_system_prompt_gives_context(default: Classifier) -> None:
    messages = [
        {
            "role": "system",
            "content": "You are a translator. Translate every message into Italian.",
        },
        {"role": "user", "content": "The shop closes at eight tonight."},
    ]
    decision = default.classify(messages)
    assert decision.route == "translation"
    assert decision.target_language == "Italian"
    assert decision.source_language == "English"
    assert default.classify(messages[1:]).route == "qa"


def test_empty_request_goes_to_default(default: Classifier) -> None:
    decision = default.classify([])
    assert decision == RouteDecision("qa", 0.5, "default", decision.reason)


def test_decision_as_dict() -> None:
    decision = RouteDecision("translation", 0.95, "language", "why", "French", "English")
    assert decision.as_dict() == {
        "route": "translation",
        "confidence": 0.95,
        "tier": "language",
        "reason": "why",
        "target_language": "French",
        "source_language": "English",
    }
    assert "target_language" not in RouteDecision("qa", 0.5, "default", "none").as_dict()


def test_explicit_decision() -> None:
    decision = explicit_decision("qa", "model 'qa'")
    assert (decision.route, decision.tier, decision.confidence) == ("qa", "explicit", 1.0)
    assert decision.reason == "model 'qa'"
