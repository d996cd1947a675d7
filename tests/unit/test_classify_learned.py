"""The learned tier, user examples and negative examples, multi-turn chats, and `explain`."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from router.classify import Classifier
from router.classify.config import RecognitionConfig
from router.classify.evaluate import default_routes
from router.classify.learned import RULE_PRIOR, LinearModel, features
from router.classify.text import normalise


@pytest.fixture(scope="module")
def classifier() -> Classifier:
    return Classifier(default_routes(), "qa")


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, object]:
    return {"role": "assistant", "content": text}


# -- the learned tier ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "dog in german",
        "umbrella in Korean?",
        "need the portuguese for a birthday card greeting",
        "what's the Swahili word for lion",
        "how do Norwegians say enjoy your meal",
    ],
)
def test_learned_tier_recognises_indirect_asks(classifier: Classifier, text: str) -> None:
    decision = classifier.classify_text(text)
    assert decision.route == "translation", decision
    assert decision.tier in ("learned", "language"), decision
    if decision.tier == "learned":
        assert decision.reason.startswith("learned phrasing p="), decision


@pytest.mark.parametrize(
    "text",
    [
        "what time is it in Tokyo",
        "Translate this requirement into a SQL query: customers with two orders",
        "switch your language to Spanish from now on",
        "Is German harder to learn than Dutch?",
        "Write a limerick in Italian about a cat.",
        "How do I conjugate 'tener' in Spanish?",
    ],
)
def test_learned_tier_keeps_look_alikes_out(classifier: Classifier, text: str) -> None:
    assert classifier.classify_text(text).route == "qa"


def test_certain_rules_are_not_overturned(classifier: Classifier) -> None:
    decision = classifier.classify_text("Translate into French: the quarterly report")
    assert (decision.route, decision.tier, decision.target_language) == (
        "translation",
        "language",
        "French",
    )
    assert decision.reason == "translation verb 'translate' + target 'French'"
    # A weaker phrasing is weighed by the model, and the reason says so.
    weaker = classifier.classify_text("how do you say good luck in Polish")
    assert (weaker.route, weaker.tier) == ("translation", "language"), weaker
    assert "learned p=" in weaker.reason


def test_quoted_spans_are_payload_not_phrasing() -> None:
    one = features(normalise("What does 'Feierabend' mean?"))
    other = features(normalise("What does 'sobremesa' mean?"))
    assert one.bag and sorted(one.bag) == sorted(other.bag)
    assert "quote:Latin>Latin" in one.dense


def test_model_file_format_is_checked(tmp_path: Path) -> None:
    bad = tmp_path / "model.json.gz"
    with gzip.open(bad, "wt", encoding="utf-8") as handle:
        json.dump({"format": "something-else", "bias": 0, "weights": {}}, handle)
    with pytest.raises(ValueError, match="unknown model format"):
        LinearModel.load(bad)


def test_shipped_model_loads_and_scores() -> None:
    model = LinearModel.load()
    assert len(model) > 10_000
    yes = model.score(features(normalise("how do you say thank you in Japanese")))
    # As served: no rule fires on a plain question, and that outcome is the model's prior.
    no = model.score(
        features(normalise("what is the boiling point of water")), prior=RULE_PRIOR["none"]
    )
    assert yes.probability > 0.9 > 0.5 > no.probability


# -- examples and negative examples (routes.yaml tuning without code) --------------------------

REPORT = "Translate into French: the quarterly report"


def test_negative_examples_move_decisions() -> None:
    plain = Classifier(default_routes(), "qa")
    assert plain.classify_text(REPORT).route == "translation"
    tuned = Classifier(
        {
            "qa": RecognitionConfig(),
            "translation": RecognitionConfig(
                signals="translation",
                negative_examples=("Translate into French: the quarterly report template",),
            ),
        },
        "qa",
    )
    decision = tuned.classify_text(REPORT)
    assert (decision.route, decision.tier) == ("qa", "examples"), decision
    assert "negative example" in decision.reason
    # Only requests like the negative example move: other translations stay.
    assert tuned.classify_text("Translate into German: good morning").route == "translation"


def test_near_positive_examples_outrank_signals() -> None:
    tuned = Classifier(
        {
            "qa": RecognitionConfig(
                examples=("how do you say thank you in a formal business email",)
            ),
            "translation": RecognitionConfig(signals="translation"),
        },
        "qa",
    )
    decision = tuned.classify_text("How do you say thank you in a formal business email?")
    assert (decision.route, decision.tier) == ("qa", "examples"), decision


def test_negative_example_of_the_default_route_falls_to_another_route() -> None:
    tuned = Classifier(
        {
            "qa": RecognitionConfig(negative_examples=("summarise this meeting transcript",)),
            "summary": RecognitionConfig(),
        },
        "qa",
    )
    decision = tuned.classify_text("Summarise this meeting transcript please")
    assert (decision.route, decision.tier) == ("summary", "examples"), decision


# -- multi-turn chats ------------------------------------------------------------------------


def test_follow_up_naming_a_language_stays_a_translation(classifier: Classifier) -> None:
    chat = [
        user('Translate "good morning" into French.'),
        assistant("Bonjour."),
        user("and in German?"),
    ]
    decision = classifier.classify(chat)
    assert (decision.route, decision.tier, decision.target_language) == (
        "translation",
        "conversation",
        "German",
    ), decision
    assert "follow-up" in decision.reason


@pytest.mark.parametrize(
    "follow_up", ["what about Korean?", "日语呢？", "¿y en italiano?", "now Spanish please"]
)
def test_follow_ups_in_other_phrasings(classifier: Classifier, follow_up: str) -> None:
    chat = [user("How do you say thank you in Japanese?"), assistant("Arigatou."), user(follow_up)]
    assert classifier.classify(chat).route == "translation"


def test_question_about_the_translated_text_is_qa(classifier: Classifier) -> None:
    chat = [
        user('Translate "Je suis fatigué" into English.'),
        assistant("I am tired."),
        user('Why is it "fatigué" and not "fatiguée"?'),
    ]
    assert classifier.classify(chat).route == "qa"


@pytest.mark.parametrize(
    ("follow_up", "payload"),
    [
        ("and 'good night'?", "good night"),
        ("what about \"see you soon\"", "see you soon"),
        ("more casual?", "good morning"),
        ("can you make it a bit more polite", "good morning"),
        ("is there another way to say it?", "good morning"),
        ("更正式一点", "good morning"),
    ],
)
def test_follow_up_carrying_the_translation_on(
    classifier: Classifier, follow_up: str, payload: str
) -> None:
    chat = [
        user("How do you say 'good morning' in Japanese?"),
        assistant("Ohayou gozaimasu."),
        user(follow_up),
    ]
    decision = classifier.classify(chat)
    assert (decision.route, decision.tier) == ("translation", "conversation"), decision
    assert (decision.target_language, decision.payload) == ("Japanese", payload), decision


@pytest.mark.parametrize(
    "question",
    [
        "how do I pronounce that?",
        "is 'ohayou' more casual?",
        "why is there 'gozaimasu' at the end?",
        "write it again in hiragana",
        "is that polite enough for my boss?",
    ],
)
def test_question_about_the_text_after_a_translation_is_qa(
    classifier: Classifier, question: str
) -> None:
    chat = [
        user("How do you say 'good morning' in Japanese?"),
        assistant("Ohayou gozaimasu."),
        user(question),
    ]
    assert classifier.classify(chat).route == "qa"


def test_carrying_on_needs_a_translation_before_it(classifier: Classifier) -> None:
    chat = [user("Write a haiku about rain"), assistant("..."), user("more casual?")]
    assert classifier.classify(chat).route == "qa"
    chat = [user("What's the capital of Peru?"), assistant("Lima."), user("and 'Chile'?")]
    assert classifier.classify(chat).route == "qa"


def test_follow_up_needs_a_translation_before_it(classifier: Classifier) -> None:
    assert classifier.classify([user("and in German?")]).route == "qa"
    chat = [
        user("What's the capital of Austria?"),
        assistant("Vienna."),
        user("How many people speak German there?"),
    ]
    assert classifier.classify(chat).route == "qa"


def test_a_new_request_after_a_translation_is_judged_on_its_own(classifier: Classifier) -> None:
    chat = [
        user("Translate 'cheers' into Dutch"),
        assistant("Proost."),
        user("What is the capital of Peru?"),
    ]
    assert classifier.classify(chat).route == "qa"


# -- explain -----------------------------------------------------------------------------------


def test_explain_reports_every_tier(classifier: Classifier) -> None:
    report = classifier.explain([user("dog in german")])
    decision = report["decision"]
    assert isinstance(decision, dict) and decision["route"] == "translation"
    tiers = report["tiers"]
    assert isinstance(tiers, dict)
    assert set(tiers) == {"rules", "examples", "signals", "default"}
    signals = tiers["signals"]
    assert isinstance(signals, dict)
    learned = signals["translation"]["learned"]
    assert 0.5 <= learned["probability"] <= 1.0 and learned["top_features"]
    assert "kind" in signals["translation"]["rules"]
    json.dumps(report)  # JSON-ready
